/**
 * Records the golden demonstrations of issue #5 with the built extension in real Chromium and a
 * real agent, and keeps each as a fixture under agent/learning/compiler/golden/<flow>/:
 * `events.jsonl` and `snapshots/` exactly as the agent stored them, and `boundaries.json` (the
 * session's lines of boundaries.jsonl). agent/learning/compiler/golden.test.ts compiles them.
 *
 *   npm run build && node --import tsx e2e/golden/record-golden.ts [flow …]
 *
 * Per flow: a temp ELNOR_MEMORY and agent, a fresh Chromium profile, pairing through the side
 * panel, site access for the fixture origin (127.0.0.1, granted without a prompt, as in
 * e2e/background-capture.e2e.test.ts), a Demonstrating Skill session (outside_agent, whitelist =
 * the fixture origin), the flow done with real input, Stop, then the copy. Nothing is written if a
 * typed canary shows up in what would be kept.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { KeyInput, Page } from "puppeteer-core";
import type { Browser } from "wxt/browser";
import { z } from "zod";
import { WorkflowBoundarySchema, type WorkflowBoundary } from "../../shared/learning/boundary";
import { ObservedActionEventWithDetailSchema } from "../../shared/learning/observed-action";
import { projectRoot, startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchExtensionBrowser, waitForStatus, type ExtensionBrowser } from "../support/extension-browser";
import { canaryNeedles } from "./canaries";
import { serveFixtureSite } from "./fixture-server";
import { GOLDEN_FLOWS, type FlowActor, type GoldenFlow } from "./flows";

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

const GOLDEN_DIR = path.join(projectRoot, "agent", "learning", "compiler", "golden");
/** Longer than the content script's 300 ms snapshot debounce, so each action gets its own after-snapshot. */
const SETTLE_MS = 800;
const INDICATOR = "elnor-learn-indicator";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await sleep(150);
    last = await probe();
  }
  return last;
}

function agentApi(agent: AgentProcess, token: string) {
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

/** Real input on the page; every step waits for the capture to see it settle. */
function actorFor(page: Page): FlowActor {
  const captureRunning = async () => {
    await page.waitForSelector(INDICATOR, { timeout: 15_000 });
    await sleep(SETTLE_MS);
  };
  return {
    async type(selector, text) {
      await page.click(selector);
      await page.keyboard.type(text);
      await sleep(SETTLE_MS);
    },
    async click(selector) {
      await page.click(selector);
      await sleep(SETTLE_MS);
    },
    async press(key: KeyInput) {
      await page.keyboard.press(key);
      await sleep(SETTLE_MS);
    },
    async clickAndLoad(selector) {
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
      await captureRunning();
    },
    async pressAndLoad(key) {
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.keyboard.press(key)]);
      await captureRunning();
    },
  };
}

interface Recording {
  events: string[];
  snapshots: Map<string, string>;
  boundaries: WorkflowBoundary[];
}

async function readRecording(root: string, sessionId: string): Promise<Recording> {
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
async function quiet(root: string, sessionId: string): Promise<number> {
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

async function pair(chromium: ExtensionBrowser, agent: AgentProcess, token: string): Promise<Page> {
  const panel = await chromium.openSidePanel();
  await waitForStatus(panel, "unpaired");
  await panel.locator('input[name="agent-url"]').fill(agent.url);
  await panel.locator('input[name="token"]').fill(token);
  await panel.locator('button[type="submit"]').click();
  await waitForStatus(panel, "connected");
  return panel;
}

const CreatedSchema = z.object({ session: z.object({ learn_session_id: z.string().uuid() }) });
const DetailSchema = z.object({ state: z.string() });
const GeneratedSchema = z.object({ proposal_id: z.string(), session: z.object({ state: z.string() }) });

async function recordFlow(flow: GoldenFlow): Promise<void> {
  const { root, cleanup } = await makeTempMemoryRoot("elnor-golden-");
  let agent: AgentProcess | undefined;
  let chromium: ExtensionBrowser | undefined;
  const site = await serveFixtureSite(flow.routes, flow.port);
  try {
    agent = await startAgentProcess(root);
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    const api = agentApi(agent, token);
    chromium = await launchExtensionBrowser();
    const panel = await pair(chromium, agent, token);

    // What the side panel does at Start: ask for the site, make sure the agent sees the extension.
    const granted = await panel.evaluate((origins) => chrome.permissions.request({ origins }), [`${site.origin}/*`]);
    if (!granted) throw new Error(`site access for ${site.origin} was not granted`);
    const connection = await panel.evaluate(() => chrome.runtime.sendMessage({ type: "capture/ensure-connected", timeout_ms: 10_000 }));
    if (JSON.stringify(connection) !== JSON.stringify({ connection: "connected" })) throw new Error(`the extension is not connected: ${JSON.stringify(connection)}`);

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
    await flow.perform(actorFor(page));
    await quiet(root, sessionId);

    await api("POST", `/api/learn/sessions/${sessionId}/stop`);
    await waitUntil(async () => DetailSchema.parse(await api("GET", `/api/learn/sessions/${sessionId}/detail`)).state, (state) => state === "stopped", "the session to stop");
    const count = await quiet(root, sessionId);
    const recording = await readRecording(root, sessionId);
    await keep(flow, recording);

    // Not kept: what the agent makes of it over HTTP, so a recording can be judged at a glance.
    const generated = GeneratedSchema.parse(await api("POST", `/api/learn/sessions/${sessionId}/generate-proposal`));
    console.log(`${flow.name}: ${count} events, ${recording.snapshots.size} snapshots, ${recording.boundaries.length} boundaries; proposal → ${generated.session.state}`);
  } finally {
    await chromium?.close();
    await agent?.stop();
    await site.close();
    await cleanup();
  }
}

/** Writes the fixture, after checking that nothing typed is in it (privacy of what we commit). */
async function keep(flow: GoldenFlow, recording: Recording): Promise<void> {
  const files = new Map<string, string>([
    ["events.jsonl", `${recording.events.join("\n")}\n`],
    ["boundaries.json", `${JSON.stringify(recording.boundaries, null, 2)}\n`],
    ...[...recording.snapshots].map(([sha, text]): [string, string] => [`snapshots/${sha}.json`, text]),
  ]);
  for (const [name, text] of files) {
    const leaked = canaryNeedles().find((needle) => text.toLowerCase().includes(needle.toLowerCase()));
    if (leaked !== undefined) throw new Error(`${flow.name}/${name} contains the typed value "${leaked}": not kept`);
  }
  const folder = path.join(GOLDEN_DIR, flow.name);
  await rm(folder, { recursive: true, force: true });
  await mkdir(path.join(folder, "snapshots"), { recursive: true });
  for (const [name, text] of files) await writeFile(path.join(folder, name), text);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !GOLDEN_FLOWS.some((flow) => flow.name === name));
if (unknown.length > 0) throw new Error(`Unknown flow(s): ${unknown.join(", ")}; known: ${GOLDEN_FLOWS.map((flow) => flow.name).join(", ")}`);
for (const flow of GOLDEN_FLOWS.filter((candidate) => wanted.length === 0 || wanted.includes(candidate.name))) {
  await recordFlow(flow);
}
