import type { DomObserver } from "../observers/dom-observer";
import { nameSnapshot, snapshotText } from "../snapshot/snapshot-json";
import { readPageSnapshot } from "../snapshot/snapshot-observer";
import type { CaptureState } from "./capture-state";
import type { HeldEvents, SnapshotHandle } from "./held-events";
import { createIdleWork } from "./idle-work";
import { heldSnapshot } from "./observed-events";
import { checksWholeText } from "../selectors/text-selector";

/**
 * Snapshots of the page during a capture (../content-capture.ts): debounced after actions (taken
 * `snapshotDelayMs` after the last one), then once more `settleDelayMs` later, so the agent can
 * tell a lasting change from one that went away (issue #14); each distinct one is reported once.
 *
 * A snapshot is read only when the page may have changed since the last one: the page index's
 * change count (any DOM change in the observed roots, a root coming or going, a toggle, a resize)
 * or the URL moved, or a value typed since then occurs in the last snapshot's text (it must be cut
 * out). Otherwise the last snapshot is the after-state, as reading it again would have given.
 *
 * Once due, a snapshot is read in the page's idle time (issue #32: not on the path of the person's
 * next action or the page's next frame), at most `IDLE_TIMEOUT_MS` late, and at once — before
 * anything else happens — when the person starts another action (a pointer pressed, a key, focus
 * moving), when the page is left or hidden, paused, stopped or flushed: it
 * describes the page as it settled, never the next action's page or the next document.
 */

export interface CaptureSnapshots {
  /** The last snapshot taken (the before-state of the next action). */
  readonly latest: SnapshotHandle | undefined;
  /** How many times the page was read for a snapshot. */
  readonly reads: number;
  /** An action came: the debounced snapshot is due `snapshotDelayMs` from now. */
  schedule(): void;
  /** Takes the pending snapshot now (the events waiting for their after-state get it). */
  takeNow(): void;
  /** A snapshot that is due but waits for idle time is taken now (another action starts, the page is left). */
  takeDue(): void;
  /** Works out the page's names in idle time after start (see `warmNames`). */
  warm(observer: DomObserver): void;
  /** No settled-page snapshot (capture pauses or stops). */
  stopSettling(): void;
  /** No snapshot timer left (the page is being left, or the capture is destroyed). */
  stopTimers(): void;
  /** A later session on this page takes its own snapshots. */
  forget(): void;
  /** Stops listening for the person's next action (the capture is destroyed). */
  destroy(): void;
}

export interface SnapshotTiming {
  snapshotDelayMs: number;
  settleDelayMs: number;
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

/** Idle slices that work out the page's names after start, and how long the first snapshot waits for them at most. */
const WARM_SLICE_MS = 8;
const WARM_WAIT_MS = 16;
const WARM_LIMIT_MS = 1000;
/** How late a due snapshot may be read when the page is never idle. */
const IDLE_TIMEOUT_MS = 200;
/**
 * The first events of a person's next action (a drag and a paste from the menu start with a
 * pointer pressed): a due snapshot is read before them (window, capture phase: before the page's
 * own listeners below it). A mouse press, a touch and a pen all start with `pointerdown` (the
 * `mousedown` after it, and the `focusin` a press or a Tab brings, come later in the same action).
 * Keys are pressed far more often than a read is due: `keydown` is listened to only while one is
 * (issue #32), so a word typed calls no listener of ours but the keyboard observer's.
 */
const PRESS_EVENT = "pointerdown";
const KEY_EVENT = "keydown";

/** The last snapshot, what it was read from, and how many times the page was read. */
interface SnapshotMemory {
  latest: SnapshotHandle | undefined;
  basis: SnapshotBasis | undefined;
  reads: number;
}

interface Warming {
  done: boolean;
  until: number;
}

/** The roles whose change (a ticked box, a picked option) changes no node: the page must be read again. */
const TOGGLING_ROLES = ["checkbox", "radio", "switch"];

export function createCaptureSnapshots(state: CaptureState, held: HeldEvents, timing: SnapshotTiming): CaptureSnapshots {
  const { win } = state;
  const memory: SnapshotMemory = { latest: undefined, basis: undefined, reads: 0 };
  let warming: Warming | undefined;
  /** The names are being worked out in idle time: the snapshot waits for them (a little). */
  const waitingForNames = (): boolean => warming !== undefined && !warming.done && win.performance.now() < warming.until;
  const reads = createIdleReads(state, held, memory, timing, waitingForNames);

  return {
    get latest() {
      return memory.latest;
    },
    get reads() {
      return memory.reads;
    },
    schedule() {
      reads.stopSettleTimer();
      // Debounced: due `snapshotDelayMs` after the last action, then read in idle time.
      reads.requestDue(win.performance.now() + timing.snapshotDelayMs);
    },
    takeNow() {
      if (reads.pending) reads.takeAll();
      else takeSnapshot(state, held, memory);
    },
    takeDue: reads.takeDue,
    warm(observer) {
      warming = warmNames(state, observer, (current) => warming === current);
    },
    stopSettling: reads.stopSettling,
    stopTimers() {
      reads.cancel();
    },
    forget() {
      memory.latest = undefined;
      memory.basis = undefined;
    },
    destroy: reads.destroy,
  };
}

/** The snapshot reads that wait for idle time once due, and what takes them at once. */
interface IdleReads {
  /** The debounced snapshot, due at `dueAt`: read in idle time from then, then the settled page's a little later. */
  requestDue(dueAt: number): void;
  /** Whether a read was asked for and has not been taken (due or not). */
  readonly pending: boolean;
  /** Due reads are taken now, in the order they became due. */
  takeDue(): void;
  /** Every read asked for is taken now, due or not (a flush). */
  takeAll(): void;
  /** The settled page's timer is stopped (another action came); a settled read already due stays due. */
  stopSettleTimer(): void;
  /** No settled-page read: neither its timer nor a due one. */
  stopSettling(): void;
  /** No read left at all. */
  cancel(): void;
  /** Stops listening for the person's next action. */
  destroy(): void;
}

function createIdleReads(state: CaptureState, held: HeldEvents, memory: SnapshotMemory, timing: SnapshotTiming, waitingForNames: () => boolean): IdleReads {
  const { win, guard } = state;
  let settleTimer: number | undefined;
  const input = new AbortController();
  /** The key listener, there while a read is due. */
  let keys: AbortController | undefined;
  const listenForKeys = (): void => {
    if (keys !== undefined || input.signal.aborted) return;
    keys = new AbortController();
    win.addEventListener(KEY_EVENT, takeDue, { capture: true, passive: true, signal: keys.signal });
  };
  const stopKeysUnlessDue = (): void => {
    if (keys === undefined || dueRead.pending || settledRead.pending) return;
    keys.abort();
    keys = undefined;
  };

  const stopSettleTimer = (): void => {
    if (settleTimer !== undefined) win.clearTimeout(settleTimer);
    settleTimer = undefined;
  };
  /** The debounced snapshot, once due, then the settled page's read `settleDelayMs` later. */
  const readDue = (): void => {
    takeSnapshot(state, held, memory);
    readTextAhead(state);
    // The settled page: reported (as a snapshot event) only if it changed meanwhile.
    stopSettleTimer();
    settleTimer = win.setTimeout(onSettleTimer, timing.settleDelayMs);
    stopKeysUnlessDue();
  };
  const dueRead = createIdleWork(win, guard, () => (waitingForNames() ? dueRead.request(win.performance.now() + WARM_WAIT_MS) : readDue()), IDLE_TIMEOUT_MS);
  const settledRead = createIdleWork(
    win,
    guard,
    () => {
      takeSnapshot(state, held, memory);
      readTextAhead(state);
      held.pumpSoon();
      stopKeysUnlessDue();
    },
    IDLE_TIMEOUT_MS,
  );
  const onSettleTimer = guard.wrap(() => {
    settleTimer = undefined;
    // A field still being typed into: what the page shows now (an autocomplete's options) is the
    // coming Fill's doing, not the action before it; the settled page waits for the edit.
    if (state.observer?.editing() === true) {
      settleTimer = win.setTimeout(onSettleTimer, timing.settleDelayMs);
      return;
    }
    settledRead.request();
    listenForKeys();
  });

  function takeDue(): void {
    settledRead.runNow();
    dueRead.runNow();
    stopKeysUnlessDue();
  }
  /** A flush: the settled read if one waits, and the debounced one at once (a read not yet due is a plain read, with no settled read after it). */
  const takeAll = (): void => {
    settledRead.runPending();
    if (dueRead.pending) {
      const due = dueRead.due;
      dueRead.cancel();
      if (due) guard.run(readDue);
      else guard.run(() => takeSnapshot(state, held, memory));
    }
    stopKeysUnlessDue();
  };
  // Each read runs only when pending (`IdleWork.runNow`): nothing to do on an action with none due.
  win.addEventListener(PRESS_EVENT, takeDue, { capture: true, passive: true, signal: input.signal });

  return {
    requestDue(dueAt) {
      dueRead.request(dueAt);
      listenForKeys();
    },
    get pending() {
      return dueRead.pending || settledRead.pending;
    },
    takeDue,
    takeAll,
    stopSettleTimer,
    stopSettling() {
      stopSettleTimer();
      settledRead.cancel();
      stopKeysUnlessDue();
    },
    cancel() {
      stopSettleTimer();
      settledRead.cancel();
      dueRead.cancel();
      stopKeysUnlessDue();
    },
    destroy() {
      input.abort();
      keys?.abort();
      keys = undefined;
    },
  };
}

/**
 * The page's whole text, read with the settled page (in idle time, most often) for the next
 * click's text selector check (selectors/text-selector.ts): it is read again only if the page
 * changes before that click.
 */
function readTextAhead(state: CaptureState): void {
  const { observer, win } = state;
  if (observer !== undefined && checksWholeText(win.document)) observer.index.wholeText(win.document);
}

/** Takes a snapshot for the events waiting for their after-state, or gives them the last one if it still holds. */
function takeSnapshot(state: CaptureState, held: HeldEvents, memory: SnapshotMemory): void {
  const { config, observer } = state;
  if (config === null || observer === undefined) return;
  const scrub = observer.scrubber();
  const { basis } = memory;
  // Ticking a box or picking a radio option changes no node: the page is read again so the
  // snapshot's control states (issue #14) follow it.
  const mayToggle = held.awaitingAfter().some((entry) => TOGGLING_ROLES.includes(entry.event.browser_detail?.target_role ?? ""));
  if (basis !== undefined && !mayToggle && lastSnapshotHolds(state, basis, memory.latest, observer, scrub)) {
    held.giveAfter(basis.handle);
    held.pumpSoon();
    return;
  }
  const previous = memory.latest;
  const handle: SnapshotHandle = { done: false, taken: undefined };
  memory.latest = handle;
  held.giveAfter(handle);
  held.holdSnapshot(heldSnapshot(config, state.newId(), previous, handle));
  memory.reads += 1;
  memory.basis = readSnapshot(state, held, observer, handle, scrub);
}

/** True when the last snapshot still describes the page, as read with `scrub` now. */
function lastSnapshotHolds(
  state: CaptureState,
  basis: SnapshotBasis,
  latest: SnapshotHandle | undefined,
  current: DomObserver,
  scrub: (text: string) => string,
): boolean {
  if (basis.handle !== latest || basis.observer !== current) return false;
  if (basis.changeCount !== current.index.changeCount || basis.url !== state.win.location.href) return false;
  if (basis.scrub !== scrub) {
    // New typing: the page did not change, but a value typed now may already have been on it (or in its URL).
    const text = basis.text();
    if (scrub(text) !== text || state.boundary.url(basis.url) !== basis.maskedUrl) return false;
    basis.scrub = scrub;
  }
  return true;
}

/**
 * Reads the page now (one consistent DOM) into `handle`, named by its hash asynchronously; returns
 * what it was read from, or undefined when reading failed (the events waiting for it go without).
 */
function readSnapshot(
  state: CaptureState,
  held: HeldEvents,
  observer: DomObserver,
  handle: SnapshotHandle,
  scrub: (text: string) => string,
): SnapshotBasis | undefined {
  const { win, boundary, guard } = state;
  const changeCount = observer.index.changeCount;
  const url = win.location.href;
  let read: ReturnType<typeof readPageSnapshot>;
  try {
    read = readPageSnapshot({ window: win, source: observer.index, scrub, sanitize: boundary.snapshot, maskedUrl: boundary.url(url) });
  } catch (error) {
    // A bug of ours: the events waiting for this snapshot go without it.
    guard.report(error);
    handle.done = true;
    held.pump();
    return undefined;
  }
  const { snapshot, json } = read;
  let text: string | undefined;
  const basis: SnapshotBasis = { handle, observer, changeCount, url, maskedUrl: snapshot.url, scrub, text: () => (text ??= snapshotText(snapshot)) };
  void state.track(
    nameSnapshot(snapshot, json)
      .then((taken) => {
        handle.taken = taken;
      })
      .catch(guard.report)
      .finally(() => {
        handle.done = true;
        held.pumpSoon();
      }),
  );
  return basis;
}

/**
 * After start, the names of the page's buttons and links (what the first snapshot reads most of:
 * 1,600 "Favourite" buttons are named one by one before they are found to share a name) are
 * worked out in idle slices, so the first snapshot is not one long task on a large page. The
 * debounced snapshot waits for them, at most `WARM_LIMIT_MS` after start; names are only cached
 * (page-index.ts forgets them when the page changes), so what the snapshot says is the same.
 * The slices stop when the observer is replaced or `isCurrent` says another warming took over.
 */
function warmNames(state: CaptureState, current: DomObserver, isCurrent: (warming: Warming) => boolean): Warming {
  const { win, guard } = state;
  const queue: Element[] = [];
  for (const root of current.index.roots()) queue.push(...current.index.elements(root, "buttons"), ...current.index.elements(root, "links"));
  const warming: Warming = { done: false, until: win.performance.now() + WARM_LIMIT_MS };
  let next = 0;
  const slice = guard.wrap(() => {
    if (state.observer !== current || !isCurrent(warming)) return;
    const stop = win.performance.now() + WARM_SLICE_MS;
    while (next < queue.length) {
      const element = queue[next++]!;
      if (element.isConnected) current.index.names.name(element);
      if (next % 32 === 0 && win.performance.now() >= stop) break;
    }
    if (next < queue.length) schedule();
    else warming.done = true;
  });
  const schedule = (): void => {
    if (typeof win.requestIdleCallback === "function") win.requestIdleCallback(slice, { timeout: WARM_WAIT_MS * 4 });
    else win.setTimeout(slice, 0);
  };
  schedule();
  return warming;
}
