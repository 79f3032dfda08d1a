import { readdir, readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "wxt/browser";
import { buildApp } from "../../agent/app/app";
import type { BrowserLease, LeaseStop } from "../../agent/execution/contract/executor-contract";
import { execute } from "../../agent/execution/executor";
import { TabRunRefused } from "../../agent/execution/in-tab/tab-relay";
import { TestPolicySchema } from "../../shared/learning/sessions/test-policy";
import { openMemoryStore, type MemoryStore } from "../../agent/memory/memory-store";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { RunResponseSchema, type RunRecord } from "../../shared/execution/run-contract";
import type { TabRunAccessReply } from "../../shared/observation/panel-messages";
import { EXTENSION_DIR, launchExtensionBrowser, pairPanel, saveScreenshot, type ExtensionBrowser } from "../support/extension-browser";

/**
 * "In my browser" (issue #21) in real Chromium with the built extension and a real agent: the
 * agent's user-tab provider borrows a tab through the extension's WebSocket and drives it with
 * puppeteer over the relayed CDP. The agent runs in-process here (listening on a real loopback
 * port) so the test can hold the provider the runs service is given.
 */

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

let cleanup: () => Promise<void>;
let memory: MemoryStore;
let app: Awaited<ReturnType<typeof buildApp>>;
let chromium: ExtensionBrowser;
let panel: Page;
let allowed: string;
let other: string;
const otherHits: string[] = [];
/** A partner widget's server, on another site (localhost, not 127.0.0.1): what it was asked for. */
const widgetHits: string[] = [];
let widgetSite: string;
const servers: http.Server[] = [];

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

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const badge = () => panel.evaluate(async () => ({ text: await chrome.action.getBadgeText({}), title: await chrome.action.getTitle({}) }));

async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await probe();
  }
  return last;
}

/** What the side panel does once the person said yes to "Let the assistant act in your tabs?". */
const allowInTab = async () => expect(await tabAccess({ type: "run/allow-in-tab", allowed: true })).toMatchObject({ in_tab_allowed: true });

const tabAccess = (message: Record<string, unknown>) => panel.evaluate((sent) => chrome.runtime.sendMessage(sent), message) as Promise<TabRunAccessReply>;

/** A tab of "the person's" Chrome showing `url`, and its Chrome tab id. */
async function personTab(url: string): Promise<{ page: Page; tabId: number }> {
  const page = await chromium.browser.newPage();
  await page.goto(url);
  // In front, as the tab a person runs from is.
  await page.bringToFront();
  const tabId = await panel.evaluate(async (pageUrl) => (await chrome.tabs.query({})).find((tab) => tab.url === pageUrl)?.id, page.url());
  if (tabId === undefined) throw new Error(`No tab id for ${url}`);
  return { page, tabId };
}

const borrow = (tabId: number | undefined, label = "Edit the profile") =>
  app.userTab.lease({
    dispatch_id: `run-test-${crypto.randomUUID()}`,
    ...(tabId === undefined ? {} : { tab_id: tabId }),
    allowed_domains: [new URL(allowed).host],
    label,
  })({ deadline: Date.now() + 15_000 });

async function refusalOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TabRunRefused);
  return (error as TabRunRefused).code;
}

/** The bar as the person sees it: the host in the page, and its Stop button found by accessible name (it is in a closed shadow root). */
async function indicatorShown(page: Page): Promise<boolean> {
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

beforeAll(async () => {
  let root: string;
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-in-tab-"));
  memory = await openMemoryStore({ root });
  app = await buildApp({ memory, port: 0 });
  const agentUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  other = await serve((request, response) => {
    otherHits.push(request.url ?? "");
    response.setHeader("content-type", "text/html");
    response.end("<!doctype html><title>Elsewhere</title><h1>Another site</h1>");
  });
  const widgetOrigin = await serve((request, response) => {
    widgetHits.push(`${request.method ?? "GET"} ${request.url ?? ""}`);
    response.setHeader("content-type", "text/html");
    response.end(WIDGET_PAGE);
  });
  widgetSite = widgetOrigin.replace("127.0.0.1", "localhost");
  allowed = await serve((request, response) => {
    response.setHeader("content-type", "text/html");
    response.end(request.url === "/offers" ? OFFERS_PAGE(widgetSite) : FORM_PAGE(other));
  });
  chromium = await launchExtensionBrowser();
  panel = await chromium.openSidePanel();
  await pairPanel(panel, agentUrl, token);
}, 90_000);

afterAll(async () => {
  await chromium?.close();
  await app?.close();
  await memory?.close();
  for (const server of servers) server.close();
  await cleanup?.();
});

describe("in-tab runs through the extension (issue #21, in my browser)", () => {
  it("holds debugger in the manifest (Chrome will not make it optional) and lends no tab before the person allows in-tab runs", async () => {
    const manifest = JSON.parse(await readFile(path.join(EXTENSION_DIR, "manifest.json"), "utf8")) as { permissions: string[] };
    expect(manifest.permissions).toContain("debugger");
    const access = await tabAccess({ type: "run/tab-access", timeout_ms: 10_000 });
    expect(access).toMatchObject({ connection: "connected", in_tab_allowed: false, debugger_available: true, ready: false });
    const { page, tabId } = await personTab(`${allowed}/profile`);
    expect(await refusalOf(borrow(tabId))).toBe("IN_TAB_NOT_ALLOWED");
    expect((await badge()).text).toBe("");
    expect(await page.$("elnor-run-indicator")).toBeNull();
    await page.close();
  });

  it("once allowed, drives the person's tab: types, clicks and reads the page, showing RUN and the in-page bar, then gives it back", async () => {
    expect(await tabAccess({ type: "run/allow-in-tab", allowed: true })).toMatchObject({ in_tab_allowed: true, ready: true });
    const { page, tabId } = await personTab(`${allowed}/profile`);
    const lease = await borrow(tabId, "Edit the profile");
    try {
      expect(lease.where).toBe("user_tab");
      expect(lease.page.url()).toBe(`${allowed}/profile`);
      await lease.page.type("#name", "Ada Lovelace");
      await lease.page.click("#save");
      expect(await lease.page.$eval("#result", (node) => node.textContent)).toBe("Saved Ada Lovelace");
      // The person's own view of the same tab shows what the assistant did.
      expect(await page.$eval("#result", (node) => node.textContent)).toBe("Saved Ada Lovelace");
      expect(await badge()).toMatchObject({ text: "RUN" });
      expect((await badge()).title).toContain("Edit the profile");
      expect(await indicatorShown(page)).toBe(true);
      await saveScreenshot(page, "in-tab-run-indicator");
      // A reload keeps the bar: it is put into every document the tab loads while lent.
      await lease.page.reload();
      expect(await waitUntil(() => indicatorShown(page), Boolean, "the bar after a reload")).toBe(true);
    } finally {
      await lease.release();
    }
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await waitUntil(
      async () => page.$("elnor-run-indicator"),
      (host) => host === null,
      "the bar to go",
    );
    await page.close();
  });

  it("without a tab named, opens a new tab for the run and acts there", async () => {
    await allowInTab();
    const tabIds = () => panel.evaluate(async () => (await chrome.tabs.query({})).map((tab) => tab.id as number));
    const before = await tabIds();
    const lease = await borrow(undefined, "Open a new tab");
    const opened = (await tabIds()).filter((id) => !before.includes(id));
    try {
      expect(opened).toHaveLength(1);
      expect(lease.page.url()).toBe("about:blank");
      await lease.page.goto(`${allowed}/profile`);
      await lease.page.type("#name", "Grace");
      await lease.page.click("#save");
      expect(await lease.page.$eval("#result", (node) => node.textContent)).toBe("Saved Grace");
      expect((await badge()).text).toBe("RUN");
    } finally {
      await lease.release();
    }
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await panel.evaluate((tabId) => chrome.tabs.remove(tabId), opened[0] as number);
  });

  it("Stop in the page ends the lease at once: the provider reports it, the tab is detached and can be lent again", async () => {
    await allowInTab();
    const { page, tabId } = await personTab(`${allowed}/profile`);
    const lease = await borrow(tabId);
    const stopped = new Promise<LeaseStop>((resolve) => lease.onStop?.(resolve));
    // After the tab has moved on to another page of the site: the bar is there again, and works.
    await lease.page.goto(`${allowed}/second`);
    await waitUntil(() => indicatorShown(page), Boolean, "the bar");
    await page.locator("::-p-aria(Stop the assistant)").click();
    expect(await stopped).toMatchObject({ reason: "user_stop" });
    // Commands fail from that moment: the run cannot go on acting in the tab.
    await expect(lease.page.evaluate(() => document.title)).rejects.toThrow();
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await waitUntil(
      async () => page.$("elnor-run-indicator"),
      (host) => host === null,
      "the bar to go",
    );
    await lease.release();
    // Detached and free: the same tab can be lent again straight away.
    const again = await borrow(tabId);
    await again.release();
    await page.close();
  });

  it("a service-worker stop mid-lease ends the lease (link lost) and the restarted worker gives the tab back", async () => {
    await allowInTab();
    const { page, tabId } = await personTab(`${allowed}/profile`);
    const lease = await borrow(tabId);
    const stopped = new Promise<LeaseStop>((resolve) => lease.onStop?.(resolve));
    const workerTarget = await chromium.browser.waitForTarget((target) => target.type() === "service_worker" && target.url().endsWith("/background.js"));
    // The panel would wake the worker again at once: closed for this part, as a person may.
    await panel.close();
    await (await workerTarget.worker())?.close();
    expect(await stopped).toMatchObject({ reason: "link_lost" });
    panel = await chromium.openSidePanel();
    await waitUntil(badge, (seen) => seen.text !== "RUN", "the RUN badge to go after the restart");
    await lease.release();
    // Detached by the new worker: the same tab can be lent again.
    const again = await borrow(tabId);
    await again.release();
    await page.close();
  });

  it("refuses sites outside the run's: no lending of a tab showing one, no navigation to one, and a link away ends the lease", async () => {
    await allowInTab();
    const elsewhere = await personTab(`${other}/start`);
    expect(await refusalOf(borrow(elsewhere.tabId))).toBe("SITE_NOT_ALLOWED");
    await elsewhere.page.close();
    otherHits.length = 0;

    const { page, tabId } = await personTab(`${allowed}/profile`);
    const lease: BrowserLease = await borrow(tabId);
    const stopped = new Promise<LeaseStop>((resolve) => lease.onStop?.(resolve));
    await expect(lease.page.goto(`${other}/steal?x=1`)).rejects.toThrow(/SITE_NOT_ALLOWED/);
    expect(otherHits).toEqual([]);
    expect(page.url()).toBe(`${allowed}/profile`);

    // A click that leads off the run's sites: the page is never loaded, and the extension takes the tab back.
    await lease.page.click("#away").catch(() => undefined);
    expect(await stopped).toMatchObject({ reason: "off_site" });
    await expect(lease.page.title()).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(otherHits).toEqual([]);
    expect(page.url()).not.toContain(other);
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await lease.release();
    await page.close();
  });

  it("never drives a frame of another site in the lent tab: a step inside one fails with TEST_POLICY_VIOLATION and the widget's server sees no click (issue #30)", async () => {
    await allowInTab();
    const { page, tabId } = await personTab(`${allowed}/offers`);
    await waitUntil(async () => widgetHits.includes("GET /widget"), Boolean, "the widget to load in the person's tab");
    widgetHits.length = 0;
    const policy = TestPolicySchema.parse({
      policy_id: crypto.randomUUID(),
      mode: "live_read_safe_write",
      allowed_domains: [new URL(allowed).host],
      schema_version: 1,
    });
    const result = await execute({
      flow: {
        title: "Subscribe to the partner newsletter",
        steps: [{ type: "click", selectors: [['aria/Subscribe[role="button"]'], ["#subscribe"]], offsetX: 1, offsetY: 1, frame: [0] }],
        step_ids: ["s1"],
      },
      checkpoints: [{ checkpoint_id: "cp-01", goal: "The widget is ready", success_condition: 'The page says "Partner widget ready"', step_ids: [] }],
      parameters: [],
      values: {},
      policy,
      browser: () => borrow(tabId, "Subscribe"),
      stepTimeoutMs: 3_000,
      timeoutMs: 40_000,
    });
    // The checkpoint before the step does not take the widget's word; the step does not act in it.
    expect(result.steps.find((step) => step.test_case_id === "checkpoint:cp-01")).toMatchObject({
      result: "failed",
      details: expect.stringContaining(`not looked at: a frame from ${widgetSite}`),
    });
    expect(result.policy_violation?.code).toBe("TEST_POLICY_VIOLATION");
    expect(result.policy_violation?.message).toContain(`inside a frame from ${widgetSite}`);
    expect(result.steps.find((step) => step.test_case_id === "step:s1")?.result).toBe("failed");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(widgetHits).toEqual([]);
    expect(await page.$eval("iframe", (frame) => frame.getAttribute("src"))).toContain("/widget");
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await page.close();
  }, 60_000);

  it("refuses while a demonstration is being recorded, and a recording that starts ends the lease, so a run's typed values are never captured", async () => {
    await allowInTab();
    const { page, tabId } = await personTab(`${allowed}/profile`);
    // A lease already going when the recording starts ends at once.
    const lease = await borrow(tabId);
    const stopped = new Promise<LeaseStop>((resolve) => lease.onStop?.(resolve));
    const created = await app.inject({
      method: "POST",
      url: "/api/learn/sessions",
      headers: { host: `127.0.0.1:${(app.server.address() as AddressInfo).port}`, authorization: `Bearer ${await tokenOf()}` },
      payload: { entry_mode: "demonstrating_skill", observation_mode: "outside_agent", target_app_whitelist: [allowed] },
    });
    expect(created.statusCode).toBe(201);
    const sessionId = (created.json() as { session: { learn_session_id: string } }).session.learn_session_id;
    const headers = { host: `127.0.0.1:${(app.server.address() as AddressInfo).port}`, authorization: `Bearer ${await tokenOf()}` };
    try {
      const started = await app.inject({ method: "POST", url: `/api/learn/sessions/${sessionId}/start`, headers });
      expect(started.statusCode, started.body).toBe(200);
      expect(await stopped).toMatchObject({ reason: "recording_started" });
      await lease.release();
      await waitUntil(async () => (await tabAccess({ type: "run/tab-access", timeout_ms: 5_000 })).recording_active, Boolean, "the recording to be mirrored");
      expect(await refusalOf(borrow(tabId))).toBe("RECORDING_ACTIVE");
    } finally {
      await app.inject({ method: "POST", url: `/api/learn/sessions/${sessionId}/cancel`, headers });
    }
    await waitUntil(
      async () => (await tabAccess({ type: "run/tab-access", timeout_ms: 5_000 })).recording_active,
      (active) => !active,
      "the recording to end",
    );
    await page.close();
  });
});

describe("runs of an installed ability in the person's tab, through POST /api/runs (issue #21)", () => {
  let site: RunFixtureSite;
  let abilityId: string;

  const call = async (method: "GET" | "POST", url: string, payload?: unknown) => {
    const response = await app.inject({
      method,
      url,
      headers: { host: `127.0.0.1:${(app.server.address() as AddressInfo).port}`, authorization: `Bearer ${await tokenOf()}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: response.statusCode, body: (response.body === "" ? {} : response.json()) as Record<string, any> };
  };

  async function until(dispatchId: string, done: (run: RunRecord) => boolean, timeoutMs = 40_000): Promise<RunRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = RunResponseSchema.parse((await call("GET", `/api/runs/${dispatchId}`)).body).run;
      if (done(run)) return run;
      if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const over = (run: RunRecord) => run.completed_at !== undefined;
  const paused = (run: RunRecord) => run.state === "needs_confirmation" || over(run);

  const startInTab = async (tabId: number, inputs: Record<string, string>) => {
    const answer = await call("POST", "/api/runs", {
      ability_id: abilityId,
      inputs,
      where: "user_tab",
      tab_id: tabId,
      caller: "side_panel",
      schema_version: 1,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return RunResponseSchema.parse(answer.body).run.dispatch_id;
  };

  beforeAll(async () => {
    site = await serveRunFixtureSite();
    ({ abilityId } = await installContactAbility(call, site));
  }, 30_000);
  afterAll(async () => site?.close());

  it("proves every checkpoint in the person's tab, asks before sending, shows RUN while acting; the secret is nowhere in ELNOR_MEMORY", async () => {
    await allowInTab();
    const canary = `CANARY-tab-${crypto.randomUUID().slice(0, 8)}`;
    const { page, tabId } = await personTab(`${site.origin}/start`);
    const sendsBefore = site.sends();
    const dispatchId = await startInTab(tabId, { message: "Hello from my tab", access_code: canary });
    const waiting = await until(dispatchId, paused);
    expect(waiting.state, JSON.stringify(waiting.failure)).toBe("needs_confirmation");
    expect(waiting.where).toBe("user_tab");
    // The person sees the assistant at work in their own tab, paused before the send.
    expect(page.url()).toBe(`${site.origin}/contact`);
    expect((await badge()).text).toBe("RUN");
    expect(await indicatorShown(page)).toBe(true);
    expect(site.sends()).toBe(sendsBefore);
    const confirmed = await call("POST", `/api/runs/${dispatchId}/confirm`, {
      confirmation_id: waiting.pending_confirmation?.confirmation_id,
      decision: "confirm",
      schema_version: 1,
    });
    expect(confirmed.status).toBe(200);

    const done = await until(dispatchId, over);
    expect(done.state, JSON.stringify(done.failure)).toBe("succeeded");
    expect(done.checkpoints.length).toBeGreaterThan(0);
    expect(done.checkpoints.every((checkpoint) => checkpoint.status === "reached")).toBe(true);
    expect(site.sends()).toBe(sendsBefore + 1);
    expect(await page.$eval("h1", (node) => node.textContent)).toBe("Message sent");
    // Given back: no badge, no bar, the tab stays open where the run left it.
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await waitUntil(
      async () => page.$("elnor-run-indicator"),
      (host) => host === null,
      "the bar to go",
    );
    await app.learning.runs.store.settle();
    const files = (await readdir(memory.root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    for (const entry of files) {
      expect((await readFile(path.join(entry.parentPath, entry.name))).toString("latin1"), entry.name).not.toContain(canary);
    }
    await page.close();
  }, 60_000);

  it("Stop in the page cancels the run at once: nothing is sent", async () => {
    await allowInTab();
    const { page, tabId } = await personTab(`${site.origin}/start`);
    const sendsBefore = site.sends();
    const dispatchId = await startInTab(tabId, { message: "Never sent", access_code: "code-1" });
    expect((await until(dispatchId, paused)).state).toBe("needs_confirmation");
    await page.locator("::-p-aria(Stop the assistant)").click();
    const ended = await until(dispatchId, over, 10_000);
    expect(ended.state).toBe("cancelled");
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(site.sends()).toBe(sendsBefore);
    await page.close();
  }, 60_000);

  it("stops at a checkpoint that no longer holds, with what the person's tab showed and a screenshot", async () => {
    await allowInTab();
    site.breakConfirmation(true);
    const { page, tabId } = await personTab(`${site.origin}/start`);
    try {
      const dispatchId = await startInTab(tabId, { message: "Hello", access_code: "code-2" });
      const asked = await until(dispatchId, paused);
      await call("POST", `/api/runs/${dispatchId}/confirm`, {
        confirmation_id: asked.pending_confirmation?.confirmation_id,
        decision: "confirm",
        schema_version: 1,
      });
      const failed = await until(dispatchId, over);
      expect(failed.state).toBe("failed");
      expect(failed.failure?.code).toBe("CHECKPOINT_NOT_CONFIRMED");
      expect(failed.failure?.page_seen).toMatchObject({ title: "Error — Run Shop", headings: ["Something went wrong"] });
      const shot = await app.inject({
        method: "GET",
        url: failed.failure?.page_seen?.screenshot_ref as string,
        headers: { host: `127.0.0.1:${(app.server.address() as AddressInfo).port}`, authorization: `Bearer ${await tokenOf()}` },
      });
      expect(shot.rawPayload.subarray(1, 4).toString()).toBe("PNG");
      await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    } finally {
      site.breakConfirmation(false);
      await page.close();
    }
  }, 60_000);

  it("the run's own network guard works in the person's tab: a page that sends to another site fails the run and nothing reaches it", async () => {
    await allowInTab();
    site.leakTo(other);
    otherHits.length = 0;
    const { page, tabId } = await personTab(`${site.origin}/start`);
    try {
      const dispatchId = await startInTab(tabId, { message: "x", access_code: "y" });
      const ended = await until(dispatchId, paused);
      if (ended.state === "needs_confirmation") {
        await call("POST", `/api/runs/${dispatchId}/confirm`, {
          confirmation_id: ended.pending_confirmation?.confirmation_id,
          decision: "decline",
          schema_version: 1,
        });
      }
      const final = await until(dispatchId, over);
      expect(final.state).toBe("failed");
      expect(final.failure?.code).toBe("TEST_POLICY_VIOLATION");
      expect(otherHits).toEqual([]);
    } finally {
      site.leakTo(undefined);
      await page.close();
    }
  }, 60_000);

  it("a run in a tab showing another site is refused before anything is done there", async () => {
    await allowInTab();
    const { page, tabId } = await personTab(`${other}/start`);
    const dispatchId = await startInTab(tabId, { message: "x", access_code: "y" });
    const ended = await until(dispatchId, over);
    expect(ended.state).toBe("failed");
    expect(ended.failure?.message).toMatch(/not one of the sites this run may touch/);
    expect(page.url()).toBe(`${other}/start`);
    await page.close();
  }, 60_000);
});

async function tokenOf(): Promise<string> {
  return (await readFile(path.join(memory.root, "system/agent/token"), "utf8")).trim();
}
