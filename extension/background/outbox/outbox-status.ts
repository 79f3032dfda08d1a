import type { OutboxStatus } from "../../../shared/observation/panel-messages";

/** How many events the outbox keeps at most; beyond it new events are refused and counted. */
export const OUTBOX_EVENT_CAPACITY = 20_000;
/** Snapshots are up to 32 KB each; 1,000 of them stay well inside an extension's IndexedDB quota. */
export const OUTBOX_SNAPSHOT_CAPACITY = 1_000;
/** From this share of the capacity on, the side panel warns that the outbox is nearly full. */
export const NEAR_FULL_RATIO = 0.8;

export interface OutboxCounts {
  events: number;
  snapshots: number;
  refusedEvents: number;
  refusedSnapshots: number;
}

export function outboxStatusOf(counts: OutboxCounts, capacity = OUTBOX_EVENT_CAPACITY, snapshotCapacity = OUTBOX_SNAPSHOT_CAPACITY): OutboxStatus {
  return {
    queued: counts.events,
    capacity,
    near_full: counts.events >= capacity * NEAR_FULL_RATIO || counts.snapshots >= snapshotCapacity * NEAR_FULL_RATIO,
    snapshots_queued: counts.snapshots,
    refused: counts.refusedEvents,
    refused_snapshots: counts.refusedSnapshots,
  };
}
