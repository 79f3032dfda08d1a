import type { MaskedField, ObservedActionEventWithDetail } from "../../shared/learning/observed-action";
import type { SnapshotUpload } from "../../shared/observation/capture-protocol";
import { urlMatchesAllowList } from "../../shared/observation/site-allowlist";
import { CaptureConfigSchema, TYPED_VALUE_MAX_LENGTH, type CaptureConfig, type ContentMessage } from "./capture-messages";
import type { CoachingHighlight, CoachingRead } from "../../shared/observation/coaching-read";
import { readForCoaching } from "./coaching-reader";
import { observeDom, quoted, type DomObservation, type DomObserver } from "./dom-observer";
import { createErrorGuard, type ErrorGuard } from "./error-guard";
import { createFieldMasker, type FieldMasker } from "./field-masking";
import { createIndicator, type Indicator, type IndicatorAction } from "./indicator";
import { observePageLeaving } from "./observers/navigation";
import { createOutgoingBatches, type OutgoingBatches } from "./outgoing-batches";
import { createPrivacyBoundary, type PrivacyBoundary } from "./privacy-boundary";
import { nameSnapshot, snapshotText, type TakenSnapshot } from "./snapshot/snapshot-json";
import { readPageSnapshot } from "./snapshot/snapshot-observer";

/**
 * The content side of a capture (issue #4), independent of `browser.*` so the e2e harness runs the
 * very same code: it follows the CaptureConfig (observe only while armed or capturing, only on an
 * allowed origin), turns the observers' output into `ObservedActionEventWithDetail`s, ties each
 * DOM event to the snapshot before it and the debounced snapshot after it, and delivers batches
 * (`capture/events`) and the indicator's buttons (`capture/control`) through `send`.
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
 *
 * A snapshot is read only when the page may have changed since the last one: the page index's
 * change count (any DOM change in the observed roots, a root coming or going, a toggle, a resize)
 * or the URL moved, or a value typed since then occurs in the last snapshot's text (it must be cut
 * out). Otherwise the last snapshot is the after-state, as reading it again would have given.
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

/** A snapshot being taken: done once hashed (or failed). */
interface SnapshotHandle {
  done: boolean;
  taken: TakenSnapshot | undefined;
}

/** What the last snapshot was read from: while none of it moved, reading again would give the same snapshot. */
interface SnapshotBasis {
  handle: SnapshotHandle;
  observer: DomObserver;
  changeCount: number;
  url: string;
  maskedUrl: string;
  /** The scrubber it was read with, and its text (to look for values typed since, when the scrubber changed). */
  scrub: (text: string) => string;
  text: () => string;
}

/** An event on its way out: complete once its masked value, its before and its after snapshot are known. */
interface HeldEvent {
  event: ObservedActionEventWithDetail;
  /** `now`: the mask without its hash, for a page left before the hash was ready. */
  masked: { done: boolean; value: MaskedField | undefined; now: MaskedField | undefined } | undefined;
  /** Finishes the label from the settled page title (navigation). */
  finishLabel: ((title: string) => string) | undefined;
  before: SnapshotHandle | undefined;
  /** "none": the page hid before the after-snapshot; the event goes without. */
  after: SnapshotHandle | "none" | undefined;
  /** Snapshot events are dropped when the page did not change. */
  isSnapshotEvent: boolean;
}

/** Idle slices that work out the page's names after start, and how long the first snapshot waits for them at most. */
const WARM_SLICE_MS = 8;
const WARM_WAIT_MS = 16;
const WARM_LIMIT_MS = 1000;

export function createContentCapture(options: ContentCaptureOptions): ContentCapture {
  const {
    send,
    window: win = window,
    warn,
    snapshotDelayMs = 300,
    settleDelayMs = 2500,
    batchDelayMs = 500,
    batchSize = 50,
    newId = () => crypto.randomUUID(),
  } = options;
  const guard: ErrorGuard = createErrorGuard(warn);
  /** Everything that leaves this page passes through it (privacy-boundary.ts). */
  const boundary: PrivacyBoundary = createPrivacyBoundary();

  let config: CaptureConfig | null = null;
  /** The controls of the Coaching Agent's last read of this page (its highlight names one by place). */
  let coachingControls: Element[] = [];
  // Replaced by the session's own masker before anything is observed.
  let masker: FieldMasker = createFieldMasker({ text_entry_mode: "mask_text", hash_key: "no-session-key-yet" });
  let observer: DomObserver | undefined;
  /** Stops listening for the page being left (observers/navigation.ts). */
  let stopListening: (() => void) | undefined;
  let indicator: Indicator | undefined;
  /** The URL this document was last observed at; "" until the first start ("Open" is reported then). */
  let observedUrl = "";

  const held: HeldEvent[] = [];
  let awaitingAfter: HeldEvent[] = [];
  let latestSnapshot: SnapshotHandle | undefined;
  let snapshotBasis: SnapshotBasis | undefined;
  let snapshotTimer: number | undefined;
  let settleTimer: number | undefined;
  let snapshotReads = 0;
  const inFlight = new Set<Promise<unknown>>();

  const outgoing: OutgoingBatches = createOutgoingBatches({ send, park: options.park, window: win, guard, batchDelayMs, batchSize });
  const uploaded = new Set<string>();

  const track = <T>(promise: Promise<T>): Promise<T> => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
    return promise;
  };

  // The masker is swapped when the session's mode changes; the observer always asks the current one.
  const currentMasker: FieldMasker = {
    get mode() {
      return masker.mode;
    },
    mask: (value, hints) => masker.mask(value, hints),
    maskNow: (value, hints) => masker.maskNow(value, hints),
  };

  // --- events in ---
  const onObservation = (observation: DomObservation): void => {
    if (config === null) return;
    // A person acting on the page: it was not left after all (a download, a cancelled navigation).
    if (observation.kind !== "navigation") outgoing.stay();
    const { target } = observation;
    const event: ObservedActionEventWithDetail = {
      event_id: newId(),
      learn_session_id: config.learn_session_id,
      adapter_kind: "browser_dom",
      app_family: "browser",
      window_title: observation.pageTitle,
      action_label: typeof observation.label === "string" ? observation.label : "",
      caused_state_change: false,
      redaction_mode: config.text_entry_mode,
      created_at: observation.createdAt,
      schema_version: 1,
      browser_detail: {
        page_url: observation.pageUrl,
        page_title: observation.pageTitle,
        target_role: target?.role,
        target_name: target?.name || undefined,
        target_tag: target?.tag,
        input_type: target?.inputType,
        selectors: target?.selectors ?? [],
        frame_path: target && target.framePath.length > 0 ? target.framePath : undefined,
        dom_event_kind: observation.kind,
      },
    };
    const entry: HeldEvent = {
      event,
      masked: undefined,
      finishLabel: typeof observation.label === "function" ? observation.label : undefined,
      before: latestSnapshot,
      after: undefined,
      isSnapshotEvent: false,
    };
    if (observation.maskedField !== undefined) {
      const masked: NonNullable<HeldEvent["masked"]> = { done: false, value: undefined, now: observation.maskedNow };
      entry.masked = masked;
      void track(
        observation.maskedField
          .then((value) => {
            masked.value = value;
          })
          .catch(guard.report)
          .finally(() => {
            masked.done = true;
            pump();
          }),
      );
    }
    held.push(entry);
    awaitingAfter.push(entry);
    scheduleSnapshot();
  };

  // --- snapshots: debounced after actions, each distinct one reported once ---
  /** When the debounced snapshot is due: one timer is re-armed for the rest when actions came meanwhile, instead of a timer per action. */
  let snapshotDue = 0;
  const scheduleSnapshot = (): void => {
    if (settleTimer !== undefined) win.clearTimeout(settleTimer);
    settleTimer = undefined;
    snapshotDue = win.performance.now() + snapshotDelayMs;
    snapshotTimer ??= win.setTimeout(onSnapshotTimer, snapshotDelayMs);
  };

  const onSnapshotTimer = guard.wrap(() => {
    snapshotTimer = undefined;
    const rest = snapshotDue - win.performance.now();
    if (rest >= 1) snapshotTimer = win.setTimeout(onSnapshotTimer, rest);
    else if (warming !== undefined && !warming.done && win.performance.now() < warming.until) {
      // The names are being worked out in idle time: the snapshot waits for them (a little).
      snapshotTimer = win.setTimeout(onSnapshotTimer, WARM_WAIT_MS);
    } else {
      takeSnapshotNow();
      // The settled page: reported (as a snapshot event) only if it changed meanwhile.
      if (settleTimer !== undefined) win.clearTimeout(settleTimer);
      settleTimer = win.setTimeout(onSettleTimer, settleDelayMs);
    }
  });

  const onSettleTimer = guard.wrap(() => {
    settleTimer = undefined;
    // A field still being typed into: what the page shows now (an autocomplete's options) is the
    // coming Fill's doing, not the action before it; the settled page waits for the edit.
    if (observer?.editing() === true) {
      settleTimer = win.setTimeout(onSettleTimer, settleDelayMs);
      return;
    }
    takeSnapshotNow();
    pump();
  });

  /**
   * After start, the names of the page's buttons and links (what the first snapshot reads most of:
   * 1,600 "Favourite" buttons are named one by one before they are found to share a name) are
   * worked out in idle slices, so the first snapshot is not one long task on a large page. The
   * debounced snapshot waits for them, at most `WARM_LIMIT_MS` after start; names are only cached
   * (page-index.ts forgets them when the page changes), so what the snapshot says is the same.
   */
  let warming: { done: boolean; until: number } | undefined;
  const warmNames = (current: DomObserver): void => {
    const queue: Element[] = [];
    for (const root of current.index.roots()) queue.push(...current.index.elements(root, "buttons"), ...current.index.elements(root, "links"));
    const state = { done: false, until: win.performance.now() + WARM_LIMIT_MS };
    warming = state;
    let next = 0;
    const slice = guard.wrap(() => {
      if (observer !== current || warming !== state) return;
      const stop = win.performance.now() + WARM_SLICE_MS;
      while (next < queue.length) {
        const element = queue[next++]!;
        if (element.isConnected) current.index.names.name(element);
        if (next % 32 === 0 && win.performance.now() >= stop) break;
      }
      if (next < queue.length) schedule();
      else state.done = true;
    });
    const schedule = (): void => {
      if (typeof win.requestIdleCallback === "function") win.requestIdleCallback(slice, { timeout: WARM_WAIT_MS * 4 });
      else win.setTimeout(slice, 0);
    };
    schedule();
  };

  /** True when the last snapshot still describes the page, as read with `scrub` now. */
  const lastSnapshotHolds = (basis: SnapshotBasis | undefined, current: DomObserver, scrub: (text: string) => string): boolean => {
    if (basis === undefined || basis.handle !== latestSnapshot || basis.observer !== current) return false;
    if (basis.changeCount !== current.index.changeCount || basis.url !== win.location.href) return false;
    if (basis.scrub !== scrub) {
      // New typing: the page did not change, but a value typed now may already have been on it (or in its URL).
      const text = basis.text();
      if (scrub(text) !== text || boundary.url(basis.url) !== basis.maskedUrl) return false;
      basis.scrub = scrub;
    }
    return true;
  };

  const takeSnapshotNow = (): void => {
    if (snapshotTimer !== undefined) win.clearTimeout(snapshotTimer);
    snapshotTimer = undefined;
    if (config === null || observer === undefined) return;
    const scrub = observer.scrubber();
    const basis = snapshotBasis;
    // Ticking a box or picking a radio option changes no node: the page is read again so the
    // snapshot's control states (issue #14) follow it.
    const mayToggle = awaitingAfter.some((entry) => ["checkbox", "radio", "switch"].includes(entry.event.browser_detail?.target_role ?? ""));
    if (basis !== undefined && !mayToggle && lastSnapshotHolds(basis, observer, scrub)) {
      for (const entry of awaitingAfter) entry.after = basis.handle;
      awaitingAfter = [];
      pump();
      return;
    }
    const previous = latestSnapshot;
    const handle: SnapshotHandle = { done: false, taken: undefined };
    latestSnapshot = handle;
    for (const entry of awaitingAfter) entry.after = handle;
    awaitingAfter = [];
    const createdAt = new Date().toISOString();
    const snapshotEvent: HeldEvent = {
      event: {
        event_id: newId(),
        learn_session_id: config.learn_session_id,
        adapter_kind: "browser_snapshot",
        app_family: "browser",
        action_label: "",
        caused_state_change: true,
        redaction_mode: config.text_entry_mode,
        created_at: createdAt,
        schema_version: 1,
      },
      masked: undefined,
      finishLabel: undefined,
      before: previous,
      after: handle,
      isSnapshotEvent: true,
    };
    held.push(snapshotEvent);
    // Read now (one consistent DOM); hashed asynchronously.
    const changeCount = observer.index.changeCount;
    const url = win.location.href;
    let read: ReturnType<typeof readPageSnapshot>;
    snapshotReads += 1;
    try {
      read = readPageSnapshot({ window: win, source: observer.index, scrub, sanitize: boundary.snapshot, maskedUrl: boundary.url(url) });
    } catch (error) {
      // A bug of ours: the events waiting for this snapshot go without it.
      guard.report(error);
      snapshotBasis = undefined;
      handle.done = true;
      pump();
      return;
    }
    const { snapshot, json } = read;
    let text: string | undefined;
    snapshotBasis = { handle, observer, changeCount, url, maskedUrl: snapshot.url, scrub, text: () => (text ??= snapshotText(snapshot)) };
    void track(
      nameSnapshot(snapshot, json)
        .then((taken) => {
          handle.taken = taken;
        })
        .catch(guard.report)
        .finally(() => {
          handle.done = true;
          pump();
        }),
    );
  };

  // --- held → outbox, in order ---
  const isComplete = (entry: HeldEvent): boolean =>
    (entry.masked === undefined || entry.masked.done) &&
    (entry.before === undefined || entry.before.done) &&
    (entry.after === "none" || (entry.after !== undefined && entry.after.done));

  /** `final`: the page is going away; what is held goes with what is known (see the top). */
  const pump = guard.wrap((final = false) => {
    while (held.length > 0 && (final || isComplete(held[0]!))) {
      const entry = held.shift()!;
      const finished = finish(entry);
      // The last gate: whatever the event carries, typed values are cut out of it here. It is not
      // validated here (issue #17: not on the page's main thread): the background checks each event
      // and keeps the valid ones of a batch (extension/background/message-router.ts).
      if (finished !== undefined) outgoing.queue(boundary.event(finished.event), finished.uploads);
    }
  });

  const finish = (entry: HeldEvent): { event: ObservedActionEventWithDetail; uploads: SnapshotUpload[] } | undefined => {
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
    if (entry.finishLabel !== undefined) event.action_label = entry.finishLabel(after?.snapshot.title ?? boundary.text(win.document.title));
    const masked = entry.masked === undefined ? undefined : entry.masked.done ? entry.masked.value : entry.masked.now;
    if (masked !== undefined && event.browser_detail !== undefined) event.browser_detail.masked_field = masked;
    const uploads: SnapshotUpload[] = [];
    for (const taken of [before, after]) {
      if (taken?.sha256 === undefined || uploaded.has(taken.sha256)) continue;
      uploaded.add(taken.sha256);
      uploads.push({ sha256: taken.sha256, learn_session_id: event.learn_session_id, snapshot: taken.snapshot });
    }
    return { event, uploads };
  };

  // --- flushing ---
  /**
   * The page is being left (a navigation started, the page hid; `final`: pagehide, it will not run
   * again): what is held goes now, without the after-snapshot it was waiting for.
   */
  const leavePage = (final: boolean): void => {
    guard.run(() => {
      observer?.flushFields();
      if (settleTimer !== undefined) win.clearTimeout(settleTimer);
      settleTimer = undefined;
      if (snapshotTimer !== undefined) win.clearTimeout(snapshotTimer);
      snapshotTimer = undefined;
      for (const entry of awaitingAfter) entry.after = "none";
      awaitingAfter = [];
      pump(final);
      outgoing.leave(final);
    });
  };

  /** Finishes pending field edits and takes the pending after-snapshot now (both need the observer). */
  const finishPending = (): void => {
    guard.run(() => observer?.flushFields());
    if (awaitingAfter.length > 0) guard.run(takeSnapshotNow);
  };

  /** Waits for the hashes under way, then delivers everything held. */
  const settleAndSend = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    // Whatever still waits (no observer left to snapshot with) goes without an after-snapshot.
    for (const entry of awaitingAfter) entry.after = "none";
    awaitingAfter = [];
    pump();
    await outgoing.sendAll();
  };

  /** flush(): deliver everything now, and keep observing. */
  const flushAll = async (): Promise<void> => {
    finishPending();
    await settleAndSend();
  };

  // --- observing on and off ---
  const isAllowedDocument = (document: Document): boolean => {
    if (config === null) return false;
    try {
      // The origin, not the URL: about:blank and srcdoc frames report their creator's origin.
      return urlMatchesAllowList(document.defaultView?.location.origin ?? "", config.allowed_origins);
    } catch {
      return false;
    }
  };

  const startObserving = (): void => {
    const ownNode = (node: EventTarget): boolean => indicator?.isOwnNode(node) ?? false;
    const pageChanged = observedUrl !== win.location.href;
    observer = observeDom({
      window: win,
      masker: currentMasker,
      guard,
      isOwnNode: ownNode,
      isAllowedDocument,
      emit: guard.wrap(onObservation),
      boundary,
      shareTypedValues: (values) => {
        // Inside the extension only (the background keeps them in memory for the session's other pages); never sent to the agent.
        if (config === null) return;
        const bounded = values.map((value) => value.slice(0, TYPED_VALUE_MAX_LENGTH));
        for (let start = 0; start < bounded.length; start += 50) {
          void outgoing.deliver({ type: "capture/typed-values", learn_session_id: config.learn_session_id, values: bounded.slice(start, start + 50) });
        }
      },
      emitInitialNavigation: pageChanged,
    });
    observedUrl = win.location.href;
    warmNames(observer);
    stopListening = observePageLeaving(win, guard, {
      leaving: leavePage,
      back: (restored) => {
        if (!restored) return outgoing.stay();
        outgoing.resume();
        observer?.reopened();
      },
    });
    if (!pageChanged) scheduleSnapshot();
  };

  /** Pause, stop: the observer goes first (nothing is seen from now on), then what it saw is delivered. */
  const stopObserving = async (): Promise<void> => {
    if (observer === undefined) return;
    finishPending();
    observedUrl = observer.lastUrl;
    if (settleTimer !== undefined) win.clearTimeout(settleTimer);
    settleTimer = undefined;
    observer.stop();
    observer = undefined;
    stopListening?.();
    stopListening = undefined;
    await settleAndSend();
  };

  /** A later session on this page starts afresh: its own "Open", its own snapshots. */
  const forgetSession = (): void => {
    boundary.forget();
    latestSnapshot = undefined;
    snapshotBasis = undefined;
    uploaded.clear();
    observedUrl = "";
  };

  const showIndicator = (state: "recording" | "paused"): void => {
    indicator ??= createIndicator({ document: win.document, guard, onAction: (action) => void onIndicatorAction(action) });
    indicator.show(state);
  };

  /** Pause and Stop take effect here at once; what was seen before goes out first, then the control message. */
  const onIndicatorAction = async (action: IndicatorAction): Promise<void> => {
    try {
      if (action !== "resume") {
        await stopObserving();
        if (action === "stop") {
          config = null;
          indicator?.remove();
          forgetSession();
        } else if (config !== null) {
          config = { ...config, state: "paused" };
          showIndicator("paused");
        }
      }
      await send({ type: "capture/control", action });
    } catch (error) {
      guard.report(error);
    }
  };

  let applying: Promise<void> = Promise.resolve();
  const applyConfig = async (input: unknown): Promise<void> => {
    const parsed = input === null || input === undefined ? null : CaptureConfigSchema.safeParse(input);
    const next = parsed === null || !parsed.success ? null : parsed.data;
    // The same check the background and the agent scope with (shared/observation/site-allowlist).
    const allowed = next !== null && urlMatchesAllowList(win.location.origin, next.allowed_origins);
    if (next === null || !allowed || (config !== null && next.learn_session_id !== config.learn_session_id)) {
      // Stopped, not for this site, or another session: deliver what the old one saw, then forget it.
      await stopObserving();
      config = null;
      indicator?.remove();
      forgetSession();
      if (next === null || !allowed) return;
    }
    if (config === null || config.text_entry_mode !== next.text_entry_mode || config.hash_key !== next.hash_key) {
      masker = createFieldMasker(next);
    }
    boundary.setSessionValues(next.typed_values);
    boundary.setKey(next.hash_key);
    if (next.state === "paused") {
      await stopObserving();
      config = next;
      showIndicator("paused");
      return;
    }
    config = next;
    showIndicator("recording");
    if (observer === undefined) startObserving();
  };

  return {
    setConfig(input) {
      applying = applying.then(() => applyConfig(input)).catch(guard.report);
      return applying;
    },
    async flush() {
      try {
        await flushAll();
      } catch (error) {
        guard.report(error);
      }
    },
    destroy() {
      guard.run(() => {
        observer?.stop();
        observer = undefined;
        stopListening?.();
        if (snapshotTimer !== undefined) win.clearTimeout(snapshotTimer);
        if (settleTimer !== undefined) win.clearTimeout(settleTimer);
        outgoing.destroy();
        indicator?.remove();
        config = null;
        coachingControls = [];
      });
    },
    coachingRead(highlight) {
      // Only while this page is recorded: the boundary knows the site's typed values then.
      if (config === null) return null;
      const { read, elements } = readForCoaching({ document: win.document, boundary, highlight, previous: coachingControls });
      coachingControls = elements;
      return read;
    },
    get observing() {
      return observer !== undefined;
    },
    get snapshotReads() {
      return snapshotReads;
    },
  };
}
