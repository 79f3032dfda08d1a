import { readdir, readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page, WebWorker } from "puppeteer-core";
import { expect } from "vitest";
import type { Browser } from "wxt/browser";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchExtensionBrowser, waitForStatus, type ExtensionBrowser } from "./extension-browser";

/**
 * What a test of the background half of observation (issue #4) runs against: a real agent with
 * trace-level logs (so a privacy test checks everything it could possibly log) on a temp
 * ELNOR_MEMORY, two fixture sites on 127.0.0.1, and Chromium with the built extension, its side
 * panel paired. Why the sites live on 127.0.0.1: see e2e/capture/background-capture.e2e.test.ts.
 */

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

export interface CaptureWorld {
  root: string;
  /** Undefined while a test has the agent down; a test that restarts it puts the new one here. */
  agent: AgentProcess | undefined;
  token: string;
  chromium: ExtensionBrowser;
  /** The side panel; a test that closes it opens another and puts it here. */
  panel: Page;
  allowedOrigin: string;
  otherOrigin: string;
  /** The session a test started; cancelled after it even when the test failed, so the next can start one. */
  openSession: string | undefined;
  close(): Promise<void>;
}

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

async function startFixture(fixtures: http.Server[]): Promise<string> {
  const server = http.createServer((request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(request.url?.startsWith("/profile") === true ? PRIVACY_PAGE : FIXTURE_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fixtures.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startCaptureWorld(): Promise<CaptureWorld> {
  const fixtures: http.Server[] = [];
  const { root, cleanup } = await makeTempMemoryRoot();
  const agent = await startAgentProcess(root, { ELNOR_LOG_LEVEL: "trace" });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  const allowedOrigin = await startFixture(fixtures);
  const otherOrigin = await startFixture(fixtures);
  const chromium = await launchExtensionBrowser();
  const panel = await chromium.openSidePanel();
  await waitForStatus(panel, "unpaired");
  await panel.locator('input[name="agent-url"]').fill(agent.url);
  await panel.locator('input[name="token"]').fill(token);
  await panel.locator('button[type="submit"]').click();
  await waitForStatus(panel, "connected");
  const world: CaptureWorld = {
    root,
    agent,
    token,
    chromium,
    panel,
    allowedOrigin,
    otherOrigin,
    openSession: undefined,
    async close() {
      await chromium.close();
      await world.agent?.stop();
      for (const server of fixtures) server.close();
      await cleanup();
    },
  };
  return world;
}

export async function api<T = unknown>(world: CaptureWorld, method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${world.agent!.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${world.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

export async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
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
export const badge = (world: CaptureWorld) =>
  world.panel.evaluate(async () => ({ text: await chrome.action.getBadgeText({}), title: await chrome.action.getTitle({}) }));
export const waitForBadge = (world: CaptureWorld, text: string) =>
  waitUntil(
    () => badge(world),
    (seen) => seen.text === text,
    `badge "${text}"`,
  );
export const registeredMatches = (world: CaptureWorld) =>
  world.panel.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).flatMap((script) => script.matches ?? []));

/** What the side panel does at Start: ask for the sites, make sure the agent sees the extension, then start. */
export async function startCapture(world: CaptureWorld, allowList: string[]): Promise<string> {
  const origins = allowList.filter((site) => site.startsWith("http://127.0.0.1")).map((site) => `${site}/*`);
  expect(await world.panel.evaluate((requested) => chrome.permissions.request({ origins: requested }), origins)).toBe(true);
  expect(await world.panel.evaluate(() => chrome.runtime.sendMessage({ type: "capture/ensure-connected", timeout_ms: 10_000 }))).toEqual({
    connection: "connected",
  });
  const created = await api<{ session: { learn_session_id: string } }>(world, "POST", "/api/learn/sessions", {
    entry_mode: "demonstrating_skill",
    observation_mode: "outside_agent",
    target_app_whitelist: allowList,
  });
  expect(created.status).toBe(201);
  const sessionId = created.body.session.learn_session_id;
  world.openSession = sessionId;
  const started = await api(world, "POST", `/api/learn/sessions/${sessionId}/start`);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return sessionId;
}

export async function endSession(world: CaptureWorld, sessionId: string): Promise<void> {
  await api(world, "POST", `/api/learn/sessions/${sessionId}/cancel`, { reason: "test over" });
  world.openSession = undefined;
}

export function observedEvent(sessionId: string, pageUrl: string, label: string) {
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

export async function storedLines(world: CaptureWorld, sessionId: string): Promise<string[]> {
  const text = await readFile(path.join(world.root, "system/learning/observations", sessionId, "events.jsonl"), "utf8").catch(() => "");
  return text.split("\n").filter((line) => line.trim() !== "");
}

export async function storedEventIds(world: CaptureWorld, sessionId: string): Promise<string[]> {
  return (await storedLines(world, sessionId)).map((line) => (JSON.parse(line) as { event_id: string }).event_id);
}

export async function boundariesOf(world: CaptureWorld, sessionId: string): Promise<Array<{ kind: string; source: string }>> {
  const text = await readFile(path.join(world.root, "system/learning/boundaries.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { learn_session_id: string; kind: string; source: string })
    .filter((boundary) => boundary.learn_session_id === sessionId);
}

export const sessionState = async (world: CaptureWorld, sessionId: string) =>
  (await api<{ state: string }>(world, "GET", `/api/learn/sessions/${sessionId}/detail`)).body.state;

export async function serviceWorker(world: CaptureWorld): Promise<WebWorker> {
  const { chromium } = world;
  const target = await chromium.browser.waitForTarget(
    (candidate) => candidate.type() === "service_worker" && candidate.url() === `chrome-extension://${chromium.extensionId}/background.js`,
  );
  const worker = await target.worker();
  if (worker === null) throw new Error("the background target has no worker");
  return worker;
}

/** Every file under ELNOR_MEMORY, as text. */
export async function memoryText(world: CaptureWorld): Promise<string> {
  const files = (await readdir(world.root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  const texts = await Promise.all(files.map((entry) => readFile(path.join(entry.parentPath, entry.name), "utf8").catch(() => "")));
  return texts.join("\n");
}
