import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { roleOf } from "../names/accessible-name";
import type { Names } from "../names/name-cache";
import { subtreeText } from "../names/subtree-text";
import { NO_MEMO, type ChildView, type SnapshotMemo } from "./snapshot-memo";
import { LIST_CONTAINERS, TOGGLES } from "./snapshot-source";

/**
 * The parts of a snapshot that say whether a sub-goal was reached (issue #14): lists and how many
 * items they show, controls with a state (checked, expanded, sorted), short texts with numbers (a
 * counter), and which buttons only show while the pointer is over something. No list item's text
 * and no name of a control inside a row leaves the page: a row often shows what was typed. Other
 * text goes through the caller's `clean` (scrub of typed values + length cut).
 */

type Root = Document | ShadowRoot;
type Extras = Required<Pick<PageSnapshot, "lists" | "toggles" | "texts" | "hover_revealed">>;

const LIST_ITEMS = "li, tr, [role=listitem], [role=option], [role=row], [role=treeitem]";
const CHECKED_INSIDE = "input[type=checkbox], input[type=radio], [aria-checked], [aria-selected]";
/** Text inside these is listed elsewhere (or typed): not a counter of its own. */
const NOT_COUNTER = "li, tr, button, a, h1, h2, h3, h4, h5, h6, input, textarea, select, option, script, style, noscript, svg, [role=status], [role=alert], [contenteditable], [role=button], [role=heading], [role=listitem], [role=row]";
const INLINE_TAGS = new Set(["STRONG", "B", "EM", "I", "SMALL", "SPAN", "MARK", "CODE", "DATA", "TIME", "ABBR"]);
const CONTAINERS = new Set(["BODY", "HTML", "MAIN", "SECTION", "ARTICLE", "FORM", "UL", "OL", "TABLE"]);
const LIMITS = { lists: 8, toggles: 40, texts: 20, hover: 40, counted: 500 } as const;
const COUNTER_TEXT_MAX = 60;
const DIGIT = /\d/;
/** Pseudo-classes that show or hide things while the pointer is over, or focus is inside, an ancestor. */
const POINTER_STATE = /:(hover|focus-within|focus-visible|focus)\b/g;
const VISIBILITY_PROPERTIES = ["display", "visibility", "opacity"] as const;

export interface HoverRules {
  /** Selectors (with the pointer states removed) of rules that show or hide descendants on hover or focus. */
  selectors(roots: readonly Root[]): string[];
}

/** Remembers each sheet's hover rules while its rule count stays (as state-styles.ts does). */
export function createHoverRules(): HoverRules {
  const known = new WeakMap<CSSStyleSheet, { ruleCount: number; selectors: string[] }>();
  const fromRules = (rules: CSSRuleList, into: string[], depth: number): void => {
    for (const rule of rules) {
      const style = rule as Partial<CSSStyleRule & CSSGroupingRule>;
      if (typeof style.selectorText === "string" && style.style !== undefined && VISIBILITY_PROPERTIES.some((property) => style.style?.getPropertyValue(property) !== "")) {
        for (const selector of style.selectorText.split(",")) {
          const at = selector.search(POINTER_STATE);
          // Only a state of an ancestor (`.row:hover .remove`): a button's own :hover changes its look, not whether it is there.
          if (at >= 0 && /[\s>+~]/.test(selector.slice(at).trim())) into.push(selector.replace(POINTER_STATE, "").trim());
        }
      }
      if (style.cssRules !== undefined && depth < 6) fromRules(style.cssRules, into, depth + 1);
    }
  };
  const ofSheet = (sheet: CSSStyleSheet): string[] => {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      return []; // another origin's sheet cannot be read
    }
    const remembered = known.get(sheet);
    if (remembered !== undefined && remembered.ruleCount === rules.length) return remembered.selectors;
    const selectors: string[] = [];
    fromRules(rules, selectors, 0);
    known.set(sheet, { ruleCount: rules.length, selectors });
    return selectors;
  };
  return {
    selectors(roots) {
      const all: string[] = [];
      for (const root of roots) {
        for (const sheet of root.styleSheets) all.push(...ofSheet(sheet));
        for (const sheet of root.adoptedStyleSheets ?? []) all.push(...ofSheet(sheet));
      }
      return all;
    },
  };
}

const defaultHoverRules = createHoverRules();

/** The elements matching `selector` under `root`, its descendants' open shadow roots included (bounded). */
function deepQueryAll(root: Element, selector: string, limit: number): Element[] {
  const found: Element[] = [];
  const scopes: Array<Element | ShadowRoot> = [root, ...(root.shadowRoot ? [root.shadowRoot] : [])];
  for (let index = 0; index < scopes.length && index < 50 && found.length < limit; index += 1) {
    for (const element of scopes[index]!.querySelectorAll("*")) {
      if (element.matches(selector)) found.push(element);
      if (element.shadowRoot) scopes.push(element.shadowRoot);
    }
  }
  return found;
}

/**
 * How many items a list shows (its visible children that are items, at most `LIMITS.counted`
 * looked at) and how many of those hold a checked control: the item itself, or one inside it
 * (inside open shadow roots too). Visibility and each item's controls are remembered by the memo
 * while nothing that could alter them changed, and for a list whose items are its children the
 * counts too, updated from the children that changed; whether a control is checked is read every
 * time (a property, set without any DOM change). Where an observed shadow root is in the list
 * (rare), each item is searched afresh, shadow roots included.
 */
function listCounts(list: Element, memo: SnapshotMemo, shadowHosts: readonly Element[]): { items: number; checked: number } {
  if (shadowHosts.some((host) => list.contains(host))) {
    const items = itemsOf(list, NO_MEMO);
    return {
      items: items.length,
      checked: items.filter(({ view, position }) => {
        const item = view.elements[position]!;
        return (item.matches(CHECKED_INSIDE) && isChecked(item)) || deepQueryAll(item, CHECKED_INSIDE, 4).some(isChecked);
      }).length,
    };
  }
  const direct = directCounts(list, memo);
  if (direct !== undefined) return direct;
  const items = itemsOf(list, memo);
  if (items.some(({ view }) => view.fresh)) rememberControls(list, items);
  let checked = 0;
  for (const { view, position } of items) {
    if (view.fact(position, CONTROLS, controlsOf).some(isChecked)) checked += 1;
  }
  return { items: items.length, checked };
}

/** Read afresh: one query over the list finds the controls, each given to the item it sits in. */
function rememberControls(list: Element, items: ReadonlyArray<{ view: ChildView; position: number }>): void {
  const byItem = new Map<Element, Element[]>(items.map(({ view, position }) => [view.elements[position]!, []]));
  for (const control of list.querySelectorAll(CHECKED_INSIDE)) {
    for (let node: Element | null = control; node !== null && node !== list; node = node.parentElement) {
      const controls = byItem.get(node);
      if (controls !== undefined) {
        controls.push(control);
        break;
      }
    }
  }
  for (const { view, position } of items) view.remember(position, CONTROLS, byItem.get(view.elements[position]!));
}

const CONTROLS = "checked-controls";
const COUNTS = "list-counts";
const controlsOf = (item: Element): Element[] => [...(item.matches(CHECKED_INSIDE) ? [item] : []), ...item.querySelectorAll(CHECKED_INSIDE)];
const isListItem = (element: Element): boolean => element.matches(LIST_ITEMS);

/** A list's counts as of the last read, by its children's positions. */
interface ListState {
  /** Per position: whether the child is an item. */
  items: boolean[];
  /** The position after the last child looked at (`LIMITS.counted` items at most). */
  until: number;
  /** Visible items among them, and those of these that hold a control that can be checked. */
  visible: Set<number>;
  controlled: Set<number>;
}

/** What a list's child is: an item, not one, or a table section (whose rows are the items). */
function childKind(view: ChildView, position: number, bulleted: boolean): "item" | "other" | "section" {
  const tag = view.elements[position]!.tagName;
  if (tag === "TEMPLATE" || tag === "SCRIPT" || tag === "STYLE") return "other";
  if (tag === "TBODY" || tag === "THEAD" || tag === "TFOOT") return "section";
  return bulleted || view.fact(position, "list-item", isListItem) ? "item" : "other";
}

/**
 * The counts of a list whose items are its children (no table sections), kept from the last read
 * and updated from the children that changed since; undefined for a list with table sections.
 */
function directCounts(list: Element, memo: SnapshotMemo): { items: number; checked: number } | undefined {
  const view = memo.children(list);
  const bulleted = list.tagName === "UL" || list.tagName === "OL";
  let state = view.changed === undefined ? undefined : view.state<ListState>(COUNTS);
  if (state !== undefined) {
    for (const position of view.changed!) {
      const kind = childKind(view, position, bulleted);
      if (kind !== (state.items[position] ? "item" : "other")) {
        // Which children are items changed: where the count stops may move.
        state = undefined;
        break;
      }
      if (position >= state.until) continue;
      state.visible.delete(position);
      state.controlled.delete(position);
      if (kind !== "item" || !view.visible(position)) continue;
      state.visible.add(position);
      if (view.fact(position, CONTROLS, controlsOf).length > 0) state.controlled.add(position);
    }
  }
  if (state === undefined) {
    const fresh: ListState = { items: [], until: view.elements.length, visible: new Set(), controlled: new Set() };
    let looked = 0;
    for (let position = 0; position < view.elements.length; position += 1) {
      if (looked >= LIMITS.counted) {
        fresh.until = position;
        break;
      }
      const kind = childKind(view, position, bulleted);
      if (kind === "section") return undefined;
      fresh.items.push(kind === "item");
      if (kind !== "item") continue;
      looked += 1;
      if (view.visible(position)) fresh.visible.add(position);
    }
    if (view.fresh) rememberControls(list, [...fresh.visible].map((position) => ({ view, position })));
    for (const position of fresh.visible) if (view.fact(position, CONTROLS, controlsOf).length > 0) fresh.controlled.add(position);
    state = fresh;
  }
  view.setState(COUNTS, state);
  let checked = 0;
  for (const position of state.controlled) if (view.fact(position, CONTROLS, controlsOf).some(isChecked)) checked += 1;
  return { items: state.visible.size, checked };
}

/** A list's visible items (each as its place among its parent's children), at most `LIMITS.counted` looked at. */
function itemsOf(list: Element, memo: SnapshotMemo): Array<{ view: ChildView; position: number }> {
  const items: Array<{ view: ChildView; position: number }> = [];
  const bulleted = list.tagName === "UL" || list.tagName === "OL";
  let looked = 0;
  const take = (parent: Element): void => {
    const view = memo.children(parent);
    const { elements } = view;
    for (let position = 0; position < elements.length; position += 1) {
      if (looked >= LIMITS.counted) return;
      const child = elements[position]!;
      const tag = child.tagName;
      if (tag === "TEMPLATE" || tag === "SCRIPT" || tag === "STYLE") continue;
      if (tag === "TBODY" || tag === "THEAD" || tag === "TFOOT") {
        if (tag === "TBODY") take(child);
        continue;
      }
      if (!bulleted && !view.fact(position, "list-item", isListItem)) continue;
      looked += 1;
      if (view.visible(position)) items.push({ view, position });
    }
  };
  take(list);
  return items;
}

/** Elements of `NOT_COUNTER` by tag (what a page has most of: rows, buttons, links). */
const NOT_COUNTER_TAGS = new Set(["li", "tr", "button", "a", "h1", "h2", "h3", "h4", "h5", "h6", "input", "textarea", "select", "option", "script", "style", "noscript", "svg"]);

/**
 * An element no counter is read from inside: one of `NOT_COUNTER` that is not an inline tag (a
 * counter's phrase climbs out of a text only through inline tags, so every text inside it would
 * end at this element, which `NOT_COUNTER` refuses).
 */
function holdsNoCounter(element: Element): boolean {
  if (INLINE_TAGS.has(element.tagName)) return false;
  if (NOT_COUNTER_TAGS.has(element.localName)) return true;
  return element.hasAttributes() && (element.hasAttribute("role") || element.hasAttribute("contenteditable")) && element.matches(NOT_COUNTER);
}

/** A heading just before the list (its own, or one of up to three ancestors' earlier siblings), or a caption. */
function listName(list: Element, names: Names): string {
  const own = names.name(list);
  if (own !== "") return own;
  const caption = list.querySelector(":scope > caption");
  if (caption !== null) return names.text(caption);
  let node: Element | null = list;
  for (let depth = 0; node !== null && depth < 4; depth += 1, node = node.parentElement) {
    for (let sibling = node.previousElementSibling; sibling !== null; sibling = sibling.previousElementSibling) {
      const heading = sibling.matches("h1, h2, h3, h4, h5, h6, [role=heading], label, legend") ? sibling : sibling.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]");
      if (heading !== null) return names.text(heading);
    }
  }
  return "";
}

function isChecked(element: Element): boolean {
  if (element instanceof HTMLInputElement) return element.checked;
  return element.getAttribute("aria-checked") === "true" || element.getAttribute("aria-selected") === "true";
}

function stateOf(element: Element): string {
  const sort = element.getAttribute("aria-sort");
  if (sort !== null) return sort === "none" ? "not sorted" : `sorted ${sort}`;
  if (element instanceof HTMLInputElement && (element.type === "checkbox" || element.type === "radio")) return element.indeterminate ? "mixed" : element.checked ? "checked" : "unchecked";
  const checked = element.getAttribute("aria-checked");
  if (checked !== null) return checked === "true" ? "checked" : checked === "mixed" ? "mixed" : "unchecked";
  const pressed = element.getAttribute("aria-pressed");
  if (pressed !== null) return pressed === "true" ? "pressed" : "not pressed";
  const selected = element.getAttribute("aria-selected");
  if (selected !== null) return selected === "true" ? "selected" : "not selected";
  const expanded = element.getAttribute("aria-expanded");
  return expanded === "true" ? "expanded" : "collapsed";
}

/**
 * The list row a control sits in (its name may be the row's text, which may be typed). A column
 * header is not in a row of the list: it is known by its name.
 */
function contextOf(element: Element): Element | undefined {
  if (element.tagName === "TH" || element.matches("[role=columnheader], [role=rowheader]")) return undefined;
  let node: Element | null = element;
  for (let depth = 0; node !== null && depth < 12; depth += 1) {
    const parent: Element | null = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null);
    if (parent === null) return undefined;
    // A row is a list item, or any element a list holds directly (a custom element in a <ul>).
    if (parent.matches(LIST_ITEMS) || parent.parentElement?.matches("ul, ol, [role=list]") === true) return parent;
    node = parent;
  }
  return undefined;
}

/** 1-based position of a row among its visible siblings. */
function rowPosition(row: Element, memo: SnapshotMemo): number | undefined {
  const parent = row.parentElement;
  if (parent === null) return undefined;
  const siblings = memo.children(parent);
  const at = siblings.elements.indexOf(row);
  if (at < 0 || !siblings.visible(at)) return undefined;
  let position = 0;
  for (let index = 0; index <= at; index += 1) {
    const tag = siblings.elements[index]!.tagName;
    if (tag === "TEMPLATE" || tag === "SCRIPT" || !siblings.visible(index)) continue;
    position += 1;
  }
  return position;
}

/** Where a list sits: inside another list's item (then it is part of that item), in the page's chrome (navigation, header, footer, menus). */
function listPlace(list: Element): { nested: boolean; inChrome: boolean } {
  return {
    nested: list.parentElement?.closest(LIST_ITEMS) != null,
    inChrome: list.closest("nav, header, footer, [role=navigation], [role=banner], [role=contentinfo], [role=menu], [role=tablist]") !== null,
  };
}

/** A subtree no counter can come from: no text with a digit is reached below it (remembered by the memo while nothing in it changes). */
const QUIET = "no-counter-below";
/** Per parent: the positions of its children a counter may come from (neither skipped nor quiet). */
const LOUD_CHILDREN = "counter-children";

const hasDigitText = (parent: Element): boolean => {
  for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType === Node.TEXT_NODE && DIGIT.test(child.nodeValue ?? "")) return true;
  }
  return false;
};

/**
 * Short texts with numbers (counters), in tree order, each read through `clean`: a walk over the
 * elements and texts of each root (as a TreeWalker gives them) that skips what no counter is read
 * from — rows, buttons, links, headings, fields — and subtrees the memo knows are quiet. Below an
 * element whose own texts hold no digit, only the children that changed since the last read and
 * those a counter came from are visited: a list of 500 rows costs nothing when one row changed.
 */
function readTexts(roots: readonly Root[], memo: SnapshotMemo, clean: (text: string, max?: number) => string): string[] {
  const texts: string[] = [];
  /** Set when a text's answer holds for everything inside an ancestor: the walk goes on after that ancestor. */
  let skipTo: Element | null = null;

  /** Visits one element child; true when it is quiet (and was seen whole). */
  const visitElement = (element: Element): boolean => {
    // Rows, buttons, links, headings, fields: no text inside one is a counter, so none is visited.
    if (holdsNoCounter(element) || memo.below(element, QUIET) === true) return true;
    const quiet = walk(element);
    if (quiet && skipTo === null) memo.rememberBelow(element, QUIET, true);
    return quiet;
  };

  /** Walks the children of `parent`; true when it is quiet (and the walk saw all of it). */
  const walk = (parent: Node): boolean => {
    if (parent.nodeType === Node.ELEMENT_NODE) {
      const view = memo.children(parent as Element);
      if (!view.ownTexts(hasDigitText)) return walkElements(view);
    }
    let quiet = true;
    for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
      if (texts.length >= LIMITS.texts) return false;
      if (child.nodeType === Node.ELEMENT_NODE) {
        const below = visitElement(child as Element);
        if (skipTo !== null) {
          if (skipTo !== child) return false;
          skipTo = null;
          quiet = false;
        } else if (!below) quiet = false;
        continue;
      }
      if (child.nodeType !== Node.TEXT_NODE || !DIGIT.test(child.nodeValue ?? "")) continue;
      quiet = false;
      if (!readCounter(child as Text)) return false;
    }
    return quiet;
  };

  /** Walks the element children of a parent whose own texts hold no digit: those that changed, and those a counter may come from. */
  const walkElements = (view: ChildView): boolean => {
    const { elements, changed } = view;
    const known = view.state<Set<number>>(LOUD_CHILDREN);
    const loud = known !== undefined && changed !== undefined ? known : new Set<number>();
    const positions = known !== undefined && changed !== undefined ? [...new Set([...known, ...changed])].sort((a, b) => a - b) : elements.keys();
    view.setState(LOUD_CHILDREN, loud);
    let complete = true;
    for (const position of positions) {
      if (!complete || texts.length >= LIMITS.texts) {
        // Not seen this time: looked at again next time.
        complete = false;
        loud.add(position);
        continue;
      }
      const element = elements[position]!;
      const quiet = visitElement(element);
      if (skipTo !== null) {
        loud.add(position);
        if (skipTo !== element) {
          complete = false;
          continue;
        }
        skipTo = null;
      } else if (quiet) loud.delete(position);
      else loud.add(position);
    }
    if (!complete) {
      // Left early (a skip past an ancestor, or enough texts): the remaining positions were kept loud above.
      return false;
    }
    return loud.size === 0;
  };

  /** Reads the counter a text with a digit belongs to; false when the walk must go on after an ancestor (`skipTo`). */
  const readCounter = (text: Text): boolean => {
    let holder = text.parentElement;
    // Up from the number to the short phrase it is part of ("<strong>2</strong> items left"), never to a whole section.
    while (holder !== null && INLINE_TAGS.has(holder.tagName) && holder.parentElement !== null && !CONTAINERS.has(holder.parentElement.tagName) && holder.parentElement.childElementCount <= 3 && subtreeText(holder.parentElement).length <= COUNTER_TEXT_MAX) holder = holder.parentElement;
    if (holder === null) return true;
    const listed = holder.closest(NOT_COUNTER);
    if (listed !== null) {
      // Every other text inside it ends at the same answer (a holder climbs past an element only
      // through inline tags): the walk goes on after it. 500 rows cost one check each, not three.
      if (INLINE_TAGS.has(listed.tagName)) return true;
      skipTo = listed;
      return false;
    }
    // Nothing from inside a list's row, even across a shadow boundary: a row may show what was typed.
    if (memo.upward(holder, "row", contextOf) !== undefined || !memo.isVisible(holder)) return true;
    const value = clean(subtreeText(holder), COUNTER_TEXT_MAX + 1);
    if (value !== "" && value.length <= COUNTER_TEXT_MAX && !texts.includes(value)) texts.push(value);
    return true;
  };

  for (const root of roots) {
    const start = root.nodeType === Node.DOCUMENT_NODE ? (root as Document).body : root;
    if (start === null || texts.length >= LIMITS.texts) continue;
    walk(start);
    skipTo = null;
  }
  return texts;
}

export interface ExtrasOptions {
  roots: readonly Root[];
  names: Names;
  clean: (text: string, max?: number) => string;
  /** Names of the buttons and links the snapshot lists, to tell which of them are hover-revealed. */
  controls: (root: Root) => Iterable<Element>;
  /** The lists and the controls with a state in a root, in tree order (the page index keeps them; default: queried). Ones no longer in the page are skipped. */
  elements?: (root: Root, kind: "lists" | "toggles") => Iterable<Element>;
  hoverRules?: HoverRules;
  /** What is remembered from the last read (begun by the caller); default: nothing, all read afresh. */
  memo?: SnapshotMemo;
}

/**
 * A control in a menu that is closed: inside a `<details>` that is not open (not its summary), or
 * inside what a collapsed button (`aria-expanded="false"`) controls. Like one shown on hover, it is
 * there for whoever opens the menu (an account menu's "Log out", issue #35), and never evidence.
 */
function inClosedMenu(element: Element, collapsed: ReadonlySet<string>): boolean {
  const details = element.closest("details:not([open])");
  if (details !== null && element.closest("summary")?.parentElement !== details) return true;
  if (collapsed.size === 0) return false;
  for (let node: Element | null = element.parentElement; node !== null; node = node.parentElement) {
    if (node.id !== "" && collapsed.has(node.id)) return true;
  }
  return false;
}

/** The ids of what collapsed buttons control (`aria-expanded="false"` with `aria-controls`). */
function collapsedIds(roots: readonly Root[]): Set<string> {
  const ids = new Set<string>();
  for (const root of roots) for (const opener of root.querySelectorAll('[aria-expanded="false"][aria-controls]')) for (const id of (opener.getAttribute("aria-controls") ?? "").split(/\s+/)) if (id !== "") ids.add(id);
  return ids;
}

const queried = (root: Root, kind: "lists" | "toggles"): Iterable<Element> => root.querySelectorAll(kind === "lists" ? LIST_CONTAINERS : TOGGLES);

export function readSnapshotExtras(options: ExtrasOptions): Extras {
  const { roots, names, clean, controls, elements = queried, hoverRules = defaultHoverRules, memo = NO_MEMO } = options;
  const lists: Extras["lists"] = [];
  const candidates: Array<{ list: Element; inChrome: boolean; order: number }> = [];
  let order = 0;
  for (const root of roots) {
    for (const list of elements(root, "lists")) {
      if (!list.isConnected) continue;
      order += 1;
      // A list inside another list's item is part of that item.
      const place = memo.upward(list, "list-place", listPlace);
      if (place.nested || !memo.isVisible(list)) continue;
      candidates.push({ list, inChrome: place.inChrome, order });
    }
  }
  candidates.sort((a, b) => Number(a.inChrome) - Number(b.inChrome) || a.order - b.order);
  const shadowHosts = roots.filter((root): root is ShadowRoot => root.nodeType === Node.DOCUMENT_FRAGMENT_NODE).map((root) => root.host);
  for (const { list } of candidates.slice(0, LIMITS.lists)) {
    const { items, checked } = listCounts(list, memo, shadowHosts);
    const name = clean(listName(list, names));
    lists.push({ ...(name === "" ? {} : { name }), role: roleOf(list).slice(0, 40), items, checked });
  }

  const toggles: Extras["toggles"] = [];
  for (const root of roots) {
    for (const element of elements(root, "toggles")) {
      if (toggles.length >= LIMITS.toggles) break;
      if (!element.isConnected) continue;
      if (!memo.isVisible(element) && !(element instanceof HTMLInputElement && element.parentElement !== null && memo.isVisible(element.parentElement))) continue;
      const around = memo.upward(element, "row", contextOf);
      // In a row: known by the row's position, never by a name that may be the row's (typed) text.
      const name = around === undefined ? clean(names.name(element)) : "";
      const row = around === undefined ? undefined : rowPosition(around, memo);
      toggles.push({ ...(name === "" ? {} : { name }), role: roleOf(element).slice(0, 40), state: stateOf(element), ...(row === undefined ? {} : { row }) });
    }
  }

  const texts = readTexts(roots, memo, clean);

  const hover_revealed: string[] = [];
  const selectors = hoverRules.selectors(roots);
  const collapsed = collapsedIds(roots);
  // Most pages have neither hover rules nor closed menus: their controls are not walked at all.
  const closedMenus = collapsed.size > 0 || roots.some((root) => root.querySelector("details:not([open])") !== null);
  for (const root of selectors.length > 0 || closedMenus ? roots : []) {
    for (const element of controls(root)) {
      if (hover_revealed.length >= LIMITS.hover) break;
      const revealed =
        (closedMenus && inClosedMenu(element, collapsed)) ||
        selectors.some((selector) => {
          try {
            return selector !== "" && element.matches(selector);
          } catch {
            return false;
          }
        });
      const name = revealed ? clean(names.name(element)) : "";
      if (name !== "" && !hover_revealed.includes(name)) hover_revealed.push(name);
    }
  }
  return { lists, toggles, texts, hover_revealed };
}
