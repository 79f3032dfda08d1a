import type { NameCache } from "../names/name-cache";
import type { ErrorGuard } from "../common/error-guard";
import { firstFollowing } from "../snapshot/snapshot-source";
import { markKinds, type ChangeTracker } from "./index-changes";
import { KINDS, type Root } from "./index-kinds";

/**
 * What the page index (page-index.ts) holds: per observed root, the elements of each kind in tree
 * order; which lists each element is in; and what the index shares with its observer (hooks).
 */

export interface PageIndexHooks {
  /** A same-origin frame arrived (or may have loaded another document). */
  onFrame(frame: Element): void;
  /** An open shadow root arrived with added nodes, or its custom element was upgraded. */
  onShadowRoot(root: ShadowRoot): void;
  /** Our own nodes (the indicator): their changes are not the page's. */
  isOwnNode(node: Node): boolean;
  /** Wraps the MutationObserver's callback: an error of ours never reaches the page. */
  guard: Pick<ErrorGuard, "wrap">;
}

export interface RootEntry {
  root: Root;
  lists: Element[][];
  /** Lists that hold unlisted elements (something was removed or changed kind): swept before use. */
  dirty: number;
  /**
   * Lists that may hold an element that left the page unseen: one taken out of a subtree after
   * that subtree was removed (no record names it). Swept of disconnected elements before anything
   * is inserted in tree order; readers skip them (an invisible element is never listed anyway).
   */
  unswept: number;
}

/** The lists of every observed root, and where each listed element is. */
export interface IndexLists {
  entries: Map<Root, RootEntry>;
  /** Kinds of every listed element, and the root it is listed in. */
  membership: Map<Element, { kinds: number; entry: RootEntry }>;
  changes: ChangeTracker;
}

/** The whole index: its lists and changes, the names it keeps, and what it is waiting for. */
export interface IndexState {
  hooks: PageIndexHooks;
  lists: IndexLists;
  changes: ChangeTracker;
  names: NameCache;
  observer: MutationObserver;
  /** Custom elements not defined yet: their upgrade may attach a shadow root without any DOM change. */
  pendingUpgrades: Set<Element>;
  /** Per tree, the ids `aria-labelledby`s point at, as the DOM is now (read once per pass over the records: the DOM does not change during one). */
  labelledByIds: Map<Node, Set<string>>;
  /** Live roots in order, until a root comes or goes. */
  orderedRoots: Root[] | undefined;
}

export function newRootEntry(root: Root): RootEntry {
  return { root, lists: KINDS.map(() => []), dirty: 0, unswept: 0 };
}

export function addToLists(lists: IndexLists, element: Element, kinds: number, entry: RootEntry): void {
  lists.membership.set(element, { kinds, entry });
  markKinds(lists.changes, kinds);
  for (let kind = 0; kind < KINDS.length; kind += 1) {
    if ((kinds & (1 << kind)) === 0) continue;
    if (entry.unswept & (1 << kind)) sweepDetached(lists, entry, kind);
    const list = entry.lists[kind]!;
    // Appending in tree order is the common case (a scan, a list that grows at its end).
    const last = list[list.length - 1];
    if (last === undefined || last.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) list.push(element);
    else list.splice(firstFollowing(list, element), 0, element);
  }
}

export function unlist(lists: IndexLists, element: Element): void {
  const member = lists.membership.get(element);
  if (member === undefined) return;
  lists.membership.delete(element);
  member.entry.dirty |= member.kinds;
  markKinds(lists.changes, member.kinds);
}

/** Drops disconnected elements from a list (their tree order is undefined). */
function sweepDetached(lists: IndexLists, entry: RootEntry, kind: number): void {
  lists.changes.kindChangedAt[kind] = lists.changes.count;
  entry.lists[kind] = entry.lists[kind]!.filter((element) => {
    if (element.isConnected) return true;
    if (lists.membership.get(element)?.entry === entry) lists.membership.delete(element);
    return false;
  });
  entry.unswept &= ~(1 << kind);
}

/** Drops unlisted elements from the lists they were unlisted from. */
export function sweep(lists: IndexLists, entry: RootEntry): void {
  if (entry.dirty === 0) return;
  for (let kind = 0; kind < KINDS.length; kind += 1) {
    if ((entry.dirty & (1 << kind)) === 0) continue;
    entry.lists[kind] = entry.lists[kind]!.filter((element) => {
      const member = lists.membership.get(element);
      return member !== undefined && member.entry === entry && (member.kinds & (1 << kind)) !== 0;
    });
  }
  entry.dirty = 0;
}
