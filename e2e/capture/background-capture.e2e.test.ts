import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page, WebWorker } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "wxt/browser";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { COMMANDS } from "../../extension/background/capture/capture-control-plan";
import { contentWorld, sendFromContent } from "../support/content-world";
import { EXTENSION_DIR, launchExtensionBrowser, waitForStatus, type ExtensionBrowser } from "../support/extension-browser";

/**
 * The background half of observation (issue #4) in real Chromium with the built extension and a
 * real agent: the socket, the session mirror and badge, the runtime registration for the allowed
 * sites only, the outbox, and a service-worker stop in the middle of a capture.
 *
 * Site access: headless Chromium cannot answer the `chrome.permissions.request` prompt. A trusted
 * click on an extension page that calls it leaves the promise pending (the prompt is up, with no
 * way to answer it); CDP has no command for extension host permissions (puppeteer#5054,
 * devtools-protocol#76); `chrome.developerPrivate.addHostPermission` on chrome://extensions only
 * re-grants withheld manifest hosts, not optional ones. So the fixture sites live on 127.0.0.1,
 * which the manifest holds for the agent anyway: the panel's request for them resolves true
 * without a prompt, as it would for a user, and everything after it is the real path. A site
 * never granted (`shop.test`) shows that nothing is registered without the user's grant.
 */

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess | undefined;
let chromium: ExtensionBrowser;
let token: string;
let panel: Page;
const fixtures: http.Server[] = [];
let allowedOrigin: string;
let otherOrigin: string;
/** The session a test started; cancelled after it even when the test failed, so the next can start one. */
let openSession: string | undefined;

const FIXTURE_PAGE = `<!doctype html><html><head><title>Fixture shop</title></head><body>
<h1>Checkout</h1><form><label>Email <input name="email" type="email"></label>
<button type="button" id="place">Place order</button></form></body></html>`;

/** Every kind of text entry the privacy test types a canary into. */
const PRIVACY_PAGE = `<!doctype html><html><head><title>Profile</title></head><body>
<h1>Edit profile</h1><form>
<label>Display name <input name="display_name" type="text"></label>
<label>Password <input name="password" type="password"></label>
<label>Notes <textarea name="notes"></textarea></label>
<div role="textbox" aria-label="Bio" contenteditable="true" id="bio"></div>
<button type="button" id="save">Save profile</button></form></body></html>`;

async function startFixture(): Promise<string> {
  const server = http.createServer((request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(request.url?.startsWith("/profile") === true ? PRIVACY_PAGE : FIXTURE_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fixtures.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function api<T = unknown>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${agent!.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    last = await probe();
  }
  return last;
}

/** Badge and tooltip as the toolbar shows them, read from an extension page. */
const badge = () => panel.evaluate(async () => ({ text: await chrome.action.getBadgeText({}), title: await chrome.action.getTitle({}) }));
const waitForBadge = (text: string) => waitUntil(badge, (seen) => seen.text === text, `badge "${text}"`);
const registeredMatches = () => panel.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).flatMap((script) => script.matches ?? []));

/** What the side panel does at Start: ask for the sites, make sure the agent sees the extension, then start. */
async function startCapture(allowList: string[]): Promise<string> {
  const origins = allowList.filter((site) => site.startsWith("http://127.0.0.1")).map((site) => `${site}/*`);
  expect(await panel.evaluate((requested) => chrome.permissions.request({ origins: requested }), origins)).toBe(true);
  expect(await panel.evaluate(() => chrome.runtime.sendMessage({ type: "capture/ensure-connected", timeout_ms: 10_000 }))).toEqual({
    connection: "connected",
  });
  const created = await api<{ session: { learn_session_id: string } }>("POST", "/api/learn/sessions", {
    entry_mode: "demonstrating_skill",
    observation_mode: "outside_agent",
    target_app_whitelist: allowList,
  });
  expect(created.status).toBe(201);
  const sessionId = created.body.session.learn_session_id;
  openSession = sessionId;
  const started = await api("POST", `/api/learn/sessions/${sessionId}/start`);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return sessionId;
}

async function endSession(sessionId: string): Promise<void> {
  await api("POST", `/api/learn/sessions/${sessionId}/cancel`, { reason: "test over" });
  openSession = undefined;
}

function observedEvent(sessionId: string, pageUrl: string, label: string) {
  return {
    event_id: crypto.randomUUID(),
    learn_session_id: sessionId,
    adapter_kind: "browser_dom",
    action_label: label,
    caused_state_change: false,
    redaction_mode: "mask_text",
    created_at: new Date().toISOString(),
    schema_version: 1,
    browser_detail: {
      page_url: pageUrl,
      page_title: "Fixture shop",
      target_role: "button",
      target_name: "Place order",
      selectors: [["#place"]],
      dom_event_kind: "click",
    },
  };
}

async function storedLines(sessionId: string): Promise<string[]> {
  const text = await readFile(path.join(root, "system/learning/observations", sessionId, "events.jsonl"), "utf8").catch(() => "");
  return text.split("\n").filter((line) => line.trim() !== "");
}

async function storedEventIds(sessionId: string): Promise<string[]> {
  return (await storedLines(sessionId)).map((line) => (JSON.parse(line) as { event_id: string }).event_id);
}

async function boundariesOf(sessionId: string): Promise<Array<{ kind: string; source: string }>> {
  const text = await readFile(path.join(root, "system/learning/boundaries.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { learn_session_id: string; kind: string; source: string })
    .filter((boundary) => boundary.learn_session_id === sessionId);
}

const sessionState = async (sessionId: string) => (await api<{ state: string }>("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state;

async function serviceWorker(): Promise<WebWorker> {
  const target = await chromium.browser.waitForTarget(
    (candidate) => candidate.type() === "service_worker" && candidate.url() === `chrome-extension://${chromium.extensionId}/background.js`,
  );
  const worker = await target.worker();
  if (worker === null) throw new Error("the background target has no worker");
  return worker;
}

/** Every file under ELNOR_MEMORY, as text. */
async function memoryText(): Promise<string> {
  const { readdir } = await import("node:fs/promises");
  const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  const texts = await Promise.all(files.map((entry) => readFile(path.join(entry.parentPath, entry.name), "utf8").catch(() => "")));
  return texts.join("\n");
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot());
  // Trace-level logs, so the privacy test checks everything the agent could possibly log.
  agent = await startAgentProcess(root, { ELNOR_LOG_LEVEL: "trace" });
  token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  allowedOrigin = await startFixture();
  otherOrigin = await startFixture();
  chromium = await launchExtensionBrowser();
  panel = await chromium.openSidePanel();
  await waitForStatus(panel, "unpaired");
  await panel.locator('input[name="agent-url"]').fill(agent.url);
  await panel.locator('input[name="token"]').fill(token);
  await panel.locator('button[type="submit"]').click();
  await waitForStatus(panel, "connected");
});

afterEach(async () => {
  if (openSession !== undefined && agent !== undefined) await endSession(openSession);
});

afterAll(async () => {
  await chromium?.close();
  await agent?.stop();
  for (const server of fixtures) server.close();
  await cleanup?.();
});

describe("the background service worker in real Chromium", () => {
  it("holds no web site permanently: only the agent's loopback hosts, sites asked for per session", async () => {
    const manifest = JSON.parse(await readFile(path.join(EXTENSION_DIR, "manifest.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.host_permissions).toEqual(["http://127.0.0.1/*", "http://localhost/*"]);
    expect(manifest.optional_host_permissions).toEqual(["http://*/*", "https://*/*"]);
    expect(JSON.stringify(manifest)).not.toContain("<all_urls>");
    expect(manifest.content_scripts ?? []).toEqual([]);
    expect(Object.keys(manifest.commands as object).sort()).toEqual(Object.values(COMMANDS).sort());
    expect(await registeredMatches()).toEqual([]);
    expect((await badge()).text).toBe("");
  });

  it("connects to the agent once paired, which lists it as healthy browser_dom and browser_snapshot adapters", async () => {
    const adapters = await waitUntil(
      async () => (await api<{ adapters: Array<{ adapter_id: string; kind: string; healthy: boolean }> }>("GET", "/api/observation/adapters")).body.adapters,
      (list) => list.filter((adapter) => adapter.healthy).length >= 2,
      "healthy browser adapters",
    );
    const ours = adapters.filter((adapter) => adapter.adapter_id.includes(chromium.extensionId) && adapter.healthy);
    expect(ours.map((adapter) => adapter.kind).sort()).toEqual(["browser_dom", "browser_snapshot"]);
  });

  it("R11.2-45: observes only the granted allowed site, shows ARM, REC and II in turn (the banner), and lets go of everything at Stop", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/checkout`);
    const shopWorld = await contentWorld(shop);
    const elsewhere = await chromium.browser.newPage();
    await elsewhere.goto(`${otherOrigin}/`);
    const elsewhereWorld = await contentWorld(elsewhere);

    const sessionId = await startCapture([allowedOrigin, "shop.test"]);
    const armed = await waitForBadge("ARM");
    expect(armed.title).toContain(allowedOrigin);
    // shop.test was never granted: only the granted site is registered.
    expect(await waitUntil(registeredMatches, (matches) => matches.length > 0, "a registration")).toEqual([`${allowedOrigin}/*`]);
    // The tab open before Start got the content script without a reload; the other site got none.
    const config = (await sendFromContent(shopWorld, { type: "capture/get-config" })) as { config: Record<string, unknown> };
    expect(config.config).toMatchObject({
      learn_session_id: sessionId,
      state: "armed",
      text_entry_mode: "mask_text",
      allowed_origins: [allowedOrigin, "shop.test"],
    });
    expect(String(config.config.hash_key)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(elsewhereWorld.contextId()).toBeUndefined();

    expect((await api("POST", `/api/learn/sessions/${sessionId}/mark-step`, { step_label: "Open the cart" })).status).toBe(200);
    expect((await waitForBadge("REC")).title).toContain("recording on");
    expect((await api("POST", `/api/learn/sessions/${sessionId}/pause`)).status).toBe(200);
    await waitForBadge("II");
    expect((await api("POST", `/api/learn/sessions/${sessionId}/resume`)).status).toBe(200);
    await waitForBadge("REC");

    expect((await api("POST", `/api/learn/sessions/${sessionId}/stop`)).status).toBe(200);
    await waitForBadge("");
    expect((await badge()).title).toBe("Ability Learning");
    expect(await waitUntil(registeredMatches, (matches) => matches.length === 0, "no registration")).toEqual([]);
    expect(await sendFromContent(shopWorld, { type: "capture/get-config" })).toEqual({ type: "capture/config", config: null });
    await endSession(sessionId);
    await shop.close();
    await elsewhere.close();
  });

  it("keeps capturing through a service-worker stop, and the badge comes back", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/cart`);
    const sessionId = await startCapture([allowedOrigin]);
    await waitForBadge("ARM");
    const world = await contentWorld(shop);
    await waitUntil(
      () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
      (reply) => reply.config !== null,
      "the page's config",
    );
    const clicksStored = async () => (await storedLines(sessionId)).filter((line) => line.includes("Place order")).length;
    await shop.locator("#place").click();
    await waitUntil(clicksStored, (count) => count === 1, "the first click at the agent");
    await waitForBadge("REC");

    // Wipe the badge, then stop the worker: only its start-up can put the badge back. The side
    // panel checks the capture's health every few seconds, which would wake the worker at once, so
    // it is closed for this part (a user closing the panel) and opened again afterwards.
    await panel.evaluate(() => chrome.action.setBadgeText({ text: "" }));
    await panel.close();
    await (await serviceWorker()).close();
    await waitUntil(
      async () => chromium.browser.targets().some((target) => target.type() === "service_worker" && target.url().endsWith("/background.js")),
      (running) => !running,
      "the service worker to stop",
    );

    // The page goes on recording; its next message wakes the worker, which picks the capture up.
    await shop.locator("#place").click();
    await waitUntil(clicksStored, (count) => count === 2, "the click made while the worker was stopped, at the agent");
    panel = await chromium.openSidePanel();
    await waitForBadge("REC");
    expect((await badge()).title).toContain(allowedOrigin);
    expect(await registeredMatches()).toEqual([`${allowedOrigin}/*`]);
    // A synthetic event of this page is taken too, so the outbox is alive after the restart.
    const later = observedEvent(sessionId, `${allowedOrigin}/cart`, "Click 'Checkout'");
    expect(await sendFromContent(world, { type: "capture/events", events: [later], snapshots: [] })).toEqual({ queued: 1, duplicates: 0, refused: 0 });
    await waitUntil(
      () => storedEventIds(sessionId),
      (ids) => ids.includes(later.event_id),
      "the later event at the agent",
    );
    await endSession(sessionId);
    await waitForBadge("");
    await shop.close();
  });

  it("keeps events in the outbox while the agent is down and delivers each once when it is back", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/orders`);
    const sessionId = await startCapture([allowedOrigin]);
    const world = await contentWorld(shop);
    const before = observedEvent(sessionId, `${allowedOrigin}/orders`, "Click 'Orders'");
    await sendFromContent(world, { type: "capture/events", events: [before], snapshots: [] });
    await waitUntil(
      () => storedEventIds(sessionId),
      (ids) => ids.includes(before.event_id),
      "the event before the outage",
    );

    const port = agent!.port;
    expect(await agent!.stop()).toBe(0);
    agent = undefined;
    const during = Array.from({ length: 30 }, (_, index) => observedEvent(sessionId, `${allowedOrigin}/orders`, `Click 'Row ${index + 1}'`));
    expect(await sendFromContent(world, { type: "capture/events", events: during, snapshots: [] })).toEqual({ queued: 30, duplicates: 0, refused: 0 });
    // Ours, and whatever the page's own content script recorded meanwhile (its page-load snapshot).
    const waiting = (await panel.evaluate(() => chrome.runtime.sendMessage({ type: "capture/outbox-status" }))) as { queued: number; near_full: boolean };
    expect(waiting).toMatchObject({ capacity: 20_000, near_full: false, refused: 0 });
    expect(waiting.queued).toBeGreaterThanOrEqual(30);
    // The same status is kept where the side panel can watch it.
    const kept = (await panel.evaluate(() => chrome.storage.session.get("outboxStatus"))) as { outboxStatus: { queued: number } };
    expect(kept.outboxStatus.queued).toBe(waiting.queued);

    agent = await startAgentProcess(root, { ELNOR_AGENT_PORT: String(port), ELNOR_LOG_LEVEL: "trace" });
    const ids = await waitUntil(
      () => storedEventIds(sessionId),
      (stored) => during.every((event) => stored.includes(event.event_id)),
      "every event of the outage at the agent",
      45_000,
    );
    for (const event of [before, ...during]) expect(ids.filter((id) => id === event.event_id)).toHaveLength(1);
    await waitUntil(
      () => panel.evaluate(() => chrome.runtime.sendMessage({ type: "capture/outbox-status" })) as Promise<{ queued: number }>,
      (status) => status.queued === 0,
      "an empty outbox",
    );
    await endSession(sessionId);
    await shop.close();
  }, 60_000);

  it("records a demonstration end to end: typed and clicked on the page, stored by the agent, typed text masked", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/checkout`);
    const sessionId = await startCapture([allowedOrigin]);
    await waitForBadge("ARM");
    const world = await contentWorld(shop);
    // The content script injected into this already-open tab has its config once it answers for it.
    await waitUntil(
      async () => world.contextId(),
      (id) => id !== undefined,
      "the content script in the open tab",
    );
    await waitUntil(
      () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
      (reply) => reply.config !== null,
      "the page's config",
    );
    const canary = `canary-${crypto.randomUUID()}`;
    await shop.locator('input[name="email"]').fill(canary);
    await shop.locator("#place").click();

    await waitUntil(
      () => sessionState(sessionId),
      (state) => state === "capturing",
      "the first meaningful event to start the capture",
    );
    await waitForBadge("REC");
    const events = await waitUntil(
      () => storedLines(sessionId),
      (lines) => lines.some((line) => line.includes("Place order")),
      "the click at the agent",
    );
    expect(events.join("\n")).not.toContain(canary);

    // The in-page indicator's buttons go through the background to the agent as the user's clicks.
    expect(await sendFromContent(world, { type: "capture/control", action: "pause" })).toEqual({ ok: true });
    await waitForBadge("II");
    expect(await sendFromContent(world, { type: "capture/control", action: "stop" })).toEqual({ ok: true });
    await waitForBadge("");
    expect(await sessionState(sessionId)).not.toMatch(/^(armed|capturing|paused)$/);
    const boundaries = await boundariesOf(sessionId);
    expect(boundaries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "pause", source: "user_click" }),
        expect.objectContaining({ kind: "stop", source: "user_click" }),
      ]),
    );
    await endSession(sessionId);
    await shop.close();
  });

  it("never lets a canary typed into a text field, a password, a textarea or a contenteditable reach ELNOR_MEMORY, the agent's logs or a WebSocket frame", async () => {
    const worker = await chromium.browser.waitForTarget(
      (target) => target.type() === "service_worker" && target.url() === `chrome-extension://${chromium.extensionId}/background.js`,
    );
    const network = await worker.createCDPSession();
    const frames: string[] = [];
    network.on("Network.webSocketFrameSent", ({ response }) => frames.push(response.payloadData));
    network.on("Network.webSocketFrameReceived", ({ response }) => frames.push(response.payloadData));
    await network.send("Network.enable");

    const profile = await chromium.browser.newPage();
    await profile.goto(`${allowedOrigin}/profile`);
    const sessionId = await startCapture([allowedOrigin]);
    const world = await contentWorld(profile);
    await waitUntil(
      () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
      (reply) => reply.config !== null,
      "the page's config",
    );
    const canary = `CANARY${crypto.randomUUID().replaceAll("-", "")}`;
    for (const selector of ['input[name="display_name"]', 'input[name="password"]', 'textarea[name="notes"]', "#bio"]) {
      await profile.click(selector);
      await profile.keyboard.type(`${canary}-${selector.length}`);
    }
    await profile.click("#save");
    const lines = await waitUntil(
      () => storedLines(sessionId),
      (stored) => stored.some((line) => line.includes("Save profile")) && stored.filter((line) => line.includes('"masked_field"')).length >= 4,
      "the four masked field edits and the click at the agent",
    );
    // The test can see the edits: each field's change was recorded, masked.
    const edits = lines
      .map((line) => JSON.parse(line) as { browser_detail?: { masked_field?: { masked: boolean } } })
      .filter((event) => event.browser_detail?.masked_field !== undefined);
    expect(edits.every((event) => event.browser_detail?.masked_field?.masked === true)).toBe(true);
    // The WebSocket carried the batch (so the frame capture works), and no frame carried the canary.
    await waitUntil(
      async () => frames.some((frame) => frame.includes("Save profile")),
      (seen) => seen,
      "the batch frame",
    );
    expect(frames.join("\n")).not.toContain(canary);
    expect(await memoryText()).not.toContain(canary);
    expect(agent!.output()).not.toContain(canary);
    expect(agent!.output()).toContain("/api/observations/stream");
    await network.detach();
    await endSession(sessionId);
    await profile.close();
  });

  it("delivers every event exactly once when the agent is killed (SIGKILL) in the middle of a capture and restarted", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/checkout`);
    const sessionId = await startCapture([allowedOrigin]);
    const world = await contentWorld(shop);
    await waitUntil(
      () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
      (reply) => reply.config !== null,
      "the page's config",
    );
    const clicks = async () => (await storedLines(sessionId)).filter((line) => line.includes("Place order")).length;
    for (let i = 0; i < 3; i += 1) await shop.locator("#place").click();
    await waitUntil(clicks, (count) => count === 3, "the clicks before the crash");

    const port = agent!.port;
    agent!.proc.kill("SIGKILL");
    await new Promise<void>((resolve) => agent!.proc.once("exit", () => resolve()));
    agent = undefined;
    for (let i = 0; i < 4; i += 1) await shop.locator("#place").click();
    // Give the page time to hand its batch to the background's outbox while the agent is gone.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    agent = await startAgentProcess(root, { ELNOR_AGENT_PORT: String(port), ELNOR_LOG_LEVEL: "trace" });
    await waitUntil(clicks, (count) => count >= 7, "every click at the agent after the restart", 45_000);
    const ids = await storedEventIds(sessionId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await clicks()).toBe(7);
    await endSession(sessionId);
    await shop.close();
  }, 60_000);
});
