import { randomUUID } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import { startCoachingWorld, type CoachingWorld } from "../test-support/coaching-world";
import { type ExtensionBrowser } from "../test-support/extension-browser";
import { waitForCard } from "../test-support/panel-flow";

/**
 * Coaching Agent (issue #16) and the privacy invariant (DESIGN §8), in real Chromium with the built
 * extension and a real agent process (trace-level log): the person shows a step by typing a canary
 * (real key presses) into a search field of a page that echoes it — a chip named "Remove <canary>
 * filter", a heading "Results for <canary>", the title and a hash route `#/search/<canary>`. The
 * next turn reads that page and proposes the chip. The canary must appear nowhere the agent keeps
 * or says anything: no file under ELNOR_MEMORY (coaching.json: the turn's target, its reasons, the
 * alternatives), the agent's log, the `GET …/coaching` answer, the panel.
 */

const FIXTURE = path.join(import.meta.dirname, "coaching-fixtures", "search.html");
const STEPS = ["search for a customer", "remove the filter"];

let root: string;
let world: CoachingWorld | undefined;
let agent: AgentProcess | undefined;
let chromium: ExtensionBrowser;
let site: string;
let panel: Page;
let token: string;
let sessionId: string;

async function agentApi(route: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${agent!.url}${route}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text() };
}

async function openTurn(turn: number, status = "awaiting_answer", timeout = 30_000): Promise<string> {
  await panel.waitForSelector(`[data-turn="${turn}"][data-turn-status="${status}"]`, { timeout }).catch(async (error: unknown) => {
    const state = await agentApi(`/api/learn/sessions/${sessionId}/coaching`).catch(() => undefined);
    throw new Error(`turn ${turn} never became ${status}; the agent said ${state?.text ?? "nothing"}`, { cause: error });
  });
  return panel.$eval(`[data-turn="${turn}"]`, (element) => (element as HTMLElement).innerText);
}

async function press(name: string): Promise<void> {
  await panel.waitForSelector(`button[name="${name}"]:not([disabled])`, { timeout: 15_000 });
  await panel.$eval(`button[name="${name}"]`, (button) => (button as HTMLButtonElement).click());
}

/** The tab the extension lent the agent: the fixture with the assistant's in-page bar. */
async function lentTab(): Promise<Page> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    for (const page of await chromium.browser.pages()) {
      if (page.url().startsWith(site) && (await page.$("elnor-run-indicator").catch(() => null)) !== null) return page;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("no tab shows the fixture");
}

/** Every file under a folder, as text. */
async function filesUnder(folder: string): Promise<Array<{ file: string; text: string }>> {
  const found: Array<{ file: string; text: string }> = [];
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    found.push({ file, text: await readFile(file, "latin1") });
  }
  return found;
}

beforeAll(async () => {
  world = await startCoachingWorld(FIXTURE, { prefix: "elnor-coaching-privacy", env: { ELNOR_LOG_LEVEL: "trace" } });
  ({ root, agent, token, site, chromium, panel } = world);
}, 90_000);

afterAll(async () => {
  await world?.close();
});

describe("Coaching Agent reading a page that shows back what the person typed", () => {
  it("never gives the agent a value the person typed while showing a step", async () => {
    await waitForCard(panel, "Coaching Agent");
    await panel.locator('[data-card="Coaching Agent"] button').click();
    await panel.waitForSelector("[data-coaching-setup]");
    await panel.waitForFunction(
      (wanted) => (document.querySelector('input[name="coaching-start"]') as HTMLInputElement | null)?.value === wanted,
      { polling: 200, timeout: 10_000 },
      `${site}/#/`,
    );
    const steps = await panel.$$('input[name="coaching-step"]');
    for (const [index, words] of STEPS.entries()) await steps[index]!.type(words);
    // Start needs the extension's recorder to have reported in (its heartbeat follows the pairing).
    for (let attempt = 0; attempt < 100 && !(await agentApi("/api/observation/adapters")).text.includes("browser_dom"); attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 200));
    await panel.locator('button[name="coaching-start-session"]').click();
    await panel.waitForSelector("[data-tab-consent]", { timeout: 15_000 });
    await panel.locator("[data-tab-consent] button::-p-text(Allow and start)").click();
    await panel.waitForFunction(
      () => ["armed", "capturing"].includes(document.querySelector("[data-session-state]")?.getAttribute("data-session-state") ?? ""),
      { polling: 200, timeout: 20_000 },
    );
    sessionId = (JSON.parse((await agentApi("/api/learn/runtime/current")).text) as { learn_session_id: string }).learn_session_id;

    // Turn 1: the person shows it, typing the canary with real key presses; the page echoes it.
    await openTurn(1);
    await press("coaching-show-me");
    await openTurn(1, "user_showing");
    const tab = await lentTab();
    await tab.bringToFront();
    const canary = `zq8canary${randomUUID().replace(/-/g, "").slice(0, 10)}`;
    await tab.click("#q");
    await tab.keyboard.type(canary, { delay: 10 });
    await tab.keyboard.press("Tab");
    await tab.waitForFunction(
      (value) => document.querySelector("h2")?.textContent === `Results for ${value}` && location.hash === `#/search/${value}`,
      {},
      canary,
    );
    expect(await tab.$eval("#out button", (button) => button.getAttribute("aria-label"))).toBe(`Remove ${canary} filter`);
    for (let attempt = 0; attempt < 40; attempt += 1) {
      await press("coaching-shown");
      const next = await panel.waitForSelector('[data-turn="2"]', { timeout: 1_000 }).catch(() => null);
      if (next !== null) break;
    }

    // Turn 2 read the echoing page: it proposes the chip, named with the typed value cut out.
    const second = await openTurn(2);
    expect(second).toContain("Remove ••• filter");
    expect(second).not.toContain(canary);
    const coaching = await agentApi(`/api/learn/sessions/${sessionId}/coaching`);
    expect(coaching.status).toBe(200);
    expect(coaching.text).toContain("Remove ••• filter");
    expect(coaching.text).not.toContain(canary);
    expect(await panel.evaluate(() => document.body.innerText)).not.toContain(canary);

    // "Do it": the chip cannot be found by the name the agent has, and the executor's report of the
    // page keeps the canary out too; the same step is offered again.
    await press("coaching-do-it");
    const third = await openTurn(3, "awaiting_answer", 40_000);
    expect(third).not.toContain(canary);
    const afterDoIt = await agentApi(`/api/learn/sessions/${sessionId}/coaching`);
    expect(afterDoIt.text).not.toContain(canary);
    const turns = (JSON.parse(afterDoIt.text) as { turns: Array<{ status: string; step_index: number; outcome?: string }> }).turns;
    expect(turns.map((turn) => [turn.step_index, turn.status])).toEqual([
      [0, "shown"],
      [1, "failed"],
      [1, "awaiting_answer"],
    ]);
    expect(turns[1]?.outcome).toContain("Remove ••• filter");
    // The person skips it; the coaching finishes and the session stops.
    await press("coaching-skip");
    await panel.waitForSelector('button[name="coaching-finish"]', { timeout: 30_000 });
    await press("coaching-finish");
    await panel.bringToFront();
    await panel.waitForFunction(() => document.querySelector("[data-session-state]")?.getAttribute("data-session-state") === "stopped", {
      polling: 200,
      timeout: 20_000,
    });

    const files = await filesUnder(root);
    const coachingFile = files.find((entry) => entry.file.endsWith("coaching.json"));
    expect(coachingFile).toBeDefined();
    expect(await readFile(coachingFile!.file, "utf8")).toContain("Remove ••• filter");
    for (const { file, text } of files) expect(text.toLowerCase().includes(canary), `${file} holds the canary`).toBe(false);
    expect(agent!.output().length).toBeGreaterThan(0);
    expect(agent!.output().toLowerCase()).not.toContain(canary);
    expect((await agentApi(`/api/learn/sessions/${sessionId}/coaching`)).text).not.toContain(canary);
  }, 180_000);
});
