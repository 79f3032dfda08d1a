import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import { CaptureConfigSchema, TYPED_VALUE_MAX_LENGTH, type CaptureConfig, type ContentMessage } from "../common/capture-messages";
import { observeDom, type DomObservation } from "../observers/dom-observer";
import { createFieldMasker } from "../privacy/field-masking";
import { createIndicator, type IndicatorAction } from "./indicator";
import { observePageLeaving } from "../observers/navigation";
import type { CaptureSnapshots } from "./capture-snapshots";
import type { CaptureState } from "./capture-state";
import type { HeldEvents } from "./held-events";
import { heldObservation } from "./observed-events";
import type { OutgoingBatches } from "./outgoing-batches";

/**
 * A capture turned on and off (../content-capture.ts wires these): the background's config
 * applied (observe only while armed or capturing, only on an allowed origin), the page's observers
 * started and stopped, the indicator's Pause and Stop, and what is held delivered when the page is
 * left, on `flush()`, or before a pause or stop takes effect.
 */

/** A capture's parts, as these functions take them. */
export interface Capture {
  state: CaptureState;
  held: HeldEvents;
  snapshots: CaptureSnapshots;
  outgoing: OutgoingBatches;
  /** Delivers a message to the background (the indicator's buttons go this way). */
  send: (message: ContentMessage) => unknown;
}

/** Applies the background's config (null, invalid, another site: stop). */
export async function applyConfig(capture: Capture, input: unknown): Promise<void> {
  const { state } = capture;
  const next = parseConfig(input);
  // The same check the background and the agent scope with (shared/observation/site-allowlist).
  const allowed = next !== null && urlMatchesAllowList(state.win.location.origin, next.allowed_origins);
  if (next === null || !allowed || (state.config !== null && next.learn_session_id !== state.config.learn_session_id)) {
    // Stopped, not for this site, or another session: deliver what the old one saw, then forget it.
    await endSession(capture);
    if (next === null || !allowed) return;
  }
  if (state.config === null || state.config.text_entry_mode !== next.text_entry_mode || state.config.hash_key !== next.hash_key) {
    state.masker = createFieldMasker(next);
  }
  state.boundary.setSessionValues(next.typed_values);
  state.boundary.setKey(next.hash_key);
  if (next.state === "paused") {
    await stopObserving(capture);
    state.config = next;
    showIndicator(capture, "paused");
    return;
  }
  state.config = next;
  showIndicator(capture, "recording");
  if (state.observer === undefined) startObserving(capture);
}

function parseConfig(input: unknown): CaptureConfig | null {
  const parsed = input === null || input === undefined ? null : CaptureConfigSchema.safeParse(input);
  return parsed === null || !parsed.success ? null : parsed.data;
}

function startObserving(capture: Capture): void {
  const { state, snapshots, outgoing } = capture;
  const { win, guard, boundary } = state;
  const pageChanged = state.observedUrl !== win.location.href;
  const observer = observeDom({
    window: win,
    masker: state.currentMasker,
    guard,
    isOwnNode: (node) => state.indicator?.isOwnNode(node) ?? false,
    isAllowedDocument: (document) => isAllowedDocument(state.config, document),
    emit: guard.wrap((observation: DomObservation) => onObservation(capture, observation)),
    boundary,
    shareTypedValues: (values) => shareTypedValues(capture, values),
    emitInitialNavigation: pageChanged,
  });
  state.observer = observer;
  state.observedUrl = win.location.href;
  snapshots.warm(observer);
  state.stopListening = observePageLeaving(win, guard, {
    leaving: (final) => leavePage(capture, final),
    back: (restored) => {
      capture.held.leaving(false);
      if (!restored) return outgoing.stay();
      outgoing.resume();
      state.observer?.reopened();
    },
  });
  if (!pageChanged) snapshots.schedule();
}

/** Events in: each observation is held until its snapshots are known, and the next snapshot is due. */
function onObservation(capture: Capture, observation: DomObservation): void {
  const { state, held, snapshots, outgoing } = capture;
  if (state.config === null) return;
  // A person acting on the page: it was not left after all (a download, a cancelled navigation).
  if (observation.kind !== "navigation") {
    outgoing.stay();
    held.leaving(false);
  }
  // The last action's snapshot, if still waiting for idle time, comes first: it is this action's before-state.
  snapshots.takeDue();
  held.holdAction(heldObservation(observation, state.config, state.newId(), snapshots.latest));
  snapshots.schedule();
}

/** Inside the extension only (the background keeps them in memory for the session's other pages); never sent to the agent. */
function shareTypedValues(capture: Capture, values: string[]): void {
  const { config } = capture.state;
  if (config === null) return;
  const bounded = values.map((value) => value.slice(0, TYPED_VALUE_MAX_LENGTH));
  for (let start = 0; start < bounded.length; start += 50) {
    void capture.outgoing.deliver({ type: "capture/typed-values", learn_session_id: config.learn_session_id, values: bounded.slice(start, start + 50) });
  }
}

function isAllowedDocument(config: CaptureConfig | null, document: Document): boolean {
  if (config === null) return false;
  try {
    // The origin, not the URL: about:blank and srcdoc frames report their creator's origin.
    return urlMatchesAllowList(document.defaultView?.location.origin ?? "", config.allowed_origins);
  } catch {
    return false;
  }
}

/** Pause, stop: the observer goes first (nothing is seen from now on), then what it saw is delivered. */
async function stopObserving(capture: Capture): Promise<void> {
  const { state, snapshots } = capture;
  const observer = state.observer;
  if (observer === undefined) return;
  finishPending(capture);
  state.observedUrl = observer.lastUrl;
  snapshots.stopSettling();
  observer.stop();
  state.observer = undefined;
  state.stopListening?.();
  state.stopListening = undefined;
  await settleAndSend(capture);
}

/** Stop: what was seen is delivered, then a later session on this page starts afresh (its own "Open", its own snapshots). */
async function endSession(capture: Capture): Promise<void> {
  const { state } = capture;
  await stopObserving(capture);
  state.config = null;
  state.indicator?.remove();
  state.boundary.forget();
  capture.snapshots.forget();
  capture.held.forget();
  state.observedUrl = "";
}

function showIndicator(capture: Capture, shown: "recording" | "paused"): void {
  const { state } = capture;
  state.indicator ??= createIndicator({ document: state.win.document, guard: state.guard, onAction: (action) => void onIndicatorAction(capture, action) });
  state.indicator.show(shown);
}

/** Pause and Stop take effect here at once; what was seen before goes out first, then the control message. */
async function onIndicatorAction(capture: Capture, action: IndicatorAction): Promise<void> {
  const { state } = capture;
  try {
    if (action === "stop") {
      await endSession(capture);
    } else if (action === "pause") {
      await stopObserving(capture);
      if (state.config !== null) {
        state.config = { ...state.config, state: "paused" };
        showIndicator(capture, "paused");
      }
    }
    await capture.send({ type: "capture/control", action });
  } catch (error) {
    state.guard.report(error);
  }
}

/**
 * The page is being left (a navigation started, the page hid; `final`: pagehide, it will not run
 * again): what is held goes now, without the after-snapshot it was waiting for — unless that
 * snapshot was due and only waited for idle time: it is read now, from the page as it settled.
 */
function leavePage(capture: Capture, final: boolean): void {
  const { state, held, snapshots, outgoing } = capture;
  state.guard.run(() => {
    state.observer?.flushFields();
    held.leaving(true);
    snapshots.takeDue();
    snapshots.stopTimers();
    held.giveAfter("none");
    held.pump(final);
    outgoing.leave(final);
  });
}

/** Finishes pending field edits and takes the pending after-snapshot now (both need the observer). */
function finishPending(capture: Capture): void {
  const { state, held, snapshots } = capture;
  state.guard.run(() => state.observer?.flushFields());
  if (held.awaitingAfter().length > 0) state.guard.run(snapshots.takeNow);
  // The masks under way are what the flush waits for: none may be left unasked.
  held.maskAll();
}

/** Waits for the hashes under way, then delivers everything held. */
async function settleAndSend(capture: Capture): Promise<void> {
  const { state, held, outgoing } = capture;
  await state.settled();
  // Whatever still waits (no observer left to snapshot with) goes without an after-snapshot.
  held.giveAfter("none");
  held.pump();
  await outgoing.sendAll();
}

/** `flush()`: delivers everything now, and keeps observing. */
export async function flushCapture(capture: Capture): Promise<void> {
  finishPending(capture);
  await settleAndSend(capture);
}

/** Stops everything without delivering (the extension context is gone). */
export function destroyCapture(capture: Capture): void {
  const { state } = capture;
  state.guard.run(() => {
    state.observer?.stop();
    state.observer = undefined;
    state.stopListening?.();
    capture.snapshots.stopTimers();
    capture.snapshots.destroy();
    capture.outgoing.destroy();
    state.indicator?.remove();
    state.config = null;
    state.coachingControls = [];
  });
}
