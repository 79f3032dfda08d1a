import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { SnapshotUpload } from "../../../shared/observation/capture-protocol";
import type { ContentMessage } from "../common/capture-messages";
import type { ErrorGuard } from "../common/error-guard";
import { createIdleWork } from "./idle-work";

/**
 * The page's outgoing side (content-capture.ts): finished events wait in a batch at most
 * `batchDelayMs` or until `batchSize` are ready, then go to the background one batch after another
 * (a retried one stays before the next). While the page is being left (issue #35) everything goes
 * at once: every batch not answered yet is handed to `send` out of turn, in order, even the one
 * whose answer is awaited (a page that is gone gets no answer; the background keeps each event id
 * once), and at `pagehide` what is still unanswered is parked where the background finds it
 * should the page be gone before its messages arrive. A batch whose delay is over goes in the page's
 * next idle time (at most `SEND_IDLE_TIMEOUT_MS` later; issue #32), a full one or one of a page being
 * left at once.
 */

export interface OutgoingOptions {
  send: (message: ContentMessage) => unknown;
  park: ((messages: ContentMessage[]) => void) | undefined;
  window: Window;
  guard: ErrorGuard;
  batchDelayMs: number;
  batchSize: number;
}

export interface OutgoingBatches {
  /** An event ready to go (already through the privacy boundary), with the snapshots it is the first to reference. */
  queue(event: ObservedActionEventWithDetail, uploads: SnapshotUpload[]): void;
  /** Everything queued goes now; resolves when every batch so far was answered (or given up). */
  sendAll(): Promise<void>;
  /** One message outside the batches (typed values), retried a few times. */
  deliver(message: ContentMessage): Promise<void>;
  /** A navigation started or the page hid (`final`: pagehide): from now on everything goes at once. */
  leave(final: boolean): void;
  /** The page is in use again (visible, an action on it): batches wait their turn again. */
  stay(): void;
  /** Back from the back/forward cache: batches not answered take new turns (a send made as the page froze is never answered). */
  resume(): void;
  destroy(): void;
}

interface OutgoingBatch {
  message: ContentMessage;
  answered: boolean;
  /** Handed to `send` at once, out of turn, because the page was being left: not again. */
  rushed: boolean;
}

const MAX_EVENTS_PER_MESSAGE = 200;
const MAX_SNAPSHOTS_PER_MESSAGE = 20;
const SEND_ATTEMPTS = 3;
const RETRY_DELAY_MS = 1000;
const SEND_IDLE_TIMEOUT_MS = 200;

export function createOutgoingBatches(options: OutgoingOptions): OutgoingBatches {
  const { send, park, window: win, guard, batchDelayMs, batchSize } = options;
  const pending: { events: ObservedActionEventWithDetail[]; snapshots: SnapshotUpload[] } = { events: [], snapshots: [] };
  /** Batches handed out (or waiting their turn) whose answer has not come, oldest first. */
  const unanswered = new Set<OutgoingBatch>();
  let leaving = false;
  let sending: Promise<void> = Promise.resolve();

  const deliver = (message: ContentMessage): Promise<void> => deliverWithRetries(options, message, SEND_ATTEMPTS);

  const takeTurn = (batch: OutgoingBatch): void => {
    sending = sending.then(async () => {
      if (!batch.answered) await deliver(batch.message);
      batch.answered = true;
      unanswered.delete(batch);
    });
  };

  const sendAll = (): Promise<void> => {
    idleSend.cancel();
    while (pending.events.length > 0 || pending.snapshots.length > 0) {
      const events = pending.events.splice(0, MAX_EVENTS_PER_MESSAGE);
      const snapshots = pending.snapshots.splice(0, MAX_SNAPSHOTS_PER_MESSAGE);
      const batch: OutgoingBatch = { message: { type: "capture/events", events, snapshots }, answered: false, rushed: false };
      unanswered.add(batch);
      takeTurn(batch);
    }
    if (leaving) sendUnansweredNow(unanswered, send);
    return sending;
  };

  const idleSend = createIdleWork(win, guard, () => void sendAll(), SEND_IDLE_TIMEOUT_MS);

  return {
    queue(event, uploads) {
      pending.events.push(event);
      pending.snapshots.push(...uploads);
      if (pending.events.length >= batchSize || leaving) {
        void sendAll();
      } else if (!idleSend.pending) {
        // The batch goes `batchDelayMs` after its first event, in idle time (no timer on the page's path).
        idleSend.request(win.performance.now() + batchDelayMs);
      }
    },
    sendAll,
    deliver,
    leave(final) {
      leaving = true;
      void sendAll();
      if (final && park !== undefined && unanswered.size > 0) park([...unanswered].map((batch) => batch.message));
    },
    stay() {
      leaving = false;
    },
    resume() {
      leaving = false;
      sending = Promise.resolve();
      for (const batch of unanswered) takeTurn(batch);
    },
    destroy() {
      idleSend.cancel();
    },
  };
}

/** Sends one message; a failed send (the service worker was restarting) is retried a few times. */
async function deliverWithRetries(options: OutgoingOptions, message: ContentMessage, attempts: number): Promise<void> {
  try {
    await options.send(message);
  } catch (error) {
    if (attempts <= 1) {
      options.guard.report(error);
      return;
    }
    await new Promise((resolve) => options.window.setTimeout(resolve, RETRY_DELAY_MS));
    await deliverWithRetries(options, message, attempts - 1);
  }
}

/** Every batch not answered yet, handed to `send` now (not after the one in flight), oldest first; each once. */
function sendUnansweredNow(unanswered: Set<OutgoingBatch>, send: (message: ContentMessage) => unknown): void {
  for (const batch of unanswered) {
    if (batch.rushed) continue;
    batch.rushed = true;
    try {
      void Promise.resolve(send(batch.message)).then(
        () => {
          batch.answered = true;
          unanswered.delete(batch);
        },
        () => undefined, // the queued turn sends it again
      );
    } catch {
      // The same: its queued turn retries.
    }
  }
}
