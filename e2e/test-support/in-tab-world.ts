import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { expect } from "vitest";
import type { Browser } from "wxt/browser";
import { buildApp } from "../../agent/app/app";
import type { BrowserLease } from "../../agent/execution/contract/executor-contract";
import { TabRunRefused } from "../../agent/execution/in-tab/tab-relay";
import { openMemoryStore, type MemoryStore } from "../../agent/memory/memory-store";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import type { TabRunAccessReply } from "../../shared/observation/panel-messages";
import { launchExtensionBrowser, pairPanel, type ExtensionBrowser } from "./extension-browser";

/**
 * What an "in my browser" e2e (issue #21) runs against: the agent in-process (listening on a real
 * loopback port) so a test can hold the user-tab provider the runs service is given, Chromium with
 * the built extension and its side panel paired, and three sites on loopback: the allowed one (a
 * profile form; `/offers` embeds a partner widget), another one, and the widget's own (on
 * localhost, another site than 127.0.0.1).
 */

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

export interface InTabWorld {
  app: Awaited<ReturnType<typeof buildApp>>;
  memory: MemoryStore;
  chromium: ExtensionBrowser;
  /** The side panel; a test that closes it opens another and puts it here. */
  panel: Page;
  allowed: string;
  other: string;
  /** What the other site was asked for. */
  otherHits: string[];
  /** A partner widget's server, on another site (localhost, not 127.0.0.1): what it was asked for. */
  widgetHits: string[];
  widgetSite: string;
  close(): Promise<void>;
}

const FORM_PAGE = (otherOrigin: string) => `<!doctype html><html><head><title>Profile</title></head><body>
<h1>Edit profile</h1>
<label>Display name <input id="name" name="display_name"></label>
<button type="button" id="save" onclick="document.getElementById('result').textContent = 'Saved ' + document.getElementById('name').value">Save</button>
<p id="result"></p>
<a id="away" href="${otherOrigin}/elsewhere">Somewhere else</a>
</body></html>`;

/** A page of the allowed site that embeds a widget of another site, whose button tells its server when clicked. */
const OFFERS_PAGE = (widget: string) => `<!doctype html><html><head><title>Offers</title></head><body><h1>Partner offers</h1>
<iframe src="${widget}/widget" title="Partner newsletter"></iframe></body></html>`;
const WIDGET_PAGE = `<!doctype html><html><head><title>Widget</title></head><body><p id="status">Partner widget ready</p>
<button type="button" id="subscribe" onclick="fetch('/clicked'); document.getElementById('status').textContent = 'You are subscribed'">Subscribe</button></body></html>`;

export async function startInTabWorld(): Promise<InTabWorld> {
  const servers: http.Server[] = [];
  const serve = async (handler: http.RequestListener): Promise<string> => {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const { root, cleanup } = await makeTempMemoryRoot("elnor-in-tab-");
  const memory = await openMemoryStore({ root });
  const app = await buildApp({ memory, port: 0 });
  const agentUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  const otherHits: string[] = [];
  const widgetHits: string[] = [];
  const other = await serve((request, response) => {
    otherHits.push(request.url ?? "");
    response.setHeader("content-type", "text/html");
    response.end("<!doctype html><title>Elsewhere</title><h1>Another site</h1>");
  });
  const widgetOrigin = await serve((request, response) => {
    widgetHits.push(`${request.method ?? "GET"} ${request.url ?? ""}`);
    response.setHeader("content-type", "text/html");
    response.end(WIDGET_PAGE);
  });
  const widgetSite = widgetOrigin.replace("127.0.0.1", "localhost");
  const allowed = await serve((request, response) => {
    response.setHeader("content-type", "text/html");
    response.end(request.url === "/offers" ? OFFERS_PAGE(widgetSite) : FORM_PAGE(other));
  });
  const chromium = await launchExtensionBrowser();
  const panel = await chromium.openSidePanel();
  await pairPanel(panel, agentUrl, token);
  return {
    app,
    memory,
    chromium,
    panel,
    allowed,
    other,
    otherHits,
    widgetHits,
    widgetSite,
    async close() {
      await chromium.close();
      await app.close();
      await memory.close();
      for (const server of servers) server.close();
      await cleanup();
    },
  };
}

/** Badge and tooltip as the toolbar shows them, read from the side panel. */
export const badge = (world: InTabWorld) =>
  world.panel.evaluate(async () => ({ text: await chrome.action.getBadgeText({}), title: await chrome.action.getTitle({}) }));

export async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await probe();
  }
  return last;
}

export const tabAccess = (world: InTabWorld, message: Record<string, unknown>) =>
  world.panel.evaluate((sent) => chrome.runtime.sendMessage(sent), message) as Promise<TabRunAccessReply>;

/** What the side panel does once the person said yes to "Let the assistant act in your tabs?". */
export const allowInTab = async (world: InTabWorld) =>
  expect(await tabAccess(world, { type: "run/allow-in-tab", allowed: true })).toMatchObject({ in_tab_allowed: true });

/** A tab of "the person's" Chrome showing `url`, and its Chrome tab id. */
export async function personTab(world: InTabWorld, url: string): Promise<{ page: Page; tabId: number }> {
  const page = await world.chromium.browser.newPage();
  await page.goto(url);
  // In front, as the tab a person runs from is.
  await page.bringToFront();
  const tabId = await world.panel.evaluate(async (pageUrl) => (await chrome.tabs.query({})).find((tab) => tab.url === pageUrl)?.id, page.url());
  if (tabId === undefined) throw new Error(`No tab id for ${url}`);
  return { page, tabId };
}

/** The agent's user-tab provider borrowing a tab (or a new one) for a run on the allowed site. */
export const borrow = (world: InTabWorld, tabId: number | undefined, label = "Edit the profile"): Promise<BrowserLease> =>
  world.app.userTab.lease({
    dispatch_id: `run-test-${crypto.randomUUID()}`,
    ...(tabId === undefined ? {} : { tab_id: tabId }),
    allowed_domains: [new URL(world.allowed).host],
    label,
  })({ deadline: Date.now() + 15_000 });

export async function refusalOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TabRunRefused);
  return (error as TabRunRefused).code;
}

/** The bar as the person sees it: the host in the page, and its Stop button found by accessible name (it is in a closed shadow root). */
export async function indicatorShown(page: Page): Promise<boolean> {
  try {
    const host = await page.$("elnor-run-indicator");
    if (host === null) return false;
    const stop = await page.$("::-p-aria(Stop the assistant)");
    return stop !== null && (await stop.boundingBox()) !== null;
  } catch {
    // The page is between two documents (a navigation): not shown yet.
    return false;
  }
}

export async function tokenOf(world: InTabWorld): Promise<string> {
  return (await readFile(path.join(world.memory.root, "system/agent/token"), "utf8")).trim();
}
