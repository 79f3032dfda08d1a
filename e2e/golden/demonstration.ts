/**
 * Drives a real demonstration: a paired extension in Chromium, a real agent, a fixture site, and a
 * flow done with real input. Shared by the golden recorder (e2e/golden/record-golden.ts) and
 * `npm run demo` (e2e/demo.ts).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { KeyInput, Page } from "puppeteer-core";
import type { Browser } from "wxt/browser";
import { z } from "zod";
import { WorkflowBoundarySchema, type WorkflowBoundary } from "../../shared/learning/sessions/boundary";
import { ObservedActionEventWithDetailSchema } from "../../shared/learning/observed-actions/observed-action";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import { pairPanel, type ExtensionBrowser } from "../test-support/extension-browser";
import type { FixtureSite } from "./fixture-server";
import type { FlowActor, GoldenFlow } from "./flows";

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

/** Longer than the content script's 300 ms snapshot debounce, so each action gets its own after-snapshot. */
export const SETTLE_MS = 800;
const INDICATOR = "elnor-learn-indicator";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await sleep(150);
    last = await probe();
  }
  return last;
}

export function agentApi(agent: AgentProcess, token: string) {
  return async <T = unknown>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${agent.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  };
}

/**
 * Real input on the page; every step waits for the capture to see it settle (`pauseMs`, the time a
 * person leaves between two actions; `npm run learn-quality` leaves as long as a person reading the
 * page would, so the capture's settled snapshot is taken).
 */
export function actorFor(page: Page, pause = SETTLE_MS): FlowActor {
  const captureRunning = async () => {
    await page.waitForSelector(INDICATOR, { timeout: 15_000 });
    await sleep(pause);
  };
  return {
    async type(selector, text) {
      await page.click(selector);
      await page.keyboard.type(text);
      await sleep(pause);
    },
    async click(selector) {
      await page.click(selector);
      await sleep(pause);
    },
    async press(key: KeyInput) {
      await page.keyboard.press(key);
      await sleep(pause);
    },
    async clickAndLoad(selector) {
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
      await captureRunning();
    },
    async pressAndLoad(key) {
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.keyboard.press(key)]);
      await captureRunning();
    },
    async typeThenLoad(selector, text, submit) {
      await page.click(selector);
      await page.keyboard.type(text);
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), "click" in submit ? page.click(submit.click) : page.keyboard.press(submit.press)]);
      await captureRunning();
    },
  };
}

export interface Recording {
  events: string[];
  snapshots: Map<string, string>;
  boundaries: WorkflowBoundary[];
}

export async function readRecording(root: string, sessionId: string): Promise<Recording> {
  const folder = path.join(root, "system/learning/observations", sessionId);
  const lines = (await readFile(path.join(folder, "events.jsonl"), "utf8").catch(() => "")).split("\n").filter((line) => line.trim() !== "");
  const refs = new Set<string>();
  for (const line of lines) {
    const event = ObservedActionEventWithDetailSchema.parse(JSON.parse(line));
    for (const ref of [event.before_state_ref, event.after_state_ref]) if (ref?.startsWith("snapshot:") === true) refs.add(ref.slice("snapshot:".length));
  }
  const snapshots = new Map<string, string>();
  for (const sha of refs) {
    const text = await readFile(path.join(folder, "snapshots", `${sha}.json`), "utf8").catch(() => undefined);
    if (text !== undefined) snapshots.set(sha, text);
  }
  const boundaryLines = (await readFile(path.join(root, "system/learning/boundaries.jsonl"), "utf8")).split("\n").filter((line) => line.trim() !== "");
  const boundaries = boundaryLines.map((line) => WorkflowBoundarySchema.parse(JSON.parse(line))).filter((boundary) => boundary.learn_session_id === sessionId);
  return { events: lines, snapshots, boundaries };
}

/** Waits until the agent has stored everything the page sent: the event count holds still for a while. */
export async function quiet(root: string, sessionId: string): Promise<number> {
  let last = -1;
  let stableSince = Date.now();
  for (;;) {
    const count = (await readRecording(root, sessionId)).events.length;
    if (count !== last) {
      last = count;
      stableSince = Date.now();
    } else if (Date.now() - stableSince > 2_000) {
      return count;
    }
    await sleep(200);
  }
}

export async function pair(chromium: ExtensionBrowser, agent: AgentProcess, token: string): Promise<Page> {
  const panel = await chromium.openSidePanel();
  await pairPanel(panel, agent.url, token);
  return panel;
}

export const CreatedSchema = z.object({ session: z.object({ learn_session_id: z.string().uuid() }) });
export const DetailSchema = z.object({ state: z.string() });
export const GeneratedSchema = z.object({ proposal_id: z.string(), session: z.object({ state: z.string() }) });

/**
 * The demonstration itself, as a user does it: site access at Start, a Demonstrating Skill session
 * for the site, the flow with real input, Stop. Resolves with the session once the agent has stored
 * everything the page sent.
 */
export async function demonstrate(options: {
  root: string;
  agent: AgentProcess;
  token: string;
  chromium: ExtensionBrowser;
  panel: Page;
  site: FixtureSite;
  flow: Pick<GoldenFlow, "goal" | "textEntry" | "startPath" | "perform">;
  pauseMs?: number;
}): Promise<string> {
  const { root, agent, token, chromium, panel, site, flow } = options;
  const api = agentApi(agent, token);
  // What the side panel does at Start: ask for the site, make sure the agent sees the extension.
  const granted = await panel.evaluate((origins) => chrome.permissions.request({ origins }), [`${site.origin}/*`]);
  if (!granted) throw new Error(`site access for ${site.origin} was not granted`);
  const connection = await panel.evaluate(() => chrome.runtime.sendMessage({ type: "capture/ensure-connected", timeout_ms: 10_000 }));
  if (JSON.stringify(connection) !== JSON.stringify({ connection: "connected" }))
    throw new Error(`the extension is not connected: ${JSON.stringify(connection)}`);

  const created = CreatedSchema.parse(
    await api("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill", observation_mode: "outside_agent", target_app_whitelist: [site.origin] }),
  );
  const sessionId = created.session.learn_session_id;
  if (flow.textEntry !== "mask_text") await api("PUT", `/api/learn/sessions/${sessionId}/redaction`, { text_entry: flow.textEntry });
  await api("POST", `/api/learn/sessions/${sessionId}/start`);
  await waitUntil(
    () => panel.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).flatMap((script) => script.matches ?? [])),
    (matches) => matches.includes(`${site.origin}/*`),
    "the content script registration for the fixture site",
  );
  if (flow.goal !== undefined) await api("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: flow.goal });

  const page = await chromium.browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(`${site.origin}${flow.startPath}`, { waitUntil: "load" });
  await page.waitForSelector(INDICATOR, { timeout: 15_000 });
  await sleep(SETTLE_MS);
  await flow.perform(actorFor(page, options.pauseMs));
  await quiet(root, sessionId);

  await api("POST", `/api/learn/sessions/${sessionId}/stop`);
  await waitUntil(
    async () => DetailSchema.parse(await api("GET", `/api/learn/sessions/${sessionId}/detail`)).state,
    (state) => state === "stopped",
    "the session to stop",
  );
  return sessionId;
}
