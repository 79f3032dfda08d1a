import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CDPSession, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "wxt/browser";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { memoryText } from "../../agent/test-support/memory-text";
import { SETTLE_MS, agentApi, pair, quiet, sleep, waitUntil } from "../golden/demonstration";
import { leakCases, type LeakCase, type PageRoute } from "./leak-corpus/leak-pages";
import { launchExtensionBrowser, type ExtensionBrowser } from "../test-support/extension-browser";

/**
 * The leak corpus (issue 13) in real Chromium with the built extension and a real agent: on one
 * page per way a page shows typed text back, a canary is typed with real input, in `mask_text` and
 * in `hash_only`; then the proposal is generated (with a model refiner configured), validated with
 * a rehearsal and installed. No canary may appear — as typed, in another case, URL-encoded,
 * HTML-escaped or with other whitespace — in any file under ELNOR_MEMORY, the projected workspace,
 * the agent's log (trace level), any WebSocket frame between the extension and the agent (read
 * through CDP), or any request sent to the refiner.
 */

declare const chrome: typeof Browser;

const INDICATOR = "elnor-learn-indicator";

let root: string;
let cleanup: () => Promise<void>;
let workspace: string;
let agent: AgentProcess;
let chromium: ExtensionBrowser;
let panel: Page;
let api: ReturnType<typeof agentApi>;
let site: http.Server;
let origin: string;
let refiner: http.Server;
const refinerBodies: string[] = [];
const frames: string[] = [];
let frameSession: CDPSession | undefined;

/** The corpus pages and a stand-in for the user's model endpoint that records what it was sent (and answers nothing usable). */
async function serve(routes: Record<string, PageRoute>): Promise<void> {
  // Every page links to the next case, so the demonstration goes from page to page as a person would (and the rehearsal can follow).
  const names = Object.keys(routes);
  site = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const name = /^\/case\/([^/]+)/.exec(url.pathname)?.[1];
    const next = name === undefined ? undefined : names[names.indexOf(name) + 1];
    const link = next === undefined || url.pathname.endsWith("/inner") ? "" : `<p><a id="next-case" href="/case/${next}">Next page</a></p>`;
    const html = name === undefined ? undefined : routes[name]?.(url.pathname, url.searchParams)?.replace("</body>", `${link}</body>`);
    response.writeHead(html === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" });
    response.end(html ?? "not found");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  refiner = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      refinerBodies.push(body);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ choices: [{ message: { content: "{}" } }] }));
    });
  });
  await new Promise<void>((resolve) => refiner.listen(0, "127.0.0.1", resolve));
}

/** Reads every WebSocket frame the service worker sends or receives. */
async function watchFrames(): Promise<void> {
  const target = await chromium.browser.waitForTarget(
    (candidate) => candidate.type() === "service_worker" && candidate.url() === `chrome-extension://${chromium.extensionId}/background.js`,
  );
  frameSession = await target.createCDPSession();
  frameSession.on("Network.webSocketFrameSent", ({ response }) => frames.push(response.payloadData));
  frameSession.on("Network.webSocketFrameReceived", ({ response }) => frames.push(response.payloadData));
  await frameSession.send("Network.enable");
}

/** Everything a page shows now: markup, title, URL, open shadow roots and same-origin frames (to prove the page did echo). */
const shownByPage = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const parts: string[] = [];
    const visit = (document: Document): void => {
      parts.push(document.title, document.location.href, document.documentElement.outerHTML);
      for (const element of document.querySelectorAll("*")) {
        if (element.shadowRoot !== null) parts.push(element.shadowRoot.innerHTML);
        if (element instanceof HTMLIFrameElement && element.contentDocument !== null) visit(element.contentDocument);
        if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) parts.push(element.value);
      }
    };
    visit(document);
    return parts.join("\n");
  });

/** Lower case, percent-decoded, HTML-unescaped, `+` as a space, whitespace collapsed: the forms a value may take in text. */
function normalized(text: string): string {
  const decoded = text.replace(/(%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
  const unescaped = decoded
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&");
  // JSON files write line breaks and tabs as escapes.
  return unescaped
    .replace(/\\[ntr]/g, " ")
    .replace(/\+/g, " ")
    .replace(/[\s\u00a0]+/g, " ")
    .toLowerCase();
}

/** The canary as a whole and each of its lines, in any of the forms above. */
function holdsCanary(text: string, canary: string): boolean {
  const haystack = normalized(text);
  return [canary, ...canary.split("\n")].some((piece) => haystack.includes(normalized(piece.trim())));
}

/** The proposal's parameters, as the compiler wrote them into its draft. */
async function parameterNames(proposalId: string): Promise<string[]> {
  const entries = await readdir(path.join(root, "system/learning/drafts"), { recursive: true, withFileTypes: true });
  const file = entries.find((entry) => entry.isFile() && entry.name === "parameters.json" && entry.parentPath.includes(proposalId));
  if (file === undefined) return [];
  const parameters = JSON.parse(await readFile(path.join(file.parentPath, file.name), "utf8")) as Array<{ name: string }>;
  return parameters.map((parameter) => parameter.name);
}

/** Two different skills (each mode installs its own). */
const GOALS = { mask_text: "Try every kind of page that shows typed text back", hash_only: "Visit the echo pages with hashed entries" } as const;

interface Demonstrated {
  cases: LeakCase[];
  shown: Map<string, string>;
  sessionId: string;
  overall: string;
}

/** A whole demonstration over the corpus, then proposal, validation and install, as a user would. */
async function demonstrateCorpus(mode: "mask_text" | "hash_only"): Promise<Demonstrated> {
  const { cases } = leakCases();
  const created = await api<{ session: { learn_session_id: string } }>("POST", "/api/learn/sessions", {
    entry_mode: "demonstrating_skill",
    observation_mode: "outside_agent",
    target_app_whitelist: [origin],
  });
  const sessionId = created.session.learn_session_id;
  if (mode !== "mask_text") await api("PUT", `/api/learn/sessions/${sessionId}/redaction`, { text_entry: mode });
  await api("POST", `/api/learn/sessions/${sessionId}/start`);
  await api("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: GOALS[mode] });
  await waitUntil(
    () => panel.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).flatMap((script) => script.matches ?? [])),
    (matches) => matches.includes(`${origin}/*`),
    "the content script registration",
  );
  const page = await chromium.browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const shown = new Map<string, string>();
  for (const [index, leak] of cases.entries()) {
    let seen = "";
    const step = async () => {
      // Longer than the golden recordings' pause: the corpus runs beside other browser tests on two cores.
      await sleep(SETTLE_MS * 1.5);
      seen += `\n${await shownByPage(page)}`;
    };
    if (index === 0) await page.goto(`${origin}${leak.path}`, { waitUntil: "load" });
    else await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#next-case")]);
    await page.waitForSelector(INDICATOR, { timeout: 15_000 });
    await sleep(SETTLE_MS);
    await leak.demonstrate(page, step);
    shown.set(leak.name, seen);
  }
  await quiet(root, sessionId);
  await page.close();
  await api("POST", `/api/learn/sessions/${sessionId}/stop`);
  await api("POST", `/api/learn/sessions/${sessionId}/set-test-policy`, {
    test_policy: { policy_id: crypto.randomUUID(), mode: "live_read_safe_write", allowed_domains: ["127.0.0.1"], max_actions: 200, schema_version: 1 },
  });
  const { proposal_id: proposalId } = await api<{ proposal_id: string }>("POST", `/api/learn/sessions/${sessionId}/generate-proposal`);
  const detail = await api<{ questions?: Array<{ question_id: string; required: boolean }> }>("GET", `/api/learn/proposals/${proposalId}/detail`);
  const state = (await api<{ state: string }>("GET", `/api/learn/sessions/${sessionId}/detail`)).state;
  if (state === "awaiting_questions") {
    await api("POST", `/api/learn/sessions/${sessionId}/answer-questions`, {
      answers: (detail.questions ?? [])
        .filter((question) => question.required)
        .map((question) => ({ question_id: question.question_id, answer_text: "The page shows the saved item" })),
    });
  }
  const testValues = Object.fromEntries((await parameterNames(proposalId)).map((name) => [name, "Test value"]));
  const validated = await api<{ validation_run: { overall_result: string } }>("POST", `/api/learn/proposals/${proposalId}/validate`, {
    test_values: testValues,
    schema_version: 1,
  });
  if (validated.validation_run.overall_result === "failed") {
    // Install needs a validation that did not fail: say which steps did, so a broken corpus page is easy to find.
    const failed = (await readFile(path.join(root, "system/learning/validation_step_results.jsonl"), "utf8"))
      .split("\n")
      .filter((line) => line.includes('"result":"failed"'));
    throw new Error(`the corpus rehearsal failed:\n${failed.join("\n")}`);
  }
  await api("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  return { cases, shown, sessionId, overall: validated.validation_run.overall_result };
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-leak-corpus-"));
  workspace = await mkdtemp(path.join(tmpdir(), "elnor-leak-ws-"));
  await serve(leakCases().routes);
  agent = await startAgentProcess(root, {
    OPENCLAW_WORKSPACE: workspace,
    ELNOR_LOG_LEVEL: "trace",
    ELNOR_REFINER_URL: `http://127.0.0.1:${(refiner.address() as AddressInfo).port}/v1`,
    ELNOR_REFINER_MODEL: "leak-check",
  });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  api = agentApi(agent, token);
  chromium = await launchExtensionBrowser();
  panel = await pair(chromium, agent, token);
  const granted = await panel.evaluate((origins) => chrome.permissions.request({ origins }), [`${origin}/*`]);
  if (!granted) throw new Error("site access was not granted");
  await watchFrames();
}, 60_000);

afterAll(async () => {
  await frameSession?.detach().catch(() => undefined);
  await chromium?.close();
  await agent?.stop();
  site?.close();
  refiner?.close();
  await cleanup?.();
  await rm(workspace, { recursive: true, force: true });
});

describe.each(["mask_text", "hash_only"] as const)("the leak corpus in %s mode", (mode) => {
  let run: Demonstrated;
  let memory: string;
  let projected: string;

  beforeAll(async () => {
    run = await demonstrateCorpus(mode);
    memory = await memoryText(root, "utf8");
    projected = await memoryText(workspace, "utf8");
  }, 240_000);

  it("went all the way: events recorded for every page, a proposal validated and installed, the refiner asked", async () => {
    const events = (await readFile(path.join(root, "system/learning/observations", run.sessionId, "events.jsonl"), "utf8")).split("\n").filter(Boolean);
    expect(events.filter((line) => line.includes('"masked_field"')).length).toBeGreaterThanOrEqual(run.cases.length);
    expect(["passed", "partial", "failed"]).toContain(run.overall);
    expect(projected.length).toBeGreaterThan(0);
    expect((await readdir(path.join(workspace, "skills"))).length).toBeGreaterThan(0);
    expect(refinerBodies.length).toBeGreaterThan(0);
    expect(frames.some((frame) => frame.includes(run.sessionId))).toBe(true);
  });

  it.each(leakCases().cases.map((leak) => leak.name))("%s: the page showed the canary back, and it is nowhere the agent or the model can see", (name) => {
    const leak = run.cases.find((candidate) => candidate.name === name)!;
    // The check can fail: the page itself did show the value (in its text, title, URL or markup).
    expect(holdsCanary(run.shown.get(name) ?? "", leak.canary), `the ${name} page never showed its canary`).toBe(true);
    expect(holdsCanary(memory, leak.canary), `ELNOR_MEMORY holds the ${name} canary`).toBe(false);
    expect(holdsCanary(projected, leak.canary), `the workspace holds the ${name} canary`).toBe(false);
    expect(holdsCanary(agent.output(), leak.canary), `the agent's log holds the ${name} canary`).toBe(false);
    expect(holdsCanary(frames.join("\n"), leak.canary), `a WebSocket frame holds the ${name} canary`).toBe(false);
    expect(holdsCanary(refinerBodies.join("\n"), leak.canary), `a refiner request holds the ${name} canary`).toBe(false);
  });
});
