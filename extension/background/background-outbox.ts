import type { OutboxStatus } from "../../shared/observation/panel-messages";
import type { BackgroundContext } from "./background-parts";
import { openOutboxDb } from "./outbox/outbox-db";
import { createOutboxLedger } from "./outbox/outbox-ledger";
import { createOutboxSender, type OutboxSender } from "./outbox/outbox-sender";

export interface OutboxAccess {
  /** The sender, opened once per worker; a failed open is tried again by the next caller rather than cached. */
  outbox(): Promise<OutboxSender>;
  /** Sends what waits, as far as the link takes it; a failure is recorded, not thrown. */
  drain(): void;
}

/** The outbox wired to the agent socket; its size decides, with the capture and runs, whether the link is kept up. */
export function createOutboxAccess(context: BackgroundContext): OutboxAccess {
  const { deps, failed } = context;
  const now = () => deps.now().getTime();
  const openSender = () =>
    openOutboxDb({ now }).then((db) =>
      createOutboxSender({
        outbox: db,
        ledger: createOutboxLedger({ now }),
        channel: {
          isReady: () => context.socket().isReady(),
          sendBatch: (batch) => context.socket().send({ type: "batch", batch: { ...batch, schema_version: 1 } }),
          drop: (reason) => context.socket().drop(reason),
        },
        newBatchId: deps.newId,
        onStatus: (status: OutboxStatus) => {
          const wasWaiting = context.demand.queued > 0;
          context.demand.queued = status.queued + status.snapshots_queued;
          void deps.store.saveOutboxStatus(status).catch(failed("outbox status"));
          if (wasWaiting !== context.demand.queued > 0) context.linkWantChanged();
        },
      }),
    );
  let senderPromise: Promise<OutboxSender> | undefined;
  const outbox = () =>
    (senderPromise ??= openSender().catch((error: unknown) => {
      senderPromise = undefined;
      throw error;
    }));
  return {
    outbox,
    drain: () =>
      void outbox()
        .then((sender) => sender.drain())
        .catch(failed("outbox drain")),
  };
}
