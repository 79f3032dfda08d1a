import type { ReadChanges } from "./memo-changes";

/**
 * The element children of a parent as the snapshot memo (snapshot-memo.ts) keeps them between
 * reads: each child's visibility and facts, brought up to date from what changed since.
 */

/** One child of a parent, with what was read of it. */
interface ChildEntry {
  element: Element;
  /** Whether it has a box (read when first asked). */
  visible: boolean | undefined;
  /** Facts read from its subtree (read when first asked, forgotten when something in it changed). */
  facts: Map<string, unknown> | undefined;
}

export interface ParentEntry {
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
  /** What a reader keeps about the children as a whole, while the child list stays (see `KeptState`). */
  state?: Map<string, KeptState>;
}

/**
 * What a reader kept about a parent's children, and the positions whose facts or visibility changed
 * in the reads since ("all": any may have). The entry is brought up to date in every read while it
 * lives (one a read skips is built afresh), so a reader that skipped reads still learns their changes.
 */
interface KeptState {
  value: unknown;
  missed: Set<number> | "all";
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
  /** A fact of the parent's text children (`compute` reads nothing else), remembered while none of them changed. */
  ownTexts<T>(compute: (parent: Element) => T): T;
  /**
   * What a reader kept under `key` about these children as a whole (undefined if the child list
   * changed since), with the positions whose facts or visibility changed since it was kept, in
   * this read and any the reader skipped (undefined: any may have).
   */
  state<T>(key: string): { value: T; changed: readonly number[] | undefined } | undefined;
  setState(key: string, value: unknown): void;
}

/** What child views are kept in: the read now, each parent's entry, and what changed since the last read. */
export interface ChildViewState {
  generation: number;
  parents: WeakMap<Element, ParentEntry>;
  changes: ReadChanges;
}

/** Whether an element has a box. */
export function isVisible(element: Element): boolean {
  return typeof element.checkVisibility === "function" ? element.checkVisibility() : true;
}

const fresh = (element: Element): ChildEntry => ({ element, visible: undefined, facts: undefined });

function rebuild(state: ChildViewState, parent: Element): ParentEntry {
  const children = Array.from(parent.children, fresh);
  const entry: ParentEntry = {
    generation: state.generation,
    built: state.generation,
    children,
    elements: children.map((child) => child.element),
    changed: undefined,
  };
  state.parents.set(parent, entry);
  return entry;
}

/** The children of `parent` among `nodes` (nodes whose parent is `parent`). */
function childrenAmong(parent: Element, nodes: ReadonlySet<Node>): Set<Node> {
  const found = new Set<Node>();
  for (const node of nodes) if (node.parentNode === parent) found.add(node);
  return found;
}

/** The positions of the given children of an entry (its elements' positions, indexed once). */
function positionsOf(entry: ParentEntry, children: Iterable<Node>): number[] {
  entry.positions ??= new Map(entry.elements.map((element, position) => [element, position]));
  const found: number[] = [];
  for (const child of children) {
    const position = entry.positions.get(child as Element);
    if (position !== undefined) found.push(position);
  }
  return found;
}

function bringUpToDate(state: ChildViewState, parent: Element): ParentEntry {
  const { generation, changes } = state;
  const { contentAll, styleAll, contentChanged, childListChanged, textChanged, styleChanged, styleChangedAround } = changes;
  const entry = state.parents.get(parent);
  if (entry !== undefined && entry.generation === generation) return entry;
  if (entry === undefined || entry.generation !== generation - 1 || contentAll) return rebuild(state, parent);
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
  noteMissed(entry);
  return entry;
}

/** Adds this read's changed positions to what each kept state has missed since it was kept. */
function noteMissed(entry: ParentEntry): void {
  if (entry.state === undefined) return;
  for (const kept of entry.state.values()) {
    if (kept.missed === "all") continue;
    if (entry.changed === undefined) kept.missed = "all";
    else for (const position of entry.changed) kept.missed.add(position);
  }
}

/** The element children of `parent`, each with its visibility and facts kept up to date. */
export function childView(state: ChildViewState, parent: Element): ChildView {
  const entry = bringUpToDate(state, parent);
  const { children } = entry;
  return {
    elements: entry.elements,
    fresh: entry.built === state.generation,
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
    ownTexts(compute) {
      if (entry.ownTexts === undefined) entry.ownTexts = { value: compute(parent) };
      return (entry.ownTexts as { value: never }).value;
    },
    state(key) {
      const kept = entry.state?.get(key);
      if (kept === undefined) return undefined;
      return { value: kept.value as never, changed: kept.missed === "all" ? undefined : [...kept.missed] };
    },
    setState(key, value) {
      entry.state ??= new Map();
      entry.state.set(key, { value, missed: new Set() });
    },
  };
}
