import { readFile } from "node:fs/promises";
import path from "node:path";
import type { WebWorker } from "puppeteer-core";
import type { Browser } from "wxt/browser";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { httpAgentCall, type AgentCall } from "../../agent/test-support/ready-proposal";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { memoryText } from "../../agent/test-support/memory-text";
import { RunResponseSchema, type RunRecord } from "../../shared/execution/run-contract";
import { launchExtensionBrowser, pairPanel, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";

/** Inside `worker.evaluate` in the extension's service worker, its own `chrome` global. */
declare const chrome: typeof Browser;

/**
 * Issue #33 "ask where the person is", in real Chromium with the built extension and a real agent:
 * an assistant's run (started on the API with caller `mcp`, as the MCP server starts it) reaches the
 * fixture shop's committing "Send message" while no side panel is open. The extension raises a
 * Chrome notification with Do it / Don't and shows ASK on the toolbar; the answer goes to the
 * agent's confirm route; the run's end is told in a notification of its own.
 *
 * Headless Chromium cannot click an OS notification. The test stands in for the person's click by
 * dispatching the click to the very listeners the extension registered on
 * `chrome.notifications.onButtonClicked` / `onClicked` (the event's own `dispatch`, from the service
 * worker), which is what Chrome calls when the person clicks. Chrome's notification API does not
 * give a notification's text back, so the test also wraps `chrome.notifications.create` in the
 * worker to read what was shown (the real create still runs; `getAll()` lists the result).
 */
let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let site: RunFixtureSite;
let chromium: ExtensionBrowser;
let call: AgentCall;
let abilityId: string;

const CANARY = `Canary-${crypto.randomUUID().slice(0, 8)}`;

interface Shown {
  id: string;
  title: string;
  message: string;
  contextMessage?: string;
  buttons?: Array<{ title: string }>;
}

async function worker(): Promise<WebWorker> {
  const target = await chromium.browser.waitForTarget((found) => found.type() === "service_worker" && found.url().endsWith("/background.js"), {
    timeout: 60_000,
  });
  const handle = await target.worker();
  if (handle === null) throw new Error("no service worker");
  return handle;
}

/**
 * Wraps `chrome.notifications.create` in the worker so the test can read what was shown, and the
 * worker's `fetch` so it can count the answers the extension sent; the real ones still run.
 */
async function watchNotifications(sw: WebWorker): Promise<void> {
  await sw.evaluate(() => {
    const self = globalThis as unknown as { shownNotices?: unknown[]; answersSent?: string[] };
    if (self.shownNotices !== undefined) return;
    self.shownNotices = [];
    self.answersSent = [];
    const realFetch = globalThis.fetch.bind(globalThis);
    globalThis.fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.endsWith("/confirm")) self.answersSent?.push(`${url} ${String(init?.body)}`);
      return realFetch(input, init);
    };
    const notifications = chrome.notifications as unknown as { create: (id: string, options: Record<string, unknown>) => Promise<string> };
    const create = notifications.create.bind(notifications);
    notifications.create = (id, options) => {
      self.shownNotices?.push({ id, ...options });
      return create(id, options);
    };
  });
}

const shown = async (sw: WebWorker) => (await sw.evaluate(() => (globalThis as unknown as { shownNotices?: unknown[] }).shownNotices ?? [])) as Shown[];
const answersSent = async (sw: WebWorker) => (await sw.evaluate(() => (globalThis as unknown as { answersSent?: string[] }).answersSent ?? [])) as string[];
const listed = async (sw: WebWorker) => Object.keys(await sw.evaluate(() => chrome.notifications.getAll()));
const badge = (sw: WebWorker) => sw.evaluate(async () => ({ text: await chrome.action.getBadgeText({}), title: await chrome.action.getTitle({}) }));

async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await probe();
  }
  return last;
}

/** Runs started by the tests: one a test left waiting (it failed half-way) is cancelled after it, so the next starts clean. */
const started: string[] = [];

async function startRun(caller: "mcp" | "api" = "mcp"): Promise<string> {
  const answer = await call("POST", "/api/runs", {
    ability_id: abilityId,
    inputs: { message: `Hello ${CANARY}`, access_code: CANARY },
    caller,
    schema_version: 1,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  const dispatchId = RunResponseSchema.parse(answer.body).run.dispatch_id;
  started.push(dispatchId);
  return dispatchId;
}

async function until(dispatchId: string, done: (run: RunRecord) => boolean, timeoutMs = 60_000): Promise<RunRecord> {
  return waitUntil(async () => RunResponseSchema.parse((await call("GET", `/api/runs/${dispatchId}`)).body).run, done, `run ${dispatchId}`, timeoutMs);
}
const over = (run: RunRecord) => run.completed_at !== undefined;
const waiting = (run: RunRecord) => run.state === "needs_confirmation" || over(run);

/** The ask notification of a run, once the extension has shown it. */
const askOf = (sw: WebWorker, dispatchId: string, timeoutMs = 20_000) =>
  waitUntil(
    async () => (await listed(sw)).find((id) => id.startsWith(`elnor-run|ask|${dispatchId}|`)),
    (id) => id !== undefined,
    "the ask notification",
    timeoutMs,
  ) as Promise<string>;

/** What Chrome calls when the person clicks a notification's button (the OS click, which headless Chromium cannot make). */
const clickButton = (sw: WebWorker, id: string, index: number) =>
  sw.evaluate(
    (notificationId, button) =>
      (chrome.notifications.onButtonClicked as unknown as { dispatch(id: string, index: number): void }).dispatch(notificationId, button),
    id,
    index,
  );

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-run-notices-"));
  site = await serveRunFixtureSite();
  agent = await startAgentProcess(root);
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  call = httpAgentCall(agent.url, token);
  ({ abilityId } = await installContactAbility(call, site));
  chromium = await launchExtensionBrowser();
  const panel = await chromium.openSidePanel();
  await pairPanel(panel, agent.url, token);
  // The person is elsewhere: no side panel is open from here on.
  await panel.close();
}, 90_000);

afterEach(async () => {
  for (const dispatchId of started.splice(0)) {
    const run = RunResponseSchema.parse((await call("GET", `/api/runs/${dispatchId}`)).body).run;
    if (!over(run)) await call("POST", `/api/runs/${dispatchId}/cancel`, { schema_version: 1 });
  }
});

afterAll(async () => {
  await chromium?.close();
  await agent?.stop();
  await site?.close();
  await cleanup?.();
});

describe("a run that waits for the person while no panel is open (issue #33)", { timeout: 120_000 }, () => {
  it("asks in a notification with Do it / Don't, shows ASK, and Do it sends exactly once however often it is clicked", async () => {
    const sw = await worker();
    await watchNotifications(sw);
    const sendsBefore = site.sends();
    const dispatchId = await startRun("mcp");
    expect((await until(dispatchId, waiting)).state).toBe("needs_confirmation");
    const id = await askOf(sw, dispatchId);
    const ask = (await shown(sw)).find((notice) => notice.id === id);
    expect(ask).toMatchObject({
      title: "Allow this step?",
      message: `Send a message to the shop wants to: Click "Send message" (button) on ${site.host}`,
      contextMessage: expect.stringContaining("Started by your assistant (MCP)"),
      buttons: [{ title: "Do it" }, { title: "Don't" }],
    });
    expect(JSON.stringify(ask)).not.toContain(CANARY);
    // The badge follows the notification once the question is stored (run-notices.ts): wait for it.
    expect(
      await waitUntil(
        () => badge(sw),
        (seen) => seen.text === "ASK",
        "the ASK badge",
      ),
    ).toEqual({ text: "ASK", title: "Ability Learning: Send a message to the shop waits for your answer" });
    expect(site.sends()).toBe(sendsBefore);

    // Stands in for the OS click: the person's double click on Do it, through the listener Chrome calls.
    await clickButton(sw, id, 0);
    await clickButton(sw, id, 0);
    const done = await until(dispatchId, over);
    expect(done.state, JSON.stringify(done.failure)).toBe("succeeded");
    // The shop's own server state: one message, not two; and one answer left the extension.
    expect(site.sends()).toBe(sendsBefore + 1);
    const answers = (await answersSent(sw)).filter((sent) => sent.includes(`/api/runs/${dispatchId}/confirm`));
    expect(answers).toHaveLength(1);
    expect(answers[0]).toContain('"decision":"confirm"');
    await waitUntil(
      () => badge(sw),
      (seen) => seen.text === "",
      "the ASK badge to clear",
    );
    expect(await listed(sw)).not.toContain(id);

    const end = await waitUntil(
      async () => (await shown(sw)).find((notice) => notice.id.startsWith(`elnor-run|end|${dispatchId}|`)),
      (notice) => notice !== undefined,
      "the end notification",
    );
    expect(end).toMatchObject({ title: "Done: Send a message to the shop", message: "Finished: all 2 checkpoints were reached." });
    expect(end?.buttons).toBeUndefined();
    // Nothing typed into the run is in anything the extension showed.
    expect(JSON.stringify(await shown(sw))).not.toContain(CANARY);
  });

  it("Don't sends nothing and the run ends declined, told in one line", async () => {
    const sw = await worker();
    await watchNotifications(sw);
    const sendsBefore = site.sends();
    const dispatchId = await startRun("api");
    expect((await until(dispatchId, waiting)).state).toBe("needs_confirmation");
    const id = await askOf(sw, dispatchId);
    await waitUntil(
      () => badge(sw),
      (seen) => seen.text === "ASK",
      "the ASK badge",
    );
    await clickButton(sw, id, 1);
    const ended = await until(dispatchId, over);
    expect(ended.state).toBe("cancelled");
    expect(ended.failure?.code).toBe("CONFIRMATION_DECLINED");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(site.sends()).toBe(sendsBefore);
    expect((await answersSent(sw)).filter((sent) => sent.includes(`/api/runs/${dispatchId}/confirm`))).toEqual([
      expect.stringContaining('"decision":"decline"'),
    ]);
    await waitUntil(
      () => badge(sw),
      (seen) => seen.text === "",
      "the ASK badge to clear",
    );
    const end = await waitUntil(
      async () => (await shown(sw)).find((notice) => notice.id.startsWith(`elnor-run|end|${dispatchId}|`)),
      (notice) => notice !== undefined,
      "the end notification",
    );
    expect(end).toMatchObject({ title: "Not done: Send a message to the shop", message: "The step was declined, so it was not done and the run stopped." });
  });

  it("a worker that was stopped learns on reconnect which run waits, and asks", async () => {
    const before = await worker();
    await before.close();
    const dispatchId = await startRun("mcp");
    expect((await until(dispatchId, waiting)).state).toBe("needs_confirmation");
    // Woken by its keepalive alarm (30 s), the worker reconnects; the agent's welcome is followed by the runs waiting now.
    const sw = await worker();
    const id = await askOf(sw, dispatchId, 60_000);
    await waitUntil(
      () => badge(sw),
      (seen) => seen.text === "ASK",
      "ASK after the restart",
      10_000,
    );
    await clickButton(sw, id, 1);
    expect((await until(dispatchId, over)).state).toBe("cancelled");
    await waitUntil(
      () => badge(sw),
      (seen) => seen.text === "",
      "the ASK badge to clear",
    );
  });

  it("clicking the notification's body opens the side panel on that run, where it can be answered too", async () => {
    const sw = await worker();
    const dispatchId = await startRun("mcp");
    expect((await until(dispatchId, waiting)).state).toBe("needs_confirmation");
    const id = await askOf(sw, dispatchId);
    // Stands in for the OS click on the body. Chrome lets sidePanel.open() run inside a real
    // notification click (Chrome dispatches it as a user gesture); a dispatch from the test is no
    // gesture, so Chrome refuses and the extension opens the panel's page in a tab instead: the
    // run shown there is what this checks.
    await sw.evaluate((notificationId) => (chrome.notifications.onClicked as unknown as { dispatch(id: string): void }).dispatch(notificationId), id);
    const panelPage = await waitUntil(
      async () => (await chromium.browser.pages()).find((page) => page.url().endsWith("/sidepanel.html")),
      (page) => page !== undefined,
      "the panel's page",
    );
    if (panelPage === undefined) throw new Error("no panel page");
    await panelPage.waitForSelector(`[data-run-progress][data-dispatch-id="${dispatchId}"][data-run-state="needs_confirmation"]`, { timeout: 20_000 });
    await panelPage.waitForSelector("[data-run-confirmation]", { timeout: 5_000 });
    await panelPage.setViewport({ width: 360, height: 720 });
    await saveScreenshot(panelPage, "run-from-notification");
    // The question stays in the notification until it is answered, here or there.
    expect(await listed(sw)).toContain(id);
    await call("POST", `/api/runs/${dispatchId}/cancel`, { schema_version: 1 });
    await until(dispatchId, over);
    await waitUntil(
      () => listed(sw),
      (ids) => !ids.includes(id),
      "the question to go once the run ended",
    );
    await panelPage.close();
  });

  it("keeps no typed value in any file of ELNOR_MEMORY", async () => {
    expect(await memoryText(root)).not.toContain(CANARY);
  });
});
