import { cleanText } from "../names/accessible-name";
import type { ErrorGuard } from "../common/error-guard";
import type { PrivacyBoundary } from "../privacy/privacy-boundary";
import { MAX_NAME_IN_LABEL, quoted, type ObserverState } from "./observer-state";

/**
 * Navigation, all of it in one place (issue #35):
 * - `observeNavigation`: the page's address changes within the document ("Open '…'"): the
 *   Navigation API sees pushState/replaceState from the isolated world; popstate and hashchange
 *   back it up; a page back from the back/forward cache is opened again; a fresh load or the first
 *   start on a page is opened once.
 * - `observePageLeaving`: the page is being left (a form that posts, a link, `location` set in a
 *   handler, back/forward, a closed tab) or hidden, and comes back: content-capture.ts delivers
 *   what it holds at once when told.
 */

/** The Navigation API (Chrome 102+) is not in TypeScript's DOM library yet; only its events are used. */
type NavigationApi = EventTarget;

export interface NavigationObserver {
  stop(): void;
  /** The page came back from the back/forward cache (no load, no script start): "Open" it again. */
  reopened(): void;
  /** The top URL last reported, so a restart knows whether the page changed meanwhile. */
  readonly lastUrl: string;
}

export function observeNavigation(state: ObserverState, options: { emitInitialNavigation: boolean }): NavigationObserver {
  const { top, boundary, guard } = state;
  const controller = new AbortController();
  const { signal } = controller;
  let lastUrl = top.location.href;

  const onUrlMaybeChanged = (): void => {
    const href = top.location.href;
    if (href === lastUrl) return;
    const hashOnly = withoutHash(href) === withoutHash(lastUrl);
    lastUrl = href;
    const hash = hashOnly ? new URL(boundary.url(href) || "about:blank").hash.slice(0, 60) : "";
    state.observe("navigation", navigationLabel(top, hash, boundary), undefined);
  };

  const navigation = (top as Window & { navigation?: NavigationApi }).navigation;
  if (navigation !== undefined) {
    state.listen(navigation, "currententrychange", onUrlMaybeChanged, signal);
  } else {
    // No Navigation API (older browsers): a cheap poll catches pushState/replaceState without a main-world hook.
    const timer = top.setInterval(guard.wrap(onUrlMaybeChanged), 500);
    signal.addEventListener("abort", () => top.clearInterval(timer));
  }
  state.listen(top, "popstate", onUrlMaybeChanged, signal);
  state.listen(top, "hashchange", onUrlMaybeChanged, signal);
  if (options.emitInitialNavigation) state.observe("navigation", navigationLabel(top, "", boundary), undefined);

  return {
    stop: () => controller.abort(),
    reopened() {
      lastUrl = top.location.href;
      state.observe("navigation", navigationLabel(top, "", boundary), undefined);
    },
    get lastUrl() {
      return lastUrl;
    },
  };
}

export interface PageLeavingHandlers {
  /** A navigation of the page starts, or it hid (`final`: pagehide, the page will not run again as it is). */
  leaving(final: boolean): void;
  /** The page is shown again (visible again, or back from the back/forward cache: `restored`). */
  back(restored: boolean): void;
}

/** Listens for the page being left, hidden and shown again; returns the stop function. */
export function observePageLeaving(win: Window, guard: ErrorGuard, handlers: PageLeavingHandlers): () => void {
  const controller = new AbortController();
  const options = { capture: true, signal: controller.signal };
  win.document.addEventListener(
    "visibilitychange",
    guard.wrap(() => {
      if (win.document.visibilityState === "hidden") handlers.leaving(false);
      else handlers.back(false);
    }),
    options,
  );
  // A navigation of this page starts (a form that posts, a link, `location` set in a handler, back/forward).
  win.addEventListener(
    "beforeunload",
    guard.wrap(() => handlers.leaving(false)),
    options,
  );
  win.addEventListener(
    "pagehide",
    guard.wrap(() => handlers.leaving(true)),
    options,
  );
  win.addEventListener(
    "pageshow",
    guard.wrap((event: Event) => {
      if ((event as PageTransitionEvent).persisted) handlers.back(true);
    }),
    options,
  );
  return () => controller.abort();
}

/** "Open 'Orders'": the page's title once it has settled (scrubbed, as every title), else its masked path. */
function navigationLabel(top: Window, hash: string, boundary: PrivacyBoundary): (settledTitle: string) => string {
  return (settledTitle) => {
    const title = cleanText(boundary.text(settledTitle), MAX_NAME_IN_LABEL);
    const path = (() => {
      try {
        return new URL(boundary.url(top.location.href)).pathname;
      } catch {
        return "";
      }
    })();
    const page = quoted(title || path, "the page");
    return hash ? `Open ${page} at ${quoted(hash)}` : `Open ${page}`;
  };
}

function withoutHash(url: string): string {
  const index = url.indexOf("#");
  return index < 0 ? url : url.slice(0, index);
}
