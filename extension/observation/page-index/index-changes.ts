import type { PageChange } from "../snapshot/memo-changes";
import { ALL_KINDS, KINDS } from "./index-kinds";

/**
 * The page index's change tracking (page-index.ts): a change count that anything a snapshot reads
 * bumps, per kind the count at which its list (or a name in it) last changed, the nodes changes
 * happened at (for `ChangeLog.since`), and the MutationObserver's records not yet applied to the
 * lists (taken lazily: a burst of page changes between two reads costs one pass).
 */

/** Changes remembered for `changes.since` (a read older than these re-reads the page). */
const MAX_LOGGED_CHANGES = 512;

/** Above this many records waiting, they are taken at once instead of at the next read (memory stays bounded on a busy page nobody acts on). */
export const MAX_PENDING_RECORDS = 2000;

export interface ChangeTracker {
  /** Bumped by every change a snapshot could see: DOM changes, roots coming and going, `touch`. */
  count: number;
  /** Per kind: the change count at which its list, or the name of one of its elements, last changed (`changes.kindChangedAt`). */
  kindChangedAt: number[];
  /** Page records taken from the observer, not yet applied to the lists. */
  pending: MutationRecord[];
  /**
   * The nodes changes happened at, each with the change count it brought (a record's target; a
   * text's parent), for `changes.since`; before `logFloor` or `everythingAt` the log cannot tell.
   */
  logNodes: PageChange[];
  logCounts: number[];
  logFloor: number;
  everythingAt: number;
}

export function createChangeTracker(): ChangeTracker {
  return { count: 0, kindChangedAt: KINDS.map(() => 0), pending: [], logNodes: [], logCounts: [], logFloor: 0, everythingAt: 0 };
}

/** The kinds in the bit set changed now. */
export function markKinds(changes: ChangeTracker, kinds: number): void {
  for (let kind = 0; kind < KINDS.length; kind += 1) if (kinds & (1 << kind)) changes.kindChangedAt[kind] = changes.count;
}

/** Anything may have changed: a reader from before now reads afresh. */
export function changeEverything(changes: ChangeTracker): void {
  changes.count += 1;
  changes.everythingAt = changes.count;
  markKinds(changes, ALL_KINDS);
  changes.logNodes = [];
  changes.logCounts = [];
}

/** Takes the page's records (not those of our own nodes) as pending, and logs where they happened. */
export function takeRecords(changes: ChangeTracker, records: readonly MutationRecord[], isOwnNode: (node: Node) => boolean): void {
  for (const record of records) {
    if (!isPageRecord(record, isOwnNode)) continue;
    changes.count += 1;
    changes.pending.push(record);
    const { target } = record;
    if (record.type === "characterData") {
      if (target.parentNode !== null) logChange(changes, target.parentNode, "characterData");
      continue;
    }
    logChange(changes, target, record.type);
    // An added element may have been moved here: what was read of it where it was no longer holds.
    if (record.type === "childList") for (const node of record.addedNodes) if (node.nodeType === Node.ELEMENT_NODE) logChange(changes, node, "added");
  }
}

/** False for changes to our own nodes (the indicator), which no snapshot reads. */
function isPageRecord(record: MutationRecord, isOwnNode: (node: Node) => boolean): boolean {
  if (isOwnNode(record.target)) return false;
  if (record.type !== "childList") return true;
  for (const node of record.addedNodes) if (!isOwnNode(node)) return true;
  for (const node of record.removedNodes) if (!isOwnNode(node)) return true;
  return false;
}

/** Logs a change at `node`, with the change count now. */
export function logChange(changes: ChangeTracker, node: Node, kind: PageChange["kind"]): void {
  if (changes.logNodes.length >= MAX_LOGGED_CHANGES) {
    // A page changing faster than it is read: older changes are forgotten, a reader from before them reads afresh.
    changes.logFloor = changes.logCounts[MAX_LOGGED_CHANGES / 2 - 1]!;
    changes.logNodes = changes.logNodes.slice(MAX_LOGGED_CHANGES / 2);
    changes.logCounts = changes.logCounts.slice(MAX_LOGGED_CHANGES / 2);
  }
  changes.logNodes.push({ node, kind });
  changes.logCounts.push(changes.count);
}

/** The changes after `version`, or undefined when the log cannot tell (anything may have changed since). */
export function changesSince(changes: ChangeTracker, version: number): readonly PageChange[] | undefined {
  if (version < changes.everythingAt || version < changes.logFloor) return undefined;
  let start = changes.logCounts.length;
  while (start > 0 && changes.logCounts[start - 1]! > version) start -= 1;
  return changes.logNodes.slice(start);
}
