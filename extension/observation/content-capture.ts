import type { CoachingHighlight, CoachingRead } from "../../shared/observation/coaching-read";
import type { ContentMessage } from "./common/capture-messages";
import { applyConfig, destroyCapture, flushCapture, type Capture } from "./capture/capture-lifecycle";
import { createCaptureSnapshots } from "./capture/capture-snapshots";
import { createCaptureState } from "./capture/capture-state";
import { createHeldEvents } from "./capture/held-events";
import { createOutgoingBatches } from "./capture/outgoing-batches";
import { readForCoaching } from "./coaching-reader";
import { createErrorGuard } from "./common/error-guard";
import { createPrivacyBoundary } from "./privacy/privacy-boundary";

/**
 * The content side of a capture (issue #4), independent of `browser.*` so the e2e harness runs the
 * very same code: it follows the CaptureConfig (observe only while armed or capturing, only on an
 * allowed origin), turns the observers' output into `ObservedActionEventWithDetail`s, ties each
 * DOM event to the snapshot before it and the debounced snapshot after it, and delivers batches
 * (`capture/events`) and the indicator's buttons (`capture/control`) through `send`.
 *
 * This module only wires; the parts are in capture/, one per responsibility, sharing one small
 * state object (capture-state.ts): the config applied and the observers started and stopped
 * (capture-lifecycle.ts), observations turned into events (observed-events.ts), held until their
 * snapshots are known (held-events.ts), the snapshots themselves (capture-snapshots.ts), and the
 * batches out (outgoing-batches.ts). Every event leaves through the privacy boundary.
 *
 * Timing: a DOM event is held until the snapshot taken `snapshotDelayMs` after the last action
 * exists (or the page hides: then it goes without), then waits in the outgoing batch at most
 * `batchDelayMs` or until `batchSize` events are ready. Pause, Stop and `flush()` deliver at once.
 *
 * Leaving the page (issue #35): when a navigation starts (`beforeunload`) or the page hides, the
 * events waiting for their after-snapshot go without it (the next page's first snapshot is the
 * after-state), and everything goes out at once, not after the batches still waiting for an
 * answer: those are handed to `send` again too (the background keeps each event id once). At
 * `pagehide` an event still waiting for its mask's hash or its before-snapshot's hash goes with
 * what is known (the mask without its hash, no before-state): the page will not run again.
 * A page restored from the back/forward cache is "opened" again.
 */

export interface ContentCaptureOptions {
  /** Delivers a message to the background (the content script: runtime.sendMessage; the harness: its sink). */
  send: (message: ContentMessage) => unknown;
  /**
   * Keeps the batches not answered when the page goes where the background finds them even if
   * the page is gone before they arrive (the content script: chrome.storage.local; issue #35).
   */
  park?: (messages: ContentMessage[]) => void;
  window?: Window;
  /** Where the single prefixed warning goes (default console.warn). */
  warn?: (message: string) => void;
  snapshotDelayMs?: number;
  /**
   * Issue #14: a second snapshot this long after the last action's (when no action came since), so
   * the agent can tell a lasting change from one that went away (a toast, a spinner).
   */
  settleDelayMs?: number;
  batchDelayMs?: number;
  batchSize?: number;
  newId?: () => string;
}

export interface ContentCapture {
  /** Applies the background's config (null: stop). Resolves once what was seen before a pause or stop has been handed to `send`. */
  setConfig(config: unknown): Promise<void>;
  /** Takes the pending snapshot now and delivers everything held. */
  flush(): Promise<void>;
  /** Stops everything without delivering (the extension context is gone). */
  destroy(): void;
  /**
   * The Coaching Agent's read of this page (shared/observation/coaching-read.ts), every string through
   * the privacy boundary; null while the page is not recorded (nothing is read then). Asked only over
   * the extension's own messaging, never by the page.
   */
  coachingRead(highlight: CoachingHighlight | null): CoachingRead | null;
  readonly observing: boolean;
  /** How many times the page was read for a snapshot (for tests and diagnostics: an unchanged page is not read again). */
  readonly snapshotReads: number;
}

export function createContentCapture(options: ContentCaptureOptions): ContentCapture {
  const {
    send,
    park,
    window: win = window,
    warn,
    snapshotDelayMs = 300,
    settleDelayMs = 2500,
    batchDelayMs = 500,
    batchSize = 50,
    newId = () => crypto.randomUUID(),
  } = options;
  const guard = createErrorGuard(warn);
  const state = createCaptureState({ win, guard, boundary: createPrivacyBoundary(), newId });
  const outgoing = createOutgoingBatches({ send, park, window: win, guard, batchDelayMs, batchSize });
  const held = createHeldEvents({ win, guard, boundary: state.boundary, outgoing, track: state.track });
  const snapshots = createCaptureSnapshots(state, held, { snapshotDelayMs, settleDelayMs });
  const capture: Capture = { state, held, snapshots, outgoing, send };

  let applying: Promise<void> = Promise.resolve();
  return {
    setConfig(input) {
      applying = applying.then(() => applyConfig(capture, input)).catch(guard.report);
      return applying;
    },
    async flush() {
      try {
        await flushCapture(capture);
      } catch (error) {
        guard.report(error);
      }
    },
    destroy: () => destroyCapture(capture),
    coachingRead(highlight) {
      // Only while this page is recorded: the boundary knows the site's typed values then.
      if (state.config === null) return null;
      const { read, elements } = readForCoaching({ document: win.document, boundary: state.boundary, highlight, previous: state.coachingControls });
      state.coachingControls = elements;
      return read;
    },
    get observing() {
      return state.observer !== undefined;
    },
    get snapshotReads() {
      return snapshots.reads;
    },
  };
}
