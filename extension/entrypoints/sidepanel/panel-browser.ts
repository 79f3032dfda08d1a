import { browser } from "wxt/browser";
import type { PanelBrowser } from "../../../shared/observation/panel-browser";
import { siteFromUrl } from "../../../shared/observation/site-allowlist";
import { CaptureStatusReplySchema, EnsureConnectedReplySchema, type PanelRequest } from "../../../shared/observation/panel-messages";
import { originPatternsForAllowList } from "../../background/capture/site-permissions";
import { allowInTabRuns, tabRunAccess } from "./tab-run-access";
import { watchRunFocus } from "./run-focus";

async function ask(request: PanelRequest): Promise<unknown> {
  try {
    return await browser.runtime.sendMessage(request);
  } catch {
    // No background listening (worker failed to start): the caller shows it as unavailable.
    return undefined;
  }
}

/**
 * The side panel's browser: the current tab, site access at Start, and the background's status,
 * each answer parsed (STYLE habit 3).
 */
export const extensionPanelBrowser: PanelBrowser = {
  async currentTabUrl() {
    const [active] = await browser.tabs.query({ active: true, lastFocusedWindow: true });
    if (siteFromUrl(active?.url) !== undefined) return active?.url;
    // The panel opened as a tab is itself the active tab: take the page the person came from.
    const tabs = await browser.tabs.query({ lastFocusedWindow: true });
    const recent = tabs.filter((tab) => siteFromUrl(tab.url) !== undefined).sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
    return recent[0]?.url;
  },

  requestSiteAccess(sites) {
    const origins = originPatternsForAllowList(sites);
    if (origins.length === 0) return Promise.resolve(true);
    // Called first thing in the Start click: Chrome only shows its prompt during a user gesture.
    return browser.permissions.request({ origins }).catch(() => false);
  },

  async ensureConnected(timeoutMs) {
    const reply = EnsureConnectedReplySchema.safeParse(await ask({ type: "capture/ensure-connected", timeout_ms: timeoutMs }));
    return reply.success ? reply.data.connection : "no_background";
  },

  async captureStatus() {
    const reply = CaptureStatusReplySchema.safeParse(await ask({ type: "capture/status" }));
    return reply.success ? reply.data : null;
  },

  tabRunAccess: () => tabRunAccess(),
  allowInTabRuns: (allowed) => allowInTabRuns(allowed),
  watchRunFocus: (onFocus) => watchRunFocus(onFocus, () => new Date()),
};
