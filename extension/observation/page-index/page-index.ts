import { createNameCache, type NameCache } from "../names/name-cache";
import type { ChangeLog } from "../snapshot/memo-changes";
import { isShadowRoot, rootText } from "../snapshot/shadow-roots";
import { createSnapshotMemo, type SnapshotMemo } from "../snapshot/snapshot-memo";
import type { SnapshotSource } from "../snapshot/snapshot-source";
import { MAX_PENDING_RECORDS, changeEverything, changesSince, createChangeTracker, takeRecords } from "./index-changes";
import { KINDS, type IndexKind, type Root } from "./index-kinds";
import { sweep, type IndexLists, type IndexState, type PageIndexHooks } from "./index-structure";
import { addRoot, liveRoots, removeRoot, sync } from "./index-updates";
import { indexNames } from "./name-invalidation";

/**
 * What the observers know about the observed roots (documents, same-origin frames, open shadow
 * roots), kept up to date by one MutationObserver instead of re-reading the page after every
 * action (BENCHMARKS.md, "Content script versus rrweb"):
 * - a change count: anything a snapshot reads that changed bumps it, so an unchanged page is not
 *   read again;
 * - per root, the elements a snapshot lists and selectors compare a target with, by kind, in tree
 *   order (the snapshot's own selectors, `SNAPSHOT_KINDS`, plus explicit roles and image-map areas);
 * - names and texts per element (names/name-cache.ts `NameCache`), forgotten when a change could alter them;
 * - shadow roots and frames that arrive with added nodes, handed to the observer.
 * Records are taken lazily (`sync`), so a burst of page changes between two reads costs one pass.
 *
 * Its parts: the kinds it lists (index-kinds.ts), its lists (index-structure.ts), its change
 * tracking (index-changes.ts), how DOM records and roots update it (index-updates.ts), and which
 * remembered names a change forgets (name-invalidation.ts).
 */

export interface PageIndex extends SnapshotSource {
  names: NameCache;
  /**
   * The elements of one kind in one root, in tree order (empty for a root not indexed), as of the
   * last `sync` (`roots()` syncs). Rarely one may have left the page unseen (see `unswept`): a reader
   * that does not check visibility checks `isConnected`.
   */
  elements(root: Root, kind: IndexKind): readonly Element[];
  /** Starts observing a root: its elements are listed now, its changes from now on. */
  addRoot(root: Root): void;
  removeRoot(root: Root): void;
  hasRoot(root: Root): boolean;
  /** Takes the pending DOM changes into account (every read does it first). */
  sync(): void;
  /** False when nothing observed can be editable (no `contenteditable` anywhere, no design mode): `isContentEditable`, which updates style, need not be asked. */
  mayHoldEditable(): boolean;
  /** Bumped by every change a snapshot could see: DOM changes, roots coming and going, `touch`. */
  readonly changeCount: number;
  /** Something a snapshot reads changed outside the DOM (the viewport, a toggled popover, a checked box that CSS may follow). */
  touch(): void;
  /**
   * A root's whole text (its text nodes in tree order, what a text selector's check searches),
   * read again only after a change: read ahead in idle time, the next click's check finds it.
   */
  wholeText(root: Root): string;
  /** Where the page changed, so a snapshot re-reads only what a change could alter (snapshot-memo.ts). */
  changes: ChangeLog;
  /** What a snapshot read from this index remembers for the next one. */
  memo: SnapshotMemo;
  disconnect(): void;
}

export function createPageIndex(hooks: PageIndexHooks): PageIndex {
  const changes = createChangeTracker();
  const texts = new WeakMap<Root, { count: number; text: string }>();
  const lists: IndexLists = { entries: new Map(), membership: new Map(), changes };
  const state: IndexState = {
    hooks,
    lists,
    changes,
    names: indexNames(createNameCache(), lists),
    observer: new MutationObserver(
      hooks.guard.wrap((records: MutationRecord[]) => {
        takeRecords(changes, records, hooks.isOwnNode);
        if (changes.pending.length > MAX_PENDING_RECORDS) sync(state);
      }),
    ),
    pendingUpgrades: new Set(),
    labelledByIds: new Map(),
    orderedRoots: undefined,
  };
  return {
    names: state.names,
    addRoot: (root) => addRoot(state, root),
    removeRoot: (root) => removeRoot(state, root),
    hasRoot: (root) => lists.entries.has(root),
    sync: () => sync(state),
    roots() {
      sync(state);
      return liveRoots(state);
    },
    elements(root, kind) {
      const entry = lists.entries.get(root);
      if (entry === undefined) return [];
      sweep(lists, entry);
      return entry.lists[KINDS.indexOf(kind)]!;
    },
    mayHoldEditable() {
      for (const entry of lists.entries.values()) {
        if (entry.lists[KINDS.indexOf("editables")]!.length > 0) return true;
        if (!isShadowRoot(entry.root) && entry.root.designMode === "on") return true;
      }
      return false;
    },
    get changeCount() {
      sync(state);
      return changes.count;
    },
    touch() {
      changeEverything(changes);
    },
    wholeText(root) {
      sync(state);
      const known = texts.get(root);
      if (known !== undefined && known.count === changes.count) return known.text;
      const text = rootText(root);
      texts.set(root, { count: changes.count, text });
      return text;
    },
    memo: createSnapshotMemo(),
    changes: changeLog(state),
    disconnect() {
      state.observer.disconnect();
      changes.pending = [];
      lists.entries.clear();
      lists.membership.clear();
      state.pendingUpgrades.clear();
    },
  };
}

/** Where the page changed, as of the pending records (every question syncs first). */
function changeLog(state: IndexState): ChangeLog {
  const { changes } = state;
  return {
    get version() {
      sync(state);
      return changes.count;
    },
    since(version) {
      sync(state);
      return changesSince(changes, version);
    },
    kindChangedAt(kind) {
      sync(state);
      return changes.kindChangedAt[KINDS.indexOf(kind as IndexKind)] ?? changes.count;
    },
  };
}
