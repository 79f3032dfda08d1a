import { UNCACHED_NAMES, type Names } from "../names/name-cache";
import { openShadowRootsIn } from "./shadow-roots";
import type { ChangeLog } from "./memo-changes";
import type { SnapshotMemo } from "./snapshot-memo";

/**
 * What a snapshot reads (snapshot-observer.ts): the kinds of element it lists, by the selectors that
 * find them, and the source that gives them with their names — while capturing, the page index
 * (page-index/page-index.ts), which keeps them up to date from DOM changes; `querySource` reads the
 * page afresh (the reference the index is tested against).
 */

export type SnapshotRoot = Document | ShadowRoot;

/** The kinds of element a snapshot lists, by the selectors that find them. */
export const HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading]";
export const LANDMARKS =
  "main, nav, aside, header, footer, search, [role=main], [role=navigation], [role=complementary], [role=banner], [role=contentinfo], [role=region], [role=search], section[aria-label], section[aria-labelledby]";
export const DIALOGS = "dialog, [role=dialog], [role=alertdialog]";
export const BUTTONS = "button, summary, input[type=button], input[type=submit], input[type=reset], input[type=image], [role=button]";
export const FIELDS = "input, select, textarea, [contenteditable], [role=textbox], [role=searchbox], [role=combobox][aria-autocomplete]";
export const LINKS = "a[href], [role=link]";
export const STATUS = "[role=status], [role=alert], output, [aria-live=polite], [aria-live=assertive]";

// Issue #14's lists and controls with a state (snapshot-extras.ts).
export const LIST_CONTAINERS = "ul, ol, table, [role=list], [role=listbox], [role=grid], [role=table], [role=tree]";
export const TOGGLES =
  "input[type=checkbox], input[type=radio], [role=checkbox], [role=radio], [role=switch], [role=menuitemcheckbox], [aria-pressed], [aria-expanded], [role=tab][aria-selected], [aria-sort]";

export const SNAPSHOT_KINDS = {
  headings: HEADINGS,
  landmarks: LANDMARKS,
  dialogs: DIALOGS,
  forms: "form",
  fields: FIELDS,
  buttons: BUTTONS,
  links: LINKS,
  status: STATUS,
  lists: LIST_CONTAINERS,
  toggles: TOGGLES,
} as const;
export type SnapshotKind = keyof typeof SNAPSHOT_KINDS;

/** The elements a snapshot reads and their names. */
export interface SnapshotSource {
  /** Each observed document, followed by its open shadow roots in tree order (asked first: the lists are as of this call). */
  roots(): readonly SnapshotRoot[];
  /** The elements of one kind in one root, in tree order (one that left the page may linger: readers skip what is not connected). */
  elements(root: SnapshotRoot, kind: SnapshotKind): readonly Element[];
  names: Names;
  /** Where the page changed (the page index's log): with `memo`, a read re-reads only what a change could alter. */
  changes?: ChangeLog;
  /** What the last read remembered (snapshot-memo.ts); none: everything is read afresh. */
  memo?: SnapshotMemo;
}

/** A source that reads the given documents and all their open shadow roots afresh, with uncached names. */
export function querySource(documents: readonly Document[], names: Names = UNCACHED_NAMES): SnapshotSource {
  return {
    roots: () => documents.flatMap((document) => [document, ...openShadowRootsIn(document)]),
    elements: (root, kind) => [...root.querySelectorAll(SNAPSHOT_KINDS[kind])],
    names,
  };
}

/** Index of the first element of a tree-ordered list that comes after `node` (its descendants do). */
export function firstFollowing(list: readonly Node[], node: Node): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (node.compareDocumentPosition(list[middle]!) & Node.DOCUMENT_POSITION_FOLLOWING) high = middle;
    else low = middle + 1;
  }
  return low;
}
