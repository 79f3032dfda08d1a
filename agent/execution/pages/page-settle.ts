import type { Page } from "puppeteer-core";
import { sleep } from "../contract/execution-util";

/**
 * Waiting for a page to settle before a rehearsal reads what a checkpoint compares. Real apps load
 * their lists after the page's `load` (a fetch, then a render) and re-render them item by item;
 * read half-way, a list's count is neither the one before nor the one after. A page has settled
 * when no request of its own is under way and its DOM has not changed for a quiet moment. The
 * wait is bounded: a page that never settles (a ticking clock, a long poll) is read when time is up.
 */

/** How long nothing may happen (no request, no DOM change) for the page to count as settled. */
export const SETTLE_QUIET_MS = 300;

/**
 * Runs in the page, as source text (a function compiled by tsx carries helpers the page lacks):
 * resolves true once the document has loaded and its DOM stayed unchanged for `quiet` ms, false
 * when `max` ms pass first.
 */
const DOM_QUIET_SCRIPT = (quietMs: number, maxMs: number) => `new Promise((resolve) => {
  const start = performance.now();
  let last = start;
  const observer = new MutationObserver(() => { last = performance.now(); });
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  const tick = () => {
    const now = performance.now();
    if (document.readyState === "complete" && now - last >= ${quietMs}) { observer.disconnect(); resolve(true); return; }
    if (now - start >= ${maxMs}) { observer.disconnect(); resolve(false); return; }
    setTimeout(tick, ${Math.max(10, Math.min(50, Math.floor(quietMs / 3)))});
  };
  tick();
})`;

export interface SettleOptions {
  /** The most the wait may take, in ms. */
  maxMs: number;
  quietMs?: number;
}

/**
 * Waits until the page has settled (see the top of this file), at most `maxMs`; true when it did.
 * A page between documents (a navigation under way) is waited for too.
 */
export async function waitForSettledPage(page: Page, options: SettleOptions): Promise<boolean> {
  const quietMs = options.quietMs ?? SETTLE_QUIET_MS;
  const deadline = Date.now() + Math.max(0, options.maxMs);
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    // The network first: a list fetched late changes the DOM only once its response is in.
    const networkIdle = await page.waitForNetworkIdle({ idleTime: quietMs, timeout: left, concurrency: 0 }).then(
      () => true,
      () => false,
    );
    if (!networkIdle) return false;
    const domLeft = deadline - Date.now();
    if (domLeft <= 0) return false;
    const quiet = (await page
      .mainFrame()
      .evaluate(DOM_QUIET_SCRIPT(quietMs, domLeft))
      .catch(() => undefined)) as boolean | undefined;
    // Undefined: the document went away mid-wait (a navigation); wait for the next one.
    if (quiet === true) return true;
    if (quiet === false) return false;
    await sleep(Math.min(50, quietMs));
  }
}
