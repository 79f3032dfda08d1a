import type { ErrorGuard } from "../common/error-guard";

/**
 * Work that is not needed before the page's next frame or the person's next action (the settled
 * snapshot, its hash, handing finished events over; issue #32) runs when the page's main thread is
 * idle, at most `timeoutMs` late, and at once when asked (`runNow`): before the next input, when
 * the page is left, paused or flushed. Nothing leaves the page on this path without the privacy
 * boundary: only *when* the work runs changes, not what it does.
 */
export interface IdleWork {
  /** Asks for one run in idle time (one pending run at most). */
  request(): void;
  /** Whether a run was asked for and has not happened yet. */
  readonly pending: boolean;
  /** Runs the pending work now, if any (in order: before whatever comes next). */
  runNow(): void;
  /** Forgets the pending run. */
  cancel(): void;
}

export function createIdleWork(win: Window, guard: ErrorGuard, work: () => void, timeoutMs: number): IdleWork {
  let handle: { idle: number } | { timer: number } | undefined;

  const cancel = (): void => {
    if (handle === undefined) return;
    if ("idle" in handle) win.cancelIdleCallback(handle.idle);
    else win.clearTimeout(handle.timer);
    handle = undefined;
  };
  const run = guard.wrap(() => {
    if (handle === undefined) return;
    handle = undefined;
    work();
  });

  return {
    request() {
      if (handle !== undefined) return;
      handle =
        typeof win.requestIdleCallback === "function" ? { idle: win.requestIdleCallback(run, { timeout: timeoutMs }) } : { timer: win.setTimeout(run, 0) };
    },
    get pending() {
      return handle !== undefined;
    },
    runNow() {
      if (handle === undefined) return;
      cancel();
      guard.run(work);
    },
    cancel,
  };
}
