import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "wxt/browser";
import { projectRoot, startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { ARTIFACTS_DIR, launchExtensionBrowser, pairPanel, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";

/**
 * §0C.22 rule 2 (R11.2-45), in real Chromium with the built extension and a real agent: while a
 * session observes, it shows in the side panel on every tab (state, what is watched, Pause and
 * Stop that work), in the toolbar badge of every browser tab (observed or not), and as the in-page
 * indicator on the observed page only. The fixture sites live on 127.0.0.1 so the panel's site
 * request resolves without a prompt (see background-capture.e2e.test.ts).
 */

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fixture</title></head><body>
<main><h1>Orders</h1><button type="button" id="refresh">Refresh orders</button><p id="out"></p></main>
<script>document.getElementById("refresh").addEventListener("click", () => { document.getElementById("out").textContent = "Refreshed"; });</script>
</body></html>`;

let cleanup: () => Promise<void>;
let agent: AgentProcess | undefined;
let chromium: ExtensionBrowser;
const servers: http.Server[] = [];
let observedSite: string;
let otherSite: string;
let observed: Page;
let other: Page;
let panel: Page;
let token: string;

async function startSite(): Promise<string> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function api(method: string, route: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${agent!.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The reference desktop adapter, as a person runs it in a terminal (`npm run adapter -- …`). */
function runAdapter(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(projectRoot, "agent/reference-adapter/desktop-adapter.ts"), ...args],
      { cwd: projectRoot, env: { ...process.env, ELNOR_AGENT_URL: agent!.url, ELNOR_TOKEN: token }, timeout: 30_000 },
      (error, _stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr }),
    );
  });
}

/** The session the panel shows, from the agent: a new one can start once it is cancelled (§0C.1B). */
async function cancelShownSession(): Promise<void> {
  const id = await panel.evaluate(() => document.querySelector("[data-session-id]")?.getAttribute("data-session-id") ?? null);
  const current = (await api("GET", "/api/learn/runtime/current")).body as { learn_session_id?: string };
  const sessionId = id ?? current.learn_session_id;
  if (sessionId !== undefined) await api("POST", `/api/learn/sessions/${sessionId}/cancel`, { reason: "test over" });
}

async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    last = await probe();
  }
  return last;
}

/** The badge as each browser tab shows it (a per-tab value would override the global one). */
async function badges(): Promise<Record<string, string>> {
  return panel.evaluate(
    async (sites) => {
      const shown: Record<string, string> = {};
      for (const site of sites) {
        const [tab] = await chrome.tabs.query({ url: `${site}/*` });
        shown[site] = tab?.id === undefined ? "no tab" : await chrome.action.getBadgeText({ tabId: tab.id });
      }
      return shown;
    },
    [observedSite, otherSite],
  );
}

const waitForBadges = (text: string) => waitUntil(badges, (shown) => shown[observedSite] === text && shown[otherSite] === text, `badge "${text}" on both tabs`);

const banner = (page: Page) => page.$eval("[data-observation-banner]", (element) => element.getAttribute("data-observation-banner")).catch(() => null);

async function waitForBanner(states: Array<string | null>): Promise<string | null> {
  return waitUntil(
    () => banner(panel),
    (state) => states.includes(state),
    `the panel banner to be ${states.join(" or ")}`,
    20_000,
  );
}

interface DomNode {
  nodeName: string;
  nodeValue?: string;
  attributes?: string[];
  children?: DomNode[];
  shadowRoots?: DomNode[];
}

/**
 * The in-page indicator's button labels. It lives in a closed shadow root, which page scripts
 * cannot open; the DevTools protocol's pierced DOM includes it.
 */
async function indicatorButtons(page: Page): Promise<string[]> {
  const client = await page.createCDPSession();
  try {
    const { root } = (await client.send("DOM.getDocument", { depth: -1, pierce: true })) as { root: DomNode };
    const labels: string[] = [];
    const walk = (node: DomNode, inIndicator: boolean): void => {
      const inside = inIndicator || node.nodeName.toLowerCase() === "elnor-learn-indicator";
      if (inside && node.nodeName === "BUTTON") {
        const attributes = node.attributes ?? [];
        const label = attributes[attributes.indexOf("aria-label") + 1];
        if (attributes.includes("aria-label") && label !== undefined) labels.push(label);
      }
      for (const child of [...(node.shadowRoots ?? []), ...(node.children ?? [])]) walk(child, inside);
    };
    walk(root, false);
    return labels.sort();
  } finally {
    await client.detach();
  }
}

/** The places the panel can show: Learn's four tabs and the Skills page. */
async function visitEveryTab(check: (where: string) => Promise<void>): Promise<void> {
  for (const tab of ["new", "active", "pending", "history"]) {
    await panel.locator(`#learn-tab-${tab}`).click();
    await panel.waitForSelector(`#learn-tab-${tab}[aria-selected="true"]`);
    await check(tab);
  }
  await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
  await panel.waitForFunction(() => document.querySelector("h1")?.textContent === "Skills");
  await check("skills");
  await panel.locator('nav[aria-label="Abilities"] button::-p-text(Learn)').click();
}

beforeAll(async () => {
  let root: string;
  ({ root, cleanup } = await makeTempMemoryRoot());
  agent = await startAgentProcess(root);
  token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  observedSite = await startSite();
  otherSite = await startSite();
  chromium = await launchExtensionBrowser();
  other = await chromium.browser.newPage();
  await other.goto(`${otherSite}/orders.html`);
  // The page the person works on, last in front before the panel opens: its site prefills the set-up.
  observed = await chromium.browser.newPage();
  await observed.goto(`${observedSite}/orders.html`);
  panel = await chromium.openSidePanel();
  await pairPanel(panel, agent.url, token);
}, 90_000);

afterAll(async () => {
  await chromium?.close();
  await agent?.stop();
  for (const server of servers) server.close();
  await cleanup?.();
});

describe("the observation banner in real Chromium", () => {
  it("R11.2-45: shows an observing session in the panel on every tab, in the badge of every browser tab and as the indicator on the observed page; Pause and Stop work from any tab", async () => {
    expect(await banner(panel)).toBeNull();
    expect(await badges()).toEqual({ [observedSite]: "", [otherSite]: "" });

    await panel.locator('[data-card="Demonstrating Skill"] button').click();
    await panel.waitForFunction((site) => [...document.querySelectorAll(".site")].some((element) => element.textContent?.includes(site)), {}, observedSite);
    await panel.locator('button[name="start"]').click();
    await waitForBanner(["armed", "capturing"]);

    // Armed: the panel says so on every tab, the badge on both browser tabs, the indicator only where watched.
    const host = new URL(observedSite).host;
    await visitEveryTab(async (where) => {
      const text = await panel.$eval("[data-observation-banner]", (element) => (element as HTMLElement).innerText).catch(() => "");
      expect(text, `banner on ${where}`).toContain(host);
      expect(text, `banner on ${where}`).toMatch(/Ready to record|Recording/);
    });
    await waitForBadges("ARM");
    await waitUntil(
      () => indicatorButtons(observed),
      (labels) => labels.includes("Stop recording"),
      "the indicator on the observed page",
    );
    expect(await indicatorButtons(other)).toEqual([]);

    // The first action on the watched page starts the recording; everything follows.
    await observed.bringToFront();
    await observed.click("#refresh");
    await panel.bringToFront();
    await waitForBanner(["capturing"]);
    await waitForBadges("REC");
    await saveScreenshot(panel, "observation-banner-recording");
    await panel.screenshot({ path: path.join(ARTIFACTS_DIR, "observation-banner-top.png") as `${string}.png` });

    // Pause from the Pending tab, Resume from Skills, Stop from History: the agent's state follows each.
    await panel.locator("#learn-tab-pending").click();
    await panel.locator('button[name="banner-pause"]').click();
    await waitForBanner(["paused"]);
    await waitForBadges("II");
    await waitUntil(
      () => indicatorButtons(observed),
      (labels) => labels.includes("Resume recording"),
      "the indicator to say paused",
    );
    expect(await panel.$eval("[data-observation-banner]", (element) => (element as HTMLElement).innerText)).toContain("Recording paused");

    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    await panel.waitForFunction(() => document.querySelector("h1")?.textContent === "Skills");
    await panel.locator('button[name="banner-resume"]').click();
    await waitForBanner(["capturing"]);
    await waitForBadges("REC");

    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Learn)').click();
    await panel.locator("#learn-tab-history").click();
    await panel.locator('button[name="banner-stop"]').click();
    await waitForBanner([null]);
    await waitForBadges("");
    await waitUntil(
      () => indicatorButtons(observed),
      (labels) => labels.length === 0,
      "the indicator to go away at Stop",
    );
    await panel.locator("#learn-tab-active").click();
    await panel.waitForSelector('[data-session-state="stopped"]');
  }, 120_000);

  it("sets up a session that watches this computer and the site, shows the desktop adapter's health and how to start it, and puts terminal commands in the live timeline next to the page's steps", async () => {
    await cancelShownSession();
    await panel.locator("#learn-tab-new").click();
    await panel.locator('[data-card="Demonstrating Skill"] button').click();
    await panel.locator('input[name="watch-this-computer"]').click();
    // No desktop adapter yet: the panel says so and how to start the reference one.
    await panel.waitForSelector('[data-desktop-adapters="none"]');
    const help = await panel.$eval("[data-desktop-adapters]", (element) => (element as HTMLElement).innerText);
    expect(help).toContain("npm run adapter -- --register");
    await saveScreenshot(panel, "desktop-setup-no-adapter");

    const registered = await runAdapter(["--register"]);
    expect(registered.code, registered.stderr).toBe(0);
    await panel.waitForSelector('[data-desktop-adapters="healthy"] [data-adapter-healthy="true"]', { timeout: 15_000 });
    const healthy = await panel.$$eval('[data-adapter-healthy="true"]', (elements) => elements.map((element) => element.getAttribute("data-adapter-id")));
    expect(healthy).toEqual(expect.arrayContaining(["reference-desktop-cli:terminal_command"]));
    await saveScreenshot(panel, "desktop-setup");

    await panel.locator('button[name="start"]').click();
    await waitForBanner(["armed", "capturing"]);
    const text = await panel.$eval("[data-observation-banner]", (element) => (element as HTMLElement).innerText);
    expect(text).toContain("this computer");
    expect(text).toContain(new URL(observedSite).host);

    // One command in a terminal, one click on the page: both reach the timeline.
    const ran = await runAdapter(["node", "--version"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).not.toContain("not recorded");
    await observed.bringToFront();
    await observed.click("#refresh");
    await panel.bringToFront();
    await panel.locator("#learn-tab-active").click();
    await panel.waitForFunction(
      () => {
        const steps = [...document.querySelectorAll("[data-event-id]")].map((element) => element.textContent ?? "");
        return steps.some((step) => step.includes("node --version")) && steps.some((step) => step.includes("Refresh orders"));
      },
      { timeout: 20_000 },
    );
    await saveScreenshot(panel, "desktop-timeline");
    await panel.locator('button[name="banner-stop"]').click();
    await waitForBanner([null]);
    await cancelShownSession();
  }, 120_000);
});
