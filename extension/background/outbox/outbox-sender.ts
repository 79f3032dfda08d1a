import type { ObservationBatchAck } from "../../../shared/observation/capture-protocol";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { SnapshotUpload } from "../../../shared/observation/capture-protocol";
import type { AddResult, OutboxDb } from "./outbox-db";
import type { OutboxLedger } from "./outbox-ledger";
import type { OutboxStatus } from "../../../shared/observation/panel-messages";
import { outboxStatusOf } from "./outbox-status";

/** At most this many events per batch (the agent takes up to 500). */
export const MAX_BATCH_EVENTS = 200;
export const MAX_BATCH_SNAPSHOTS = 20;
/** JSON budget of one batch frame, well under the agent's 4 MiB WebSocket frame limit. */
export const MAX_BATCH_BYTES = 1024 * 1024;

export interface BatchChannel {
  isReady(): boolean;
  sendBatch(batch: { batch_id: string; events: unknown[]; snapshots: unknown[] }): boolean;
  /** The link is broken (an ack never came): close it so it is re-opened and everything resent. */
  drop(reason: string): void;
}

export interface OutboxSenderDeps {
  outbox: OutboxDb;
  ledger: OutboxLedger;
  channel: BatchChannel;
  newBatchId(): string;
  onStatus(status: OutboxStatus): void;
}

export interface OutboxSender {
  /** Puts what a content script handed over into the outbox, then tries to send. */
  enqueue(events: readonly ObservedActionEventWithDetail[], snapshots: readonly SnapshotUpload[]): Promise<AddResult>;
  /** Sends batches while the link is up, the ledger allows more in flight, and rows wait. */
  drain(): Promise<void>;
  acknowledged(ack: ObservationBatchAck): Promise<void>;
  connectionLost(): void;
  status(): Promise<OutboxStatus>;
}

/**
 * Moves the outbox to the agent over the socket. Everything runs on one chain so an ack's rows
 * are deleted before the next batch is chosen (a row is never both "answered" and resent).
 */
export function createOutboxSender(deps: OutboxSenderDeps): OutboxSender {
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work, work);
    chain = next.catch(() => undefined);
    return next;
  };

  const publish = async () => {
    const status = outboxStatusOf(await deps.outbox.counts());
    deps.onStatus(status);
    return status;
  };

  const sendWhilePossible = async () => {
    if (deps.ledger.overdue()) {
      deps.channel.drop("ack overdue");
      return;
    }
    while (deps.channel.isReady() && deps.ledger.canSend()) {
      const selection = await deps.outbox.nextBatch({
        maxEvents: MAX_BATCH_EVENTS,
        maxSnapshots: MAX_BATCH_SNAPSHOTS,
        maxBytes: MAX_BATCH_BYTES,
        skipEvent: (seq) => deps.ledger.isBusyEvent(seq),
        skipSnapshot: (seq) => deps.ledger.isBusySnapshot(seq),
      });
      if (selection.events.length === 0 && selection.snapshots.length === 0) return;
      const batchId = deps.newBatchId();
      const sent = deps.channel.sendBatch({
        batch_id: batchId,
        events: selection.events.map((row) => row.event),
        snapshots: selection.snapshots.map((row) => row.upload),
      });
      if (!sent) return;
      deps.ledger.sent({
        batch_id: batchId,
        events: selection.events.map(({ seq, event_id }) => ({ seq, event_id })),
        snapshots: selection.snapshots.map(({ seq, sha256 }) => ({ seq, sha256 })),
      });
    }
  };

  return {
    enqueue: (events, snapshots) =>
      serial(async () => {
        const result = await deps.outbox.add(events, snapshots);
        await publish();
        await sendWhilePossible();
        return result;
      }),
    drain: () => serial(sendWhilePossible),
    acknowledged: (ack) =>
      serial(async () => {
        const settlement = deps.ledger.settle(ack);
        if (settlement === undefined) return;
        await deps.outbox.remove(settlement.deleteEventSeqs, settlement.deleteSnapshotSeqs);
        await publish();
        await sendWhilePossible();
      }),
    connectionLost: () => deps.ledger.connectionLost(),
    status: () => serial(publish),
  };
}
