import type { MaskedField, ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { SnapshotUpload } from "../../../shared/observation/capture-protocol";
import { quoted } from "../observers/dom-observer";
import type { ErrorGuard } from "../common/error-guard";
import type { PrivacyBoundary } from "../privacy/privacy-boundary";
import type { TakenSnapshot } from "../snapshot/snapshot-json";
import { createIdleWork } from "./idle-work";
import type { OutgoingBatches } from "./outgoing-batches";

/**
 * Events on their way out (../content-capture.ts): each is held until its masked value, its
 * before and its after snapshot are known, then, in order, passes through the privacy boundary
 * into the outgoing batches. When the page is left (`final`: pagehide, issue #35) what is held goes
 * with what is known: the mask without its hash, no before-state.
 */

/** A snapshot being taken: done once hashed (or failed). */
export interface SnapshotHandle {
  done: boolean;
  taken: TakenSnapshot | undefined;
}

/** An event on its way out: complete once its masked value, its before and its after snapshot are known. */
export interface HeldEvent {
  event: ObservedActionEventWithDetail;
  /**
   * `later`: the field's mask, asked for by the next pump (in idle time) or when the page is
   * flushed; `now`: the mask without its hash, for a page left before the hash was ready.
   */
  masked: { later: (() => Promise<MaskedField>) | undefined; done: boolean; value: MaskedField | undefined; now: (() => MaskedField) | undefined } | undefined;
  /** Finishes the label from the settled page title (navigation). */
  finishLabel: ((title: string) => string) | undefined;
  before: SnapshotHandle | undefined;
  /** "none": the page hid before the after-snapshot; the event goes without. */
  after: SnapshotHandle | "none" | undefined;
  /** Snapshot events are dropped when the page did not change. */
  isSnapshotEvent: boolean;
}

export interface HeldEvents {
  /** An action's event: it waits for the next snapshot, and for its mask when it has one (worked out by the next pump). */
  holdAction(entry: HeldEvent): void;
  /** Works out every held event's mask now (before a flush waits for what is under way). */
  maskAll(): void;
  /** A snapshot's event (its after-snapshot is itself). */
  holdSnapshot(entry: HeldEvent): void;
  /** The action events waiting for the next snapshot. */
  awaitingAfter(): readonly HeldEvent[];
  /** The events waiting for the next snapshot get this one ("none": they go without). */
  giveAfter(after: SnapshotHandle | "none"): void;
  /** Delivers the complete events at the front, in order; `final`: the page is going away, everything goes with what is known. */
  pump(final?: boolean): void;
  /** `pump()` in the page's idle time (issue #32), or at once while the page is being left. */
  pumpSoon(): void;
  /** The page is being left (true) or in use again (false): while it is left, `pumpSoon` pumps at once. */
  leaving(left: boolean): void;
  /** A later session on this page uploads its snapshots afresh. */
  forget(): void;
}

export interface HeldEventsOptions {
  win: Window;
  guard: ErrorGuard;
  boundary: PrivacyBoundary;
  outgoing: OutgoingBatches;
  /** Counts the mask's hash as under way (state.track). */
  track: <T>(promise: Promise<T>) => Promise<T>;
}

export function createHeldEvents(options: HeldEventsOptions): HeldEvents {
  const { win, guard, boundary, outgoing, track } = options;
  const held: HeldEvent[] = [];
  let awaitingAfter: HeldEvent[] = [];
  /** Snapshots already uploaded in this session (by hash): each goes once. */
  const uploaded = new Set<string>();
  let left = false;

  /** Masks not yet asked for: a field's value is masked and hashed off the person's action, before its event can leave. */
  let unmasked: HeldEvent[] = [];
  const maskAll = (): void => {
    const entries = unmasked;
    unmasked = [];
    for (const entry of entries) {
      const masked = entry.masked;
      const later = masked?.later;
      if (masked === undefined || later === undefined) continue;
      masked.later = undefined;
      void track(
        Promise.resolve()
          .then(later)
          .then((value) => {
            masked.value = value;
          })
          .catch(guard.report)
          .finally(() => {
            masked.done = true;
            pumpSoon();
          }),
      );
    }
  };

  const pump = guard.wrap((final = false) => {
    maskAll();
    while (held.length > 0 && (final || isComplete(held[0]!))) {
      const entry = held.shift()!;
      const finished = finishEvent(entry, uploaded, () => boundary.text(win.document.title));
      // The last gate: whatever the event carries, typed values are cut out of it here. It is not
      // validated here (issue #17: not on the page's main thread): the background checks each event
      // and keeps the valid ones of a batch (extension/background/message-router.ts).
      if (finished !== undefined) outgoing.queue(boundary.event(finished.event), finished.uploads);
    }
  });
  /** Handing events over is not needed before the page's next frame: idle time, at most this late. */
  const idlePump = createIdleWork(win, guard, () => pump(), PUMP_TIMEOUT_MS);

  function pumpSoon(): void {
    if (left) pump();
    else idlePump.request();
  }

  return {
    holdAction(entry) {
      if (entry.masked?.later !== undefined) unmasked.push(entry);
      held.push(entry);
      awaitingAfter.push(entry);
    },
    maskAll,
    holdSnapshot: (entry) => void held.push(entry),
    awaitingAfter: () => awaitingAfter,
    giveAfter(after) {
      for (const entry of awaitingAfter) entry.after = after;
      awaitingAfter = [];
    },
    pump(final) {
      idlePump.cancel();
      pump(final);
    },
    pumpSoon,
    leaving(now) {
      left = now;
      if (left) idlePump.runNow();
    },
    forget: () => uploaded.clear(),
  };
}

const PUMP_TIMEOUT_MS = 200;

function isComplete(entry: HeldEvent): boolean {
  return (
    (entry.masked === undefined || entry.masked.done) &&
    (entry.before === undefined || entry.before.done) &&
    (entry.after === "none" || (entry.after !== undefined && entry.after.done))
  );
}

/**
 * The event with its snapshot refs, its finished label and its mask, and the snapshots it is the
 * first to reference; undefined for a snapshot event of an unchanged page (nothing to report).
 */
function finishEvent(
  entry: HeldEvent,
  uploaded: Set<string>,
  currentTitle: () => string,
): { event: ObservedActionEventWithDetail; uploads: SnapshotUpload[] } | undefined {
  const before = entry.before?.taken;
  const after = entry.after === "none" ? undefined : entry.after?.taken;
  const event = entry.event;
  if (entry.isSnapshotEvent) {
    // No hash (insecure context) or no change since the last snapshot: nothing to report.
    if (after?.ref === undefined || after.ref === before?.ref) return undefined;
    event.action_label = `Snapshot of ${quoted(after.snapshot.title, "the page")}`;
    event.window_title = after.snapshot.title;
    event.browser_detail = { page_url: after.snapshot.url, page_title: after.snapshot.title, selectors: [] };
  }
  event.before_state_ref = before?.ref;
  event.after_state_ref = after?.ref;
  event.caused_state_change = after?.ref !== undefined && after.ref !== before?.ref;
  if (entry.finishLabel !== undefined) event.action_label = entry.finishLabel(after?.snapshot.title ?? currentTitle());
  const masked = entry.masked === undefined ? undefined : entry.masked.done ? entry.masked.value : entry.masked.now?.();
  if (masked !== undefined && event.browser_detail !== undefined) event.browser_detail.masked_field = masked;
  const uploads: SnapshotUpload[] = [];
  for (const taken of [before, after]) {
    if (taken?.sha256 === undefined || uploaded.has(taken.sha256)) continue;
    uploaded.add(taken.sha256);
    uploads.push({ sha256: taken.sha256, learn_session_id: event.learn_session_id, snapshot: taken.snapshot });
  }
  return { event, uploads };
}
