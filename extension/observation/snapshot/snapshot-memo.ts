import { childView, isVisible, type ChildView, type ChildViewState } from "./child-views";
import { readChanges, viewportSizes, type ChangeLog } from "./memo-changes";
import { createStyleSheets, type StyleSheets } from "./style-reach";

/**
 * What a snapshot remembers between two reads of the page (issue #17): the answers that cost the
 * most on a large page — which children of a list are visible, which hold a checked control —
 * kept per element and re-read only where a change since the last read could have altered them.
 *
 * Where the page changed comes from the page index's `ChangeLog` (memo-changes.ts: the
 * MutationObserver's records: an attribute's element, a child list's parent, a text's parent; and
 * "everything" for a change outside the DOM: a resize, a toggled popover, a root coming or going, a
 * state CSS follows). How far a change reaches the boxes of other elements depends on the page's
 * style sheets (style-reach.ts); where some rule follows what no DOM record announces, no
 * visibility is remembered: every read asks again. A sheet added, removed or changed (its rule
 * count), and a viewport (or frame) whose size or zoom changed, also mean "everything" for that
 * read. Facts read from the DOM alone (an item's controls, a subtree without counters, where a list
 * sits) are kept whatever the sheets say.
 */

type Root = Document | ShadowRoot;

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

interface MemoState extends ChildViewState {
  styleSheets: StyleSheets;
  version: number | undefined;
  previousVersion: number | undefined;
  log: ChangeLog | undefined;
  kept: Map<string, { generation: number; value: unknown }>;
  lastViewports: number[];
  visibility: WeakMap<Element, { generation: number; visible: boolean }>;
  upwardFacts: WeakMap<Element, FactsEntry>;
  belowFacts: WeakMap<Element, FactsEntry>;
}

export function createSnapshotMemo(styleSheets: StyleSheets = createStyleSheets()): SnapshotMemo {
  const state: MemoState = {
    styleSheets,
    generation: 0,
    version: undefined,
    previousVersion: undefined,
    log: undefined,
    kept: new Map(),
    lastViewports: [],
    // Before the first read nothing is trusted.
    changes: readChanges(undefined, "subtree", true),
    parents: new WeakMap(),
    visibility: new WeakMap(),
    upwardFacts: new WeakMap(),
    belowFacts: new WeakMap(),
  };
  return {
    begin: (roots, changes) => begin(state, roots, changes),
    isVisible: (element) => rememberedVisibility(state, element),
    children: (parent) => childView(state, parent),
    upward: (element, key, compute) => upward(state, element, key, compute),
    below(element, key) {
      const known = state.belowFacts.get(element);
      if (!confirmed(state, known, () => state.changes.contentChanged.has(element))) return undefined;
      known!.generation = state.generation;
      return known!.facts.get(key) as never;
    },
    last(key) {
      const known = state.kept.get(key);
      return known !== undefined && known.generation === state.generation - 1 && !state.changes.contentAll ? (known.value as never) : undefined;
    },
    keep(key, value) {
      state.kept.set(key, { generation: state.generation, value });
    },
    kindUnchanged(kind) {
      return (
        !state.changes.contentAll && state.log !== undefined && state.previousVersion !== undefined && state.log.kindChangedAt(kind) <= state.previousVersion
      );
    },
    rememberBelow(element, key, value) {
      let known = state.belowFacts.get(element);
      if (known === undefined || known.generation !== state.generation) {
        known = { generation: state.generation, facts: new Map() };
        state.belowFacts.set(element, known);
      }
      known.facts.set(key, value);
    },
  };
}

/** Starts a read of `roots`: what changed since the last read (an unknown one: everything). */
function begin(state: MemoState, roots: readonly Root[], changes: ChangeLog | undefined): void {
  state.generation += 1;
  const now = changes?.version;
  const changed = changes === undefined || state.version === undefined ? undefined : changes.since(state.version);
  state.previousVersion = state.version;
  state.version = now;
  state.log = changes;
  const sheets = state.styleSheets.read(roots);
  // Media queries on the viewport's size flip with it: a resize (of a frame too) trusts no visibility remembered.
  const viewports = viewportSizes(roots);
  const resized = viewports.length !== state.lastViewports.length || viewports.some((value, position) => value !== state.lastViewports[position]);
  state.lastViewports = viewports;
  state.changes = readChanges(changed, sheets.reach, sheets.changed || sheets.reach === "everything" || resized);
  if (changed === undefined) {
    // Nothing older is trusted: let the old answers go.
    state.parents = new WeakMap();
    state.visibility = new WeakMap();
    state.upwardFacts = new WeakMap();
    state.belowFacts = new WeakMap();
    state.kept = new Map();
  }
}

const confirmed = (state: MemoState, known: FactsEntry | { generation: number } | undefined, changedAround: () => boolean): boolean =>
  known !== undefined && (known.generation === state.generation || (known.generation === state.generation - 1 && !changedAround()));

function rememberedVisibility(state: MemoState, element: Element): boolean {
  const known = state.visibility.get(element);
  if (!state.changes.styleAll && confirmed(state, known, () => state.changes.styleChangedAround(element))) {
    known!.generation = state.generation;
    return known!.visible;
  }
  const visible = isVisible(element);
  state.visibility.set(element, { generation: state.generation, visible });
  return visible;
}

function upward<T>(state: MemoState, element: Element, key: string, compute: (element: Element) => T): T {
  let known = state.upwardFacts.get(element);
  if (!confirmed(state, known, () => state.changes.placeChangedAround(element))) {
    known = { generation: state.generation, facts: new Map() };
    state.upwardFacts.set(element, known);
  }
  known!.generation = state.generation;
  if (known!.facts.has(key)) return known!.facts.get(key) as T;
  const value = compute(element);
  known!.facts.set(key, value);
  return value;
}
