/**
 * What a snapshot remembers between two reads of the page (issue #17): the answers that cost the
 * most on a large page — which children of a list are visible, which hold a checked control —
 * kept per element and re-read only where a change since the last read could have altered them.
 *
 * Where the page changed comes from the page index's `ChangeLog` (the MutationObserver's records:
 * an attribute's element, a child list's parent, a text's parent; and "everything" for a change
 * outside the DOM: a resize, a toggled popover, a root coming or going, a state CSS follows).
 *
 * Visibility (`checkVisibility()`: whether the element has a box) follows CSS, so how far a change
 * reaches depends on the page's style sheets, read here (`createStyleSheets`, only rules that set
 * `display`, `content-visibility` or `all` count):
 * - "subtree": a change can only alter the boxes of the changed element and what is below it;
 * - "siblings": some rule selects on siblings or position (`+`, `~`, `:nth-child`, `:empty`…): a
 *   change reaches its parent's subtree;
 * - "everything": some rule follows what no DOM record announces — the pointer or focus (`:hover`,
 *   `:focus-within`), a control's state or value (`:checked`, `:invalid`: a property set by script
 *   fires nothing), a media feature other than the viewport's size (`prefers-color-scheme`), a
 *   container's size (`@container`) — or looks down (`:has()`), or a sheet cannot be read (another
 *   origin's). No visibility is remembered on such a page: every read asks again.
 * A sheet added, removed or changed (its rule count), and a viewport (or frame) whose size or zoom
 * changed, also mean "everything" for that read. Facts read from the DOM alone (an item's
 * controls, a subtree without counters, where a list sits) are kept whatever the sheets say.
 */

type Root = Document | ShadowRoot;

/**
 * One DOM change: an element's attribute, a node's child list (and each element added to it,
 * which may have been moved there), the text of a node's child.
 */
export interface PageChange {
  node: Node;
  kind: "attributes" | "childList" | "added" | "characterData";
}

/** Where the page changed since a read (page-index.ts keeps it). */
export interface ChangeLog {
  /** The change count now (moves with every change a snapshot could see). */
  readonly version: number;
  /** The changes since `version`, or undefined when anything may have changed (or the log no longer reaches back that far). */
  since(version: number): readonly PageChange[] | undefined;
  /** The change count at which the list of elements of a kind (snapshot-observer.ts `SNAPSHOT_KINDS`), or the name of one of them, last changed. */
  kindChangedAt(kind: string): number;
}

export type StyleReach = "subtree" | "siblings" | "everything";

/** Properties `checkVisibility()` follows (with `all`, which resets them). */
const BOX_PROPERTIES = ["display", "content-visibility", "all"] as const;
/**
 * Selectors whose match follows something no DOM record announces — the pointer, focus, the URL's
 * fragment, a control's state or value (a property set by script fires no record) — or that look
 * down the tree.
 */
const FAR_SELECTOR =
  /:(has|hover|focus|focus-within|focus-visible|active|target|target-within|popover-open|open|closed|modal|fullscreen|picture-in-picture|playing|paused|defined|state|checked|indeterminate|default|valid|invalid|user-valid|user-invalid|placeholder-shown|in-range|out-of-range|autofill|-webkit-autofill|blank)\b|:host-context\b/i;
/** Media features a resize (which the reader notices) can flip; a rule under any other (`prefers-color-scheme`, `hover`, `print`) may flip unannounced. */
const RESIZE_MEDIA = /^(?:\s|,|\b(?:and|or|not|only|screen|all)\b|\([^()]*\b(?:width|height|aspect-ratio|orientation)\b[^()]*\))*$/i;
/** Selectors whose match follows an element's siblings or its position among them. */
const SIBLING_SELECTOR = /[+~]|:(nth-child|nth-last-child|nth-of-type|nth-last-of-type|first-child|last-child|only-child|first-of-type|last-of-type|only-of-type|empty)\b/i;

const RANK: Record<StyleReach, number> = { subtree: 0, siblings: 1, everything: 2 };

export interface StyleSheets {
  /** How far a change may reach the boxes of other elements, from the roots' sheets, and whether the sheets changed since the last call. */
  read(roots: readonly Root[]): { reach: StyleReach; changed: boolean };
}

function isContainerRule(rule: CSSRule): boolean {
  return typeof CSSContainerRule === "function" && rule instanceof CSSContainerRule;
}

function isMediaRule(rule: CSSRule): rule is CSSMediaRule {
  return rule instanceof CSSMediaRule;
}

/** Whether any rule (nested ones included) sets a property `checkVisibility()` follows. */
function hasBoxRules(rules: CSSRuleList, depth: number): boolean {
  for (const rule of rules) {
    const style = rule as Partial<CSSStyleRule & CSSGroupingRule>;
    if (style.style !== undefined && BOX_PROPERTIES.some((property) => style.style?.getPropertyValue(property) !== "")) return true;
    if (style.cssRules !== undefined && depth < 8 && hasBoxRules(style.cssRules, depth + 1)) return true;
  }
  return false;
}

/** Reads the roots' sheets, remembering each sheet's answer while its rule count stays. */
export function createStyleSheets(): StyleSheets {
  const known = new WeakMap<CSSStyleSheet, { ruleCount: number; reach: StyleReach }>();
  let lastSheets: CSSStyleSheet[] = [];
  let lastCounts: number[] = [];

  const ofRules = (rules: CSSRuleList, depth: number): StyleReach => {
    let reach: StyleReach = "subtree";
    for (const rule of rules) {
      const style = rule as Partial<CSSStyleRule & CSSGroupingRule & CSSImportRule>;
      if (typeof style.selectorText === "string" && style.style !== undefined && BOX_PROPERTIES.some((property) => style.style?.getPropertyValue(property) !== "")) {
        if (FAR_SELECTOR.test(style.selectorText)) return "everything";
        if (SIBLING_SELECTOR.test(style.selectorText)) reach = "siblings";
      }
      if (style.cssRules !== undefined && depth < 8) {
        const inner = ofRules(style.cssRules, depth + 1);
        // A container query follows a container's size, which any change may alter; a media query other than the viewport's size may flip unannounced.
        if (hasBoxRules(style.cssRules, depth + 1) && (isContainerRule(rule) || (isMediaRule(rule) && !RESIZE_MEDIA.test(rule.conditionText)))) return "everything";
        if (inner === "everything") return inner;
        if (RANK[inner] > RANK[reach]) reach = inner;
      }
      if (style.styleSheet && depth < 8) {
        const imported = ofSheet(style.styleSheet, depth + 1).reach;
        if (imported === "everything") return imported;
        if (RANK[imported] > RANK[reach]) reach = imported;
      }
    }
    return reach;
  };

  const ofSheet = (sheet: CSSStyleSheet, depth: number): { reach: StyleReach; ruleCount: number } => {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      return { reach: "everything", ruleCount: -1 }; // another origin's sheet cannot be read
    }
    const remembered = known.get(sheet);
    if (remembered !== undefined && remembered.ruleCount === rules.length) return remembered;
    const answer = { ruleCount: rules.length, reach: ofRules(rules, depth) };
    known.set(sheet, answer);
    return answer;
  };

  return {
    read(roots) {
      const sheets: CSSStyleSheet[] = [];
      for (const root of roots) {
        for (const sheet of root.styleSheets) sheets.push(sheet);
        for (const sheet of root.adoptedStyleSheets ?? []) sheets.push(sheet);
      }
      let reach: StyleReach = "subtree";
      let changed = sheets.length !== lastSheets.length;
      const counts: number[] = [];
      for (let index = 0; index < sheets.length; index += 1) {
        const sheet = sheets[index]!;
        const answer = sheet.disabled ? { reach: "subtree" as const, ruleCount: -2 } : ofSheet(sheet, 0);
        counts.push(answer.ruleCount);
        if (!changed && (lastSheets[index] !== sheet || lastCounts[index] !== answer.ruleCount)) changed = true;
        if (RANK[answer.reach] > RANK[reach]) reach = answer.reach;
      }
      lastSheets = sheets;
      lastCounts = counts;
      return { reach, changed };
    },
  };
}

/** The parent in the flat tree: a slotted node's slot, a shadow root's host. */
function flatParent(node: Node): Node | null {
  const slot = (node as Element).assignedSlot;
  if (slot) return slot;
  const parent = node.parentNode;
  return parent !== null && parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE ? ((parent as ShadowRoot).host ?? null) : parent;
}

function isVisible(element: Element): boolean {
  return typeof element.checkVisibility === "function" ? element.checkVisibility() : true;
}

/** One child of a parent, with what was read of it. */
interface ChildEntry {
  element: Element;
  /** Whether it has a box (read when first asked). */
  visible: boolean | undefined;
  /** Facts read from its subtree (read when first asked, forgotten when something in it changed). */
  facts: Map<string, unknown> | undefined;
}

interface ParentEntry {
  /** The read it was last brought up to date in. */
  generation: number;
  /** The read its children were listed in afresh (nothing remembered of them). */
  built: number;
  children: ChildEntry[];
  elements: Element[];
  positions?: Map<Element, number>;
  /** Positions of the children whose facts or visibility this read forgot; undefined: any may have changed. */
  changed: number[] | undefined;
  /** A fact of the parent's own texts (its text children), while none of them changed. */
  ownTexts?: unknown;
  /** What a reader keeps about the children as a whole, while the child list stays and the entry is read every time. */
  state?: Map<string, { generation: number; value: unknown }>;
}

/** Facts remembered of one element, and the read they were last confirmed in. */
interface FactsEntry {
  generation: number;
  facts: Map<string, unknown>;
}

export interface SnapshotMemo {
  /** Starts a read of `roots`: what changed since the last read (an unknown one: everything). */
  begin(roots: readonly Root[], changes: ChangeLog | undefined): void;
  /** Whether an element has a box, remembered while no change since can have altered it. */
  isVisible(element: Element): boolean;
  /** The element children of `parent`, each with its visibility and facts kept up to date. */
  children(parent: Element): ChildView;
  /** A fact read from an element's own tag and attributes and its ancestors' (`compute` must read nothing else), remembered while none of them changed. */
  upward<T>(element: Element, key: string, compute: (element: Element) => T): T;
  /** A fact of an element's subtree (its own tag and attributes, and what is below it), if remembered and nothing in the subtree changed since. */
  below<T>(element: Element, key: string): T | undefined;
  /** Remembers a fact of an element's subtree, read in this read. */
  rememberBelow(element: Element, key: string, value: unknown): void;
  /** What the last read kept under `key` (undefined when it kept nothing, or this read trusts nothing remembered). */
  last<T>(key: string): T | undefined;
  /** Keeps a value for the next read. */
  keep(key: string, value: unknown): void;
  /** True when no element of `kind` came, went or was renamed since the last read. */
  kindUnchanged(kind: string): boolean;
}

export interface ChildView {
  readonly elements: readonly Element[];
  /** True when nothing was remembered of these children (read them in bulk where that is cheaper). */
  readonly fresh: boolean;
  visible(position: number): boolean;
  /** A fact of the child at `position` read from its subtree only (`compute` must read nothing else). */
  fact<T>(position: number, key: string, compute: (child: Element) => T): T;
  /** Remembers a fact of the child at `position` read in bulk (what `fact` would have computed). */
  remember(position: number, key: string, value: unknown): void;
  /** Positions of the children whose facts or visibility may differ from the last read's; undefined: any may. */
  readonly changed: readonly number[] | undefined;
  /** A fact of the parent's text children (`compute` reads nothing else), remembered while none of them changed. */
  ownTexts<T>(compute: (parent: Element) => T): T;
  /** What a reader kept under `key` about these children as a whole at the last read (undefined if the child list changed since). */
  state<T>(key: string): T | undefined;
  setState(key: string, value: unknown): void;
}

/** No memory: every answer read afresh (a source without a change log; the reference reads are tested against). */
export const NO_MEMO: SnapshotMemo = {
  begin: () => undefined,
  isVisible,
  children(parent) {
    const elements = [...parent.children];
    return {
      elements,
      fresh: true,
      visible: (position) => isVisible(elements[position]!),
      fact: (position, _key, compute) => compute(elements[position]!),
      remember: () => undefined,
      changed: undefined,
      ownTexts: (compute) => compute(parent),
      state: () => undefined,
      setState: () => undefined,
    };
  },
  upward: (element, _key, compute) => compute(element),
  below: () => undefined,
  rememberBelow: () => undefined,
  last: () => undefined,
  keep: () => undefined,
  kindUnchanged: () => false,
};

/** Whether `node` or one of its ancestors (in the flat tree) is in `changed`, each node's answer kept for the read. */
function ancestryCheck(changed: ReadonlySet<Node>): (node: Node) => boolean {
  const answers = new Map<Node, boolean>();
  return (start) => {
    if (changed.size === 0) return false;
    const path: Node[] = [];
    let answer = false;
    for (let node: Node | null = start; node !== null; node = flatParent(node)) {
      const known = answers.get(node);
      if (known !== undefined) {
        answer = known;
        break;
      }
      path.push(node);
      if (changed.has(node)) {
        answer = true;
        break;
      }
    }
    for (const node of path) answers.set(node, answer);
    return answer;
  };
}

export function createSnapshotMemo(styleSheets: StyleSheets = createStyleSheets()): SnapshotMemo {
  let generation = 0;
  let version: number | undefined;
  let previousVersion: number | undefined;
  let log: ChangeLog | undefined;
  let kept = new Map<string, { generation: number; value: unknown }>();
  let lastViewports: number[] = [];
  /** This read trusts nothing remembered (the first read; a change the log cannot tell). */
  let contentAll = true;
  /** This read trusts no remembered visibility (also: sheets changed, or their rules reach everything). */
  let styleAll = true;
  /** Nodes a change happened at (an attribute's element, a child list's parent, a text's parent), and all their ancestors (light tree; a shadow root, then its host). */
  let contentChanged = new Set<Node>();
  /** Nodes whose child list changed. */
  let childListChanged = new Set<Node>();
  /** Nodes a text child of which changed. */
  let textChanged = new Set<Node>();
  /** Elements whose tag, attributes or place changed: attributes changed, added (maybe moved). */
  let placeChanged = new Set<Node>();
  /** Elements whose box, and their subtree's, may have changed: `placeChanged`, and where the sheets select on siblings, the parents of changed attributes, changed child lists, texts' parents. */
  let styleChanged = new Set<Node>();
  let placeChangedAround = ancestryCheck(placeChanged);
  let styleChangedAround = ancestryCheck(styleChanged);
  let parents = new WeakMap<Element, ParentEntry>();
  let visibility = new WeakMap<Element, { generation: number; visible: boolean }>();
  let upwardFacts = new WeakMap<Element, FactsEntry>();
  let belowFacts = new WeakMap<Element, FactsEntry>();

  const fresh = (element: Element): ChildEntry => ({ element, visible: undefined, facts: undefined });

  const rebuild = (parent: Element): ParentEntry => {
    const children = Array.from(parent.children, fresh);
    const entry: ParentEntry = { generation, built: generation, children, elements: children.map((child) => child.element), changed: undefined };
    parents.set(parent, entry);
    return entry;
  };

  /** The children of `parent` among `nodes` (nodes whose parent is `parent`). */
  const childrenAmong = (parent: Element, nodes: ReadonlySet<Node>): Set<Node> => {
    const found = new Set<Node>();
    for (const node of nodes) if (node.parentNode === parent) found.add(node);
    return found;
  };

  /** The positions of the given children of an entry (its elements' positions, indexed once). */
  const positionsOf = (entry: ParentEntry, children: Iterable<Node>): number[] => {
    entry.positions ??= new Map(entry.elements.map((element, position) => [element, position]));
    const found: number[] = [];
    for (const child of children) {
      const position = entry.positions.get(child as Element);
      if (position !== undefined) found.push(position);
    }
    return found;
  };

  const bringUpToDate = (parent: Element): ParentEntry => {
    let entry = parents.get(parent);
    if (entry !== undefined && entry.generation === generation) return entry;
    if (entry === undefined || entry.generation !== generation - 1 || contentAll) return rebuild(parent);
    entry.generation = generation;
    entry.changed = [];
    if (!contentChanged.has(parent) && !styleAll && !styleChangedAround(parent)) return entry;
    const all = (): void => {
      entry!.changed = undefined;
    };
    const reset = (positions: readonly number[], what: "facts" | "visible"): void => {
      for (const position of positions) entry!.children[position]![what] = undefined;
      entry!.changed?.push(...positions);
    };
    if (contentChanged.has(parent)) {
      if (childListChanged.has(parent) || textChanged.has(parent)) entry.ownTexts = undefined;
      if (childListChanged.has(parent)) {
        // Children came or went: those that stayed keep what was read of them.
        const kept = new Map(entry.children.map((child) => [child.element, child]));
        entry.children = Array.from(parent.children, (element) => kept.get(element) ?? fresh(element));
        entry.elements = entry.children.map((child) => child.element);
        entry.positions = undefined;
        entry.state = undefined;
        all();
      }
      // Something below changed: the children it is below forget their facts (all of them when it came through the shadow root).
      if (parent.shadowRoot !== null && contentChanged.has(parent.shadowRoot)) {
        for (const child of entry.children) child.facts = undefined;
        all();
      } else reset(positionsOf(entry, childrenAmong(parent, contentChanged)), "facts");
    }
    if (styleAll || styleChangedAround(parent)) {
      for (const child of entry.children) child.visible = undefined;
      all();
    } else if (parent.shadowRoot !== null) {
      // Slotted children take their boxes from the shadow tree too.
      for (const child of entry.children) if (styleChangedAround(child.element)) child.visible = undefined;
      all();
    } else reset(positionsOf(entry, childrenAmong(parent, styleChanged)), "visible");
    return entry;
  };

  const confirmed = (known: FactsEntry | { generation: number } | undefined, changedAround: () => boolean): boolean =>
    known !== undefined && (known.generation === generation || (known.generation === generation - 1 && !changedAround()));

  return {
    begin(roots, changes) {
      generation += 1;
      const now = changes?.version;
      const changed = changes === undefined || version === undefined ? undefined : changes.since(version);
      previousVersion = version;
      version = now;
      log = changes;
      const sheets = styleSheets.read(roots);
      // Media queries on the viewport's size flip with it: a resize (of a frame too) trusts no visibility remembered.
      const viewports: number[] = [];
      for (const root of roots) {
        const view = root.nodeType === Node.DOCUMENT_NODE ? (root as Document).defaultView : null;
        if (view !== null) viewports.push(view.innerWidth, view.innerHeight, view.devicePixelRatio);
      }
      const resized = viewports.length !== lastViewports.length || viewports.some((value, position) => value !== lastViewports[position]);
      lastViewports = viewports;
      contentAll = changed === undefined;
      styleAll = contentAll || sheets.changed || sheets.reach === "everything" || resized;
      contentChanged = new Set();
      childListChanged = new Set();
      textChanged = new Set();
      placeChanged = new Set();
      styleChanged = new Set();
      if (changed === undefined) {
        // Nothing older is trusted: let the old answers go.
        parents = new WeakMap();
        visibility = new WeakMap();
        upwardFacts = new WeakMap();
        belowFacts = new WeakMap();
        kept = new Map();
      } else {
        const siblings = sheets.reach === "siblings";
        for (const { node, kind } of changed) {
          if (kind === "added" || kind === "attributes") placeChanged.add(node);
          if (kind === "added") continue;
          if (kind === "childList") childListChanged.add(node);
          if (kind === "characterData") textChanged.add(node);
          for (let up: Node | null = node; up !== null && !contentChanged.has(up); up = up.parentNode ?? ((up as ShadowRoot).host ?? null)) contentChanged.add(up);
          if (siblings) {
            styleChanged.add(node);
            if (kind === "attributes" && node.parentNode !== null) styleChanged.add(node.parentNode);
          }
        }
        for (const node of placeChanged) styleChanged.add(node);
      }
      placeChangedAround = ancestryCheck(placeChanged);
      styleChangedAround = ancestryCheck(styleChanged);
    },
    isVisible(element) {
      const known = visibility.get(element);
      if (!styleAll && confirmed(known, () => styleChangedAround(element))) {
        known!.generation = generation;
        return known!.visible;
      }
      const visible = isVisible(element);
      visibility.set(element, { generation, visible });
      return visible;
    },
    children(parent) {
      const entry = bringUpToDate(parent);
      const { children } = entry;
      return {
        elements: entry.elements,
        fresh: entry.built === generation,
        visible(position) {
          const child = children[position]!;
          child.visible ??= isVisible(child.element);
          return child.visible;
        },
        fact(position, key, compute) {
          const child = children[position]!;
          child.facts ??= new Map();
          if (child.facts.has(key)) return child.facts.get(key) as ReturnType<typeof compute>;
          const value = compute(child.element);
          child.facts.set(key, value);
          return value;
        },
        remember(position, key, value) {
          const child = children[position]!;
          child.facts ??= new Map();
          child.facts.set(key, value);
        },
        changed: entry.changed,
        ownTexts(compute) {
          if (entry.ownTexts === undefined) entry.ownTexts = { value: compute(parent) };
          return (entry.ownTexts as { value: never }).value;
        },
        state(key) {
          // Kept at the last read only: a reader that skipped a read missed the changes it brought.
          const known = entry.state?.get(key);
          return known !== undefined && known.generation === generation - 1 ? (known.value as never) : undefined;
        },
        setState(key, value) {
          entry.state ??= new Map();
          entry.state.set(key, { generation, value });
        },
      };
    },
    upward(element, key, compute) {
      let known = upwardFacts.get(element);
      if (!confirmed(known, () => placeChangedAround(element))) {
        known = { generation, facts: new Map() };
        upwardFacts.set(element, known);
      }
      known!.generation = generation;
      if (known!.facts.has(key)) return known!.facts.get(key) as ReturnType<typeof compute>;
      const value = compute(element);
      known!.facts.set(key, value);
      return value;
    },
    below(element, key) {
      const known = belowFacts.get(element);
      if (!confirmed(known, () => contentChanged.has(element))) return undefined;
      known!.generation = generation;
      return known!.facts.get(key) as never;
    },
    last(key) {
      const known = kept.get(key);
      return known !== undefined && known.generation === generation - 1 && !contentAll ? (known.value as never) : undefined;
    },
    keep(key, value) {
      kept.set(key, { generation, value });
    },
    kindUnchanged(kind) {
      return !contentAll && log !== undefined && previousVersion !== undefined && log.kindChangedAt(kind) <= previousVersion;
    },
    rememberBelow(element, key, value) {
      let known = belowFacts.get(element);
      if (known === undefined || known.generation !== generation) {
        known = { generation, facts: new Map() };
        belowFacts.set(element, known);
      }
      known.facts.set(key, value);
    },
  };
}
