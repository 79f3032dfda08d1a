import type { ErrorGuard } from "../common/error-guard";

/**
 * Work that is not needed before the page's next frame or the person's next action (the settled
 * snapshot, its hash, handing finished events over; issue #32) runs when the page's main thread is
 * idle, at most `timeoutMs` late, and at once when asked (`runNow`): before the next input, when
 * the page is left, paused or flushed. Nothing leaves the page on this path without the privacy
 * boundary: only *when* the work runs changes, not what it does.
 */
export interface IdleWork {
  /**
   * Asks for one run in idle time (one pending run at most), not before `notBefore` (a
   * `performance.now()` time; a later ask moves it): a debounce that waits in idle callbacks
   * rather than in a timer, which would run on the path of whatever the page does next.
   */
  request(notBefore?: number): void;
  /** Whether a run was asked for and has not happened yet (due or not). */
  readonly pending: boolean;
  /** Whether the pending run is due (its `notBefore` has passed). */
  readonly due: boolean;
  /** Runs the pending work now if it is due (in order: before whatever comes next). */
  runNow(): void;
  /** Runs the pending work now, due or not (a flush). */
  runPending(): void;
  /** Forgets the pending run. */
  cancel(): void;
}

export function createIdleWork(win: Window, guard: ErrorGuard, work: () => void, timeoutMs: number): IdleWork {
  /** A run was asked for and has not happened. */
  let wanted = false;
  /** Not before this `performance.now()` time. */
  let dueAt = 0;
  /**
   * An idle callback (or timer) is registered and has not fired. It is left to fire when the run
   * happens sooner or is forgotten, and then does nothing: cancelling it costs the page more than
   * letting it come (`cancelIdleCallback` was 0.1 ms a call in the recorder bench's profile).
   */
  let registered = false;

  const register = (): void => {
    if (registered) return;
    registered = true;
    const wait = Math.max(0, dueAt - win.performance.now());
    if (typeof win.requestIdleCallback === "function") win.requestIdleCallback(fired, { timeout: wait + timeoutMs });
    else win.setTimeout(fired, wait);
  };
  const fired = guard.wrap(() => {
    registered = false;
    if (!wanted) return;
    // Idle before it is due: asked again, for a later idle period.
    if (win.performance.now() < dueAt) return register();
    wanted = false;
    work();
  });
  const run = (): void => {
    wanted = false;
    guard.run(work);
  };

  return {
    request(notBefore = 0) {
      dueAt = notBefore;
      wanted = true;
      register();
    },
    get pending() {
      return wanted;
    },
    get due() {
      return wanted && win.performance.now() >= dueAt;
    },
    runNow() {
      if (wanted && win.performance.now() >= dueAt) run();
    },
    runPending() {
      if (wanted) run();
    },
    cancel() {
      wanted = false;
    },
  };
}
