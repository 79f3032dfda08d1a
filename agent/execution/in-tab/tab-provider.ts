import type { BrowserLease, BrowserProvider, LeaseStop } from "../contract/executor-contract";
import { TabRunRefused, type TabRelay } from "./tab-relay";
import { createTabTransport } from "./tab-transport";
import type { UserTabProvider } from "./user-tab-provider";

export interface UserTabProviderDeps {
  relay: TabRelay;
  /**
   * The tab was taken back during a run (Stop in the page, Chrome's Cancel, tab closed or gone
   * off-site, link lost): the run must end at once. The app wires this to the run's cancel.
   */
  onStop?: (dispatchId: string, stop: LeaseStop) => void;
}

/** Time for puppeteer to see the lent page once the extension has attached. */
const PAGE_WAIT_MS = 10_000;

/**
 * "In my browser" (issue #21): a puppeteer `Browser` and `Page` on one tab of the person's
 * Chrome, lent by the extension over its WebSocket. The page is the tab as it is (no viewport
 * override: it is the person's window); `release` hands it back and never closes it.
 */
export function createUserTabProvider(deps: UserTabProviderDeps): UserTabProvider {
  const lease =
    (request: Parameters<UserTabProvider["lease"]>[0]): BrowserProvider =>
    async ({ deadline }) => {
      const sites = allowListOfRunSites(request.allowed_domains);
      if (sites.length === 0) throw new TabRunRefused("SITE_NOT_ALLOWED", "An in-tab run needs at least one site it may touch.");
      const channel = await deps.relay.open({
        tabId: request.tab_id,
        allowedSites: sites,
        label: request.label ?? "an ability",
        coachingSessionId: request.coaching_session_id,
        deadline,
      });
      const stopListeners: Array<(stop: LeaseStop) => void> = [];
      if (deps.onStop !== undefined) {
        const onStop = deps.onStop;
        stopListeners.push((stop) => onStop(request.dispatch_id, stop));
      }
      let released = false;
      channel.onEnded((end) => {
        if (released || end.reason === "released") return;
        const stop: LeaseStop = { reason: end.reason, message: end.message };
        for (const listener of stopListeners.splice(0)) listener(stop);
      });
      try {
        // Loaded by the first run, not at agent start (issue 17).
        const { default: puppeteer } = await import("puppeteer-core");
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
        const leased: BrowserLease = {
          where: "user_tab",
          browser,
          page,
          readRecorded: (highlight) => channel.readRecorded(highlight),
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
        return leased;
      } catch (error) {
        await channel.release().catch(() => undefined);
        if (error instanceof TabRunRefused) throw error;
        const ended = channel.ended();
        throw new TabRunRefused(
          "ATTACH_FAILED",
          ended === undefined ? `The lent tab could not be driven: ${firstLine(error)}` : `The tab was taken back: ${ended.message}.`,
        );
      }
    };
  return { connected: () => deps.relay.connected(), lease };
}

/**
 * A run's sites (host names, with a port or not: `127.0.0.1:8123`, `shop.example.com`) as the
 * extension's allow-list entries (shared/observation/site-allowlist), which both the agent's
 * transport and the extension check the tab against. A bare host also covers its subdomains, as
 * the run's policy reads it (policy-guard `hostAllowed`); unlike that policy, a bare host means its
 * default ports only — in the person's own tab the narrower reading wins.
 */
export function allowListOfRunSites(domains: readonly string[]): string[] {
  const entries = new Set<string>();
  for (const raw of domains) {
    const site = raw
      .trim()
      .toLowerCase()
      .replace(/^\*?\./, "");
    if (site === "") continue;
    entries.add(site);
    if (!/:\d+$/.test(site) && !/^\d+\.\d+\.\d+\.\d+$/.test(site)) entries.add(`*.${site}`);
  }
  return [...entries];
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
}
