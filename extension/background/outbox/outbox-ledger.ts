import type { ObservationBatchAck } from "../../../shared/observation/capture-protocol";

/** An outbox row as the ledger needs it: its IndexedDB key and what identifies it to the agent. */
export interface QueuedEventRef {
  seq: number;
  event_id: string;
}
export interface QueuedSnapshotRef {
  seq: number;
  sha256: string;
}

export interface SentBatch {
  batch_id: string;
  events: QueuedEventRef[];
  snapshots: QueuedSnapshotRef[];
}

/** What to do with the outbox once an ack for one of our batches arrives. */
export interface Settlement {
  /** Outbox rows the agent answered for: each of them final, so they leave the outbox. */
  deleteEventSeqs: number[];
  deleteSnapshotSeqs: number[];
  /** Events of the batch the ack did not mention: kept, and held back for a while before resending. */
  unanswered: string[];
  counts: { accepted: number; duplicates: number; dropped_off_target: number; refused: number; rejected: number; snapshots_rejected: number };
}

export interface OutboxLedgerOptions {
  now: () => number;
  /** How many batches may await their ack at once over the one socket. */
  maxInFlight?: number;
  /** A batch unanswered for this long means the link is broken: reconnect and resend. */
  ackTimeoutMs?: number;
  /** How long an event the agent left out of an ack waits before it is sent again. */
  holdMs?: number;
}

export interface OutboxLedger {
  canSend(): boolean;
  /** Whether this outbox row is already on its way (or held back) and must not go in a new batch. */
  isBusyEvent(seq: number): boolean;
  isBusySnapshot(seq: number): boolean;
  sent(batch: SentBatch): void;
  /** Settles an ack; undefined when the batch is not one we are waiting for (stale or foreign). */
  settle(ack: ObservationBatchAck): Settlement | undefined;
  /** True when some batch has waited longer than the ack timeout. */
  overdue(): boolean;
  /** The socket closed: nothing is in flight any more; everything unacknowledged will be resent. */
  connectionLost(): void;
  inFlight(): number;
}

/**
 * Which outbox rows are on their way to the agent (issue #4 "lossless delivery"). An event
 * leaves the outbox only when the agent's ack names it — accepted, duplicate, dropped off target,
 * refused or rejected are all final — so whatever the socket loses is sent again, and the agent
 * de-duplicates by `event_id`. Pure bookkeeping: the outbox itself is IndexedDB (outbox-db).
 */
export function createOutboxLedger(options: OutboxLedgerOptions): OutboxLedger {
  const maxInFlight = options.maxInFlight ?? 4;
  const ackTimeoutMs = options.ackTimeoutMs ?? 60_000;
  const holdMs = options.holdMs ?? 30_000;
  const batches = new Map<string, SentBatch & { sentAt: number }>();
  const busyEvents = new Set<number>();
  const busySnapshots = new Set<number>();
  /** Events left out of an ack: seq → time they may be sent again. */
  const held = new Map<number, number>();

  const release = () => {
    const now = options.now();
    for (const [seq, until] of held) {
      if (until <= now) held.delete(seq);
    }
  };

  return {
    canSend: () => batches.size < maxInFlight,
    isBusyEvent(seq) {
      release();
      return busyEvents.has(seq) || held.has(seq);
    },
    isBusySnapshot: (seq) => busySnapshots.has(seq),
    sent(batch) {
      batches.set(batch.batch_id, { ...batch, sentAt: options.now() });
      for (const event of batch.events) busyEvents.add(event.seq);
      for (const snapshot of batch.snapshots) busySnapshots.add(snapshot.seq);
    },
    settle(ack) {
      const batch = batches.get(ack.batch_id);
      if (batch === undefined) return undefined;
      batches.delete(ack.batch_id);
      const settlement = settleBatch(batch, ack);
      const final = new Set(settlement.deleteEventSeqs);
      const holdUntil = options.now() + holdMs;
      for (const event of batch.events) {
        busyEvents.delete(event.seq);
        if (!final.has(event.seq)) held.set(event.seq, holdUntil);
      }
      for (const seq of settlement.deleteSnapshotSeqs) busySnapshots.delete(seq);
      return settlement;
    },
    overdue() {
      const now = options.now();
      for (const batch of batches.values()) {
        if (now - batch.sentAt > ackTimeoutMs) return true;
      }
      return false;
    },
    connectionLost() {
      batches.clear();
      busyEvents.clear();
      busySnapshots.clear();
      held.clear();
    },
    inFlight: () => batches.size,
  };
}

/** What an ack means for one of our batches: which rows are final, which events it left out. */
function settleBatch(batch: SentBatch, ack: ObservationBatchAck): Settlement {
  const answered = new Set<string>([...ack.accepted, ...ack.duplicates, ...ack.dropped_off_target, ...ack.refused]);
  for (const rejection of ack.rejected) {
    // A rejected event may lack a readable id; its index in our batch still names it.
    const byIndex = batch.events[rejection.index];
    if (byIndex !== undefined) answered.add(byIndex.event_id);
    if (rejection.event_id !== undefined) answered.add(rejection.event_id);
  }
  const deleteEventSeqs: number[] = [];
  const unanswered: string[] = [];
  for (const event of batch.events) {
    if (answered.has(event.event_id)) deleteEventSeqs.push(event.seq);
    else unanswered.push(event.event_id);
  }
  return {
    deleteEventSeqs,
    // Every snapshot of an answered batch is final: stored, or rejected for a reason resending cannot fix.
    deleteSnapshotSeqs: batch.snapshots.map((snapshot) => snapshot.seq),
    unanswered,
    counts: {
      accepted: ack.accepted.length,
      duplicates: ack.duplicates.length,
      dropped_off_target: ack.dropped_off_target.length,
      refused: ack.refused.length,
      rejected: ack.rejected.length,
      snapshots_rejected: ack.snapshots_rejected.length,
    },
  };
}
