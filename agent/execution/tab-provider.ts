import puppeteer from "puppeteer-core";
import type { BrowserLease, BrowserProvider, LeaseStop } from "./executor-contract";
import { TabRunRefused, type TabRelay } from "./tab-relay";
import { createTabTransport } from "./tab-transport";

/** What one in-tab run asks for: the tab (or a new one), its sites, and what the page's bar says. */
export interface UserTabRequest {
  /** The person's tab to act in; a new tab when absent. */
  tab_id?: number | undefined;
  /** Allow-list entries: the ability's sites and those the person allowed for this run. */
  allowed_sites: readonly string[];
  /** The ability's title, shown in the in-page bar. */
  label: string;
}

/** Given to the runs service: a `BrowserProvider` for one `where: "user_tab"` run. */
export type UserTabProvider = (request: UserTabRequest) => BrowserProvider;

/** Time for puppeteer to see the lent page once the extension has attached. */
const PAGE_WAIT_MS = 10_000;

/**
 * "In my browser" (issue #21): a puppeteer `Browser` and `Page` on one tab of the person's
 * Chrome, lent by the extension over its WebSocket. The page is the tab as it is (no viewport
 * override: it is the person's window); `release` hands it back and never closes it.
 */
export function createUserTabProvider(deps: { relay: TabRelay }): UserTabProvider {
  return (request) =>
    async ({ deadline }) => {
      const sites = request.allowed_sites.filter((site) => site.trim() !== "");
      if (sites.length === 0) throw new TabRunRefused("SITE_NOT_ALLOWED", "An in-tab run needs at least one site it may touch.");
      const channel = await deps.relay.open({ tabId: request.tab_id, allowedSites: sites, label: request.label, deadline });
      const stopListeners: Array<(stop: LeaseStop) => void> = [];
      let released = false;
      channel.onEnded((end) => {
        if (released || end.reason === "released") return;
        const stop: LeaseStop = { reason: end.reason, message: end.message };
        for (const listener of stopListeners.splice(0)) listener(stop);
      });
      try {
        const browser = await puppeteer.connect({
          transport: createTabTransport({ channel, allowedSites: sites }),
          defaultViewport: null,
          protocolTimeout: 30_000,
        });
        const target = await browser.waitForTarget((candidate) => candidate.type() === "page", {
          timeout: Math.max(1_000, Math.min(PAGE_WAIT_MS, deadline - Date.now())),
        });
        const page = await target.page();
        if (page === null) throw new TabRunRefused("ATTACH_FAILED", "The lent tab has no page puppeteer can drive.");
        const lease: BrowserLease = {
          where: "user_tab",
          browser,
          page,
          async release() {
            if (released) return;
            released = true;
            stopListeners.length = 0;
            await browser.disconnect().catch(() => undefined);
            await channel.release().catch(() => undefined);
          },
          onStop(listener) {
            const ended = channel.ended();
            if (ended !== undefined && ended.reason !== "released") listener({ reason: ended.reason, message: ended.message });
            else if (!released) stopListeners.push(listener);
          },
        };
        return lease;
      } catch (error) {
        await channel.release().catch(() => undefined);
        if (error instanceof TabRunRefused) throw error;
        const ended = channel.ended();
        throw new TabRunRefused("ATTACH_FAILED", ended === undefined ? `The lent tab could not be driven: ${firstLine(error)}` : `The tab was taken back: ${ended.message}.`);
      }
    };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
}
