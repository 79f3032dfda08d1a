import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { SnapshotUpload } from "../../../shared/observation/capture-protocol";
import { OUTBOX_EVENT_CAPACITY, OUTBOX_SNAPSHOT_CAPACITY, type OutboxCounts } from "./outbox-status";

interface QueuedEvent {
  seq?: number;
  event_id: string;
  event: ObservedActionEventWithDetail;
  queued_at: number;
}

interface QueuedSnapshot {
  seq?: number;
  sha256: string;
  upload: SnapshotUpload;
  queued_at: number;
}

interface OutboxSchema extends DBSchema {
  events: { key: number; value: QueuedEvent; indexes: { by_event_id: string } };
  snapshots: { key: number; value: QueuedSnapshot; indexes: { by_sha256: string } };
  /** Counters that must survive everything: how many events the full outbox had to refuse. */
  counters: { key: string; value: number };
}

export interface AddResult {
  queued: number;
  duplicates: number;
  refused: number;
  snapshotsQueued: number;
  snapshotsRefused: number;
}

export interface BatchSelection {
  events: Array<{ seq: number; event_id: string; event: ObservedActionEventWithDetail }>;
  snapshots: Array<{ seq: number; sha256: string; upload: SnapshotUpload }>;
}

export interface BatchLimits {
  maxEvents: number;
  maxSnapshots: number;
  /** A budget for the JSON size of one batch frame. */
  maxBytes: number;
  skipEvent(seq: number): boolean;
  skipSnapshot(seq: number): boolean;
}

export interface OutboxDb {
  /** Puts events and snapshots in, in arrival order, up to the bound; what does not fit is refused and counted. */
  add(events: readonly ObservedActionEventWithDetail[], snapshots: readonly SnapshotUpload[]): Promise<AddResult>;
  /** The oldest rows not already on their way, within the limits. */
  nextBatch(limits: BatchLimits): Promise<BatchSelection>;
  remove(eventSeqs: readonly number[], snapshotSeqs: readonly number[]): Promise<void>;
  counts(): Promise<OutboxCounts>;
  close(): void;
}

export interface OutboxDbOptions {
  name?: string;
  eventCapacity?: number;
  snapshotCapacity?: number;
  now: () => number;
}

const REFUSED_EVENTS = "refused_events";
const REFUSED_SNAPSHOTS = "refused_snapshots";

type OutboxDatabase = IDBPDatabase<OutboxSchema>;

/**
 * The extension's outbox (issue #4): every event a content script hands over is in IndexedDB
 * before the page is told "queued", so a service-worker stop, an agent restart or a browser
 * restart loses nothing; rows leave only when the agent's ack names them (outbox-ledger).
 */
export async function openOutboxDb(options: OutboxDbOptions): Promise<OutboxDb> {
  const capacity = { events: options.eventCapacity ?? OUTBOX_EVENT_CAPACITY, snapshots: options.snapshotCapacity ?? OUTBOX_SNAPSHOT_CAPACITY };
  const db: OutboxDatabase = await openDB<OutboxSchema>(options.name ?? "elnor-capture-outbox", 1, {
    upgrade(database) {
      database.createObjectStore("events", { keyPath: "seq", autoIncrement: true }).createIndex("by_event_id", "event_id", { unique: true });
      database.createObjectStore("snapshots", { keyPath: "seq", autoIncrement: true }).createIndex("by_sha256", "sha256", { unique: true });
      database.createObjectStore("counters");
    },
  });

  return {
    add: (events, snapshots) => addRows(db, capacity, options.now(), events, snapshots),
    nextBatch: (limits) => selectBatch(db, limits),

    async remove(eventSeqs, snapshotSeqs) {
      if (eventSeqs.length === 0 && snapshotSeqs.length === 0) return;
      const tx = db.transaction(["events", "snapshots"], "readwrite");
      await Promise.all([
        ...eventSeqs.map((seq) => tx.objectStore("events").delete(seq)),
        ...snapshotSeqs.map((seq) => tx.objectStore("snapshots").delete(seq)),
        tx.done,
      ]);
    },

    async counts() {
      const tx = db.transaction(["events", "snapshots", "counters"], "readonly");
      const [events, snapshots, refusedEvents, refusedSnapshots] = await Promise.all([
        tx.objectStore("events").count(),
        tx.objectStore("snapshots").count(),
        tx.objectStore("counters").get(REFUSED_EVENTS),
        tx.objectStore("counters").get(REFUSED_SNAPSHOTS),
      ]);
      await tx.done;
      return { events, snapshots, refusedEvents: refusedEvents ?? 0, refusedSnapshots: refusedSnapshots ?? 0 };
    },

    close: () => db.close(),
  };
}

/** One transaction: snapshots, then events, each up to its bound; what does not fit is refused and counted. */
async function addRows(
  db: OutboxDatabase,
  capacity: { events: number; snapshots: number },
  now: number,
  events: readonly ObservedActionEventWithDetail[],
  snapshots: readonly SnapshotUpload[],
): Promise<AddResult> {
  const tx = db.transaction(["events", "snapshots", "counters"], "readwrite");
  const result: AddResult = { queued: 0, duplicates: 0, refused: 0, snapshotsQueued: 0, snapshotsRefused: 0 };
  // Snapshots first: events of the same message may reference them.
  let snapshotCount = await tx.objectStore("snapshots").count();
  for (const upload of snapshots) {
    if ((await tx.objectStore("snapshots").index("by_sha256").getKey(upload.sha256)) !== undefined) continue;
    if (snapshotCount >= capacity.snapshots) {
      result.snapshotsRefused += 1;
      continue;
    }
    await tx.objectStore("snapshots").add({ sha256: upload.sha256, upload, queued_at: now });
    snapshotCount += 1;
    result.snapshotsQueued += 1;
  }
  let eventCount = await tx.objectStore("events").count();
  for (const event of events) {
    if ((await tx.objectStore("events").index("by_event_id").getKey(event.event_id)) !== undefined) {
      result.duplicates += 1;
      continue;
    }
    if (eventCount >= capacity.events) {
      result.refused += 1;
      continue;
    }
    await tx.objectStore("events").add({ event_id: event.event_id, event, queued_at: now });
    eventCount += 1;
    result.queued += 1;
  }
  if (result.refused > 0) {
    await tx.objectStore("counters").put(((await tx.objectStore("counters").get(REFUSED_EVENTS)) ?? 0) + result.refused, REFUSED_EVENTS);
  }
  if (result.snapshotsRefused > 0) {
    const before = (await tx.objectStore("counters").get(REFUSED_SNAPSHOTS)) ?? 0;
    await tx.objectStore("counters").put(before + result.snapshotsRefused, REFUSED_SNAPSHOTS);
  }
  await tx.done;
  return result;
}

/** The oldest rows not already on their way, within the limits (snapshots get half the byte budget). */
async function selectBatch(db: OutboxDatabase, limits: BatchLimits): Promise<BatchSelection> {
  const tx = db.transaction(["events", "snapshots"], "readonly");
  const selection: BatchSelection = { events: [], snapshots: [] };
  let bytes = 0;
  for (let cursor = await tx.objectStore("snapshots").openCursor(); cursor !== null; cursor = await cursor.continue()) {
    if (selection.snapshots.length >= limits.maxSnapshots) break;
    const row = cursor.value;
    if (row.seq === undefined || limits.skipSnapshot(row.seq)) continue;
    const size = JSON.stringify(row.upload).length;
    if (selection.snapshots.length > 0 && bytes + size > limits.maxBytes / 2) break;
    bytes += size;
    selection.snapshots.push({ seq: row.seq, sha256: row.sha256, upload: row.upload });
  }
  for (let cursor = await tx.objectStore("events").openCursor(); cursor !== null; cursor = await cursor.continue()) {
    if (selection.events.length >= limits.maxEvents) break;
    const row = cursor.value;
    if (row.seq === undefined || limits.skipEvent(row.seq)) continue;
    const size = JSON.stringify(row.event).length;
    if (selection.events.length > 0 && bytes + size > limits.maxBytes) break;
    bytes += size;
    selection.events.push({ seq: row.seq, event_id: row.event_id, event: row.event });
  }
  await tx.done;
  return selection;
}
