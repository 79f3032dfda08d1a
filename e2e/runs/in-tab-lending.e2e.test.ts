import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "wxt/browser";
import type { BrowserLease, LeaseStop } from "../../agent/execution/contract/executor-contract";
import { execute } from "../../agent/execution/executor";
import { TestPolicySchema } from "../../shared/learning/sessions/test-policy";
import { EXTENSION_DIR, saveScreenshot } from "../test-support/extension-browser";
import * as inTab from "../test-support/in-tab-world";
import { indicatorShown, refusalOf, startInTabWorld, tokenOf, waitUntil, type InTabWorld } from "../test-support/in-tab-world";

/**
 * "In my browser" (issue #21) in real Chromium with the built extension and a real agent: the
 * agent's user-tab provider borrows a tab through the extension's WebSocket and drives it with
 * puppeteer over the relayed CDP. The agent runs in-process here (listening on a real loopback
 * port) so the test can hold the provider the runs service is given (e2e/test-support/in-tab-world.ts).
 *
 * Here: lending a tab, and what the extension lets a lease do (sites, frames, Stop, a worker
 * stop, a recording that starts); runs through POST /api/runs are in in-tab-run.e2e.test.ts.
 */

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

let world: InTabWorld;
let app: InTabWorld["app"];
let chromium: InTabWorld["chromium"];
let allowed: string;
let other: string;
let otherHits: string[];
let widgetHits: string[];
let widgetSite: string;

beforeAll(async () => {
  world = await startInTabWorld();
  ({ app, chromium, allowed, other, otherHits, widgetHits, widgetSite } = world);
}, 90_000);

afterAll(async () => world?.close());

const badge = () => inTab.badge(world);
const tabAccess = (message: Record<string, unknown>) => inTab.tabAccess(world, message);
const allowInTab = () => inTab.allowInTab(world);
const personTab = (url: string) => inTab.personTab(world, url);
const borrow = (tabId: number | undefined, label?: string) => inTab.borrow(world, tabId, label);

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
    const tabIds = () => world.panel.evaluate(async () => (await chrome.tabs.query({})).map((tab) => tab.id as number));
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
    await world.panel.evaluate((tabId) => chrome.tabs.remove(tabId), opened[0] as number);
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
    await world.panel.close();
    await (await workerTarget.worker())?.close();
    expect(await stopped).toMatchObject({ reason: "link_lost" });
    world.panel = await chromium.openSidePanel();
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
      headers: { host: `127.0.0.1:${(app.server.address() as AddressInfo).port}`, authorization: `Bearer ${await tokenOf(world)}` },
      payload: { entry_mode: "demonstrating_skill", observation_mode: "outside_agent", target_app_whitelist: [allowed] },
    });
    expect(created.statusCode).toBe(201);
    const sessionId = (created.json() as { session: { learn_session_id: string } }).session.learn_session_id;
    const headers = { host: `127.0.0.1:${(app.server.address() as AddressInfo).port}`, authorization: `Bearer ${await tokenOf(world)}` };
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
