import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import type { AgentCall } from "../../agent/test-support/ready-proposal";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { memoryText } from "../../agent/test-support/memory-text";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { RunResponseSchema, type RunRecord } from "../../shared/execution/run-contract";
import { launchExtensionBrowser, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";
import { agentCallOf, answerPanelQuestions, endJourney, expectCleanPanel, openPairedPanel, waitForSessionState, waitForText } from "../test-support/panel-flow";

/**
 * Learn From This from a failed run (§0B.6, issue #16) in real Chromium with the built extension and
 * a real agent: a "send a message" skill is installed and run in the managed Chromium against a shop
 * whose "Message sent" page changed, so the run fails at its last checkpoint. In Skills → Run, the
 * failed run offers Learn From This; the set-up says what comes along; Start begins capturing at once
 * with the run's steps in the timeline; the person shows the rest in the shop; Stop, Generate, the
 * questions, and the new session's proposal holds the run's steps and the person's. No value typed
 * in the run or in the page reaches the panel or the new session.
 */
let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let call: AgentCall;
let chromium: ExtensionBrowser;
let site: RunFixtureSite;
let panel: Page;
let shop: Page;
let abilityId: string;
let failed: RunRecord;

const RUN_CANARY = "Zq9-run-message-canary";
const PAGE_CANARY = "Zq9-page-message-canary";

async function until(dispatchId: string, done: (run: RunRecord) => boolean): Promise<RunRecord> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = RunResponseSchema.parse((await call("GET", `/api/runs/${dispatchId}`)).body).run;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-learn-from-run-"));
  site = await serveRunFixtureSite();
  agent = await startAgentProcess(root);
  call = await agentCallOf(agent, root);
  ({ abilityId } = await installContactAbility(call, site));
  // The shop changed: "Message sent" is gone, so a run stops at its last checkpoint.
  site.breakConfirmation(true);
  const started = await call("POST", "/api/runs", {
    ability_id: abilityId,
    inputs: { message: RUN_CANARY, access_code: `${RUN_CANARY}-code` },
    caller: "side_panel",
    schema_version: 1,
  });
  if (started.status !== 202) throw new Error(`run refused: ${JSON.stringify(started.body)}`);
  const dispatchId = RunResponseSchema.parse(started.body).run.dispatch_id;
  const waiting = await until(dispatchId, (run) => run.state === "needs_confirmation" || run.completed_at !== undefined);
  if (waiting.pending_confirmation !== undefined)
    await call("POST", `/api/runs/${dispatchId}/confirm`, {
      confirmation_id: waiting.pending_confirmation.confirmation_id,
      decision: "confirm",
      schema_version: 1,
    });
  failed = await until(dispatchId, (run) => run.completed_at !== undefined);
  site.breakConfirmation(false);
  chromium = await launchExtensionBrowser();
  shop = await chromium.browser.newPage();
  await shop.setViewport({ width: 1000, height: 800 });
  await shop.goto(`${site.origin}/start`);
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  panel = await openPairedPanel(chromium, agent, token);
}, 180_000);

afterAll(() => endJourney({ chromium, agent, sites: [site], cleanup }));

describe("Learn From This from a failed run, in the side panel (issue #16)", () => {
  it("offers Learn From This on the failed run and sets up a session that starts from it", async () => {
    expect(failed.state).toBe("failed");
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    await panel.waitForSelector(`[data-ability-id="${abilityId}"] [data-run-entry="runnable"]`, { timeout: 20_000 });
    await saveScreenshot(panel, "learn-from-run-skills");
    await panel.locator(`[data-ability-id="${abilityId}"] [data-run-entry] button::-p-text(Run)`).click();
    // Past runs offer it on the failed run; shown, so does its result.
    const listed = `[data-run-history] [data-run-id="${failed.dispatch_id}"]`;
    await panel.waitForSelector(`${listed} [data-learn-from-run]`, { timeout: 20_000 });
    await panel.locator(`${listed} button::-p-text(Show)`).click();
    await panel.waitForSelector('[data-run-progress][data-run-state="failed"]', { timeout: 20_000 });
    await saveScreenshot(panel, "learn-from-run-failed");
    await panel.locator('[data-run-result="failed"] [data-learn-from-run]').click();

    await panel.waitForSelector('[data-setup-seed="run"]', { timeout: 10_000 });
    const seed = await panel.$eval("[data-setup-seed]", (element) => (element as HTMLElement).innerText);
    expect(seed).toContain("Failed run of");
    expect(seed).toMatch(/Starts from the \d+ steps? the run did/);
    await waitForText(panel, ".site", site.host);
    await expectCleanPanel(panel, "set-up from a run", { canary: "zq9" });
    await saveScreenshot(panel, "learn-from-run-setup");
  }, 60_000);

  it("starts capturing at once, with the run's steps as the first ones in the timeline", async () => {
    await panel.locator('button[name="start"]').click();
    const reached = await waitForSessionState(panel, ["capturing"]).catch(async (error: unknown) => {
      await saveScreenshot(panel, "learn-from-run-start-failed");
      throw error;
    });
    expect(reached).toBe("capturing");
    await panel.waitForFunction(() => document.querySelectorAll("[data-event-id]").length >= 3, { timeout: 20_000 });
    await waitForText(panel, "[data-event-id]", "Contact us");
    await expectCleanPanel(panel, "seeded session", { canary: "zq9" });
    await saveScreenshot(panel, "learn-from-run-capturing");
  }, 60_000);

  it("adds what the person shows, and the new session's proposal holds the run's steps and theirs", async () => {
    const before = await panel.$$eval("[data-event-id]", (elements) => elements.length);
    // The person finishes the task in the shop (the content script was registered at Start).
    await shop.bringToFront();
    await shop.goto(`${site.origin}/contact`);
    await shop.type("#message", PAGE_CANARY);
    await shop.click("#send");
    await shop.waitForFunction(() => document.querySelector("h1")?.textContent === "Message sent");
    await panel.bringToFront();
    await panel.waitForFunction((count) => document.querySelectorAll("[data-event-id]").length > count, { timeout: 20_000 }, before);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    await panel.locator('button[name="session-stop"]').click();
    await waitForSessionState(panel, ["stopped"]);
    await panel.locator('button[name="generate-proposal"]').click();
    const state = await waitForSessionState(panel, ["awaiting_questions", "ready_for_review", "drafting_proposal"], 30_000);
    if (state === "awaiting_questions") {
      await answerPanelQuestions(panel, (question) =>
        question.includes("What is this ability for") ? "Send a message to the shop" : 'The heading "Message sent" appears',
      );
    }
    await panel.waitForSelector("[data-proposal-drawer]", { timeout: 30_000 });
    await panel.waitForSelector("[data-proposal-drawer] pre.markdown", { timeout: 20_000 });

    const sessions = (await call("GET", "/api/learn/sessions?page=1&page_size=10")).body.sessions as Array<{ learn_session_id: string; proposal_id?: string }>;
    const seeded = sessions[0]!;
    const seed = (await call("GET", `/api/learn/sessions/${seeded.learn_session_id}/seed`)).body;
    expect(seed.seed.source).toEqual({ kind: "run", dispatch_id: failed.dispatch_id });
    // The draft's flow: the run's steps first (the link, both fields), then what the person did.
    const flow = JSON.parse(await readFile(path.join(root, MemoryPaths.draftRevision(seeded.proposal_id!, 1), "flow.recorder.json"), "utf8")) as {
      steps: Array<{ selectors?: string[][] }>;
    };
    const targets = flow.steps.filter((step) => step.selectors !== undefined).map((step) => JSON.stringify(step.selectors));
    const link = targets.findIndex((target) => target.includes("#contact-link"));
    const send = targets.findLastIndex((target) => target.includes("#send") || target.includes("Send message"));
    expect(link, JSON.stringify(targets)).toBeGreaterThanOrEqual(0);
    expect(
      targets.some((target) => target.includes("#message")),
      JSON.stringify(targets),
    ).toBe(true);
    expect(send, JSON.stringify(targets)).toBeGreaterThan(link);
    await expectCleanPanel(panel, "proposal from a run", { canary: "zq9" });
    const viewport = panel.viewport()!;
    await panel.setViewport({ ...viewport, height: 1600 });
    await saveScreenshot(panel, "learn-from-run-proposal");
    await panel.setViewport(viewport);
  }, 120_000);

  it("adds the failed run as an example to that proposal from the Use as Example picker (§0B.6)", async () => {
    const proposalId = ((await call("GET", "/api/learn/sessions?page=1&page_size=10")).body.sessions as Array<{ proposal_id?: string }>)[0]!.proposal_id!;
    await panel.keyboard.press("Escape");
    await panel.waitForSelector("[data-proposal-drawer]", { hidden: true });
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    await panel.locator(`[data-ability-id="${abilityId}"] [data-run-entry] button::-p-text(Run)`).click();
    const listed = `[data-run-history] [data-run-id="${failed.dispatch_id}"]`;
    await panel.waitForSelector(listed, { timeout: 20_000 });
    if ((await panel.$(`${listed} button::-p-text(Show)`)) !== null) await panel.locator(`${listed} button::-p-text(Show)`).click();
    await panel.locator('[data-run-result="failed"] [data-use-as-example-run]').click();
    await panel.waitForSelector(`[data-use-as-example] select[name="example-target"] option[value="proposal:${proposalId}"]`, { timeout: 15_000 });
    await panel.select('[data-use-as-example] select[name="example-target"]', `proposal:${proposalId}`);
    await panel.locator('[data-use-as-example] textarea[name="example-requests"]').fill("write to the shop\nleave the shop a message");
    await expectCleanPanel(panel, "Use as Example picker", { canary: "zq9" });
    await saveScreenshot(panel, "use-as-example-picker");
    await panel.locator('[data-use-as-example] button[name="add-example"]').click();
    await panel.waitForSelector("[data-use-as-example]", { hidden: true, timeout: 20_000 });
    await panel.waitForSelector("[data-proposal-drawer] pre.markdown", { timeout: 20_000 });
    await waitForText(panel, "[data-proposal-drawer] pre.markdown", "## Examples");
    const markdown = await panel.$eval("[data-proposal-drawer] pre.markdown", (pre) => pre.textContent ?? "");
    expect(markdown).toContain('Asked as: "write to the shop"; "leave the shop a message"');
    const draftPath = (await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.proposal.draft_skill_path as string;
    const examples = JSON.parse(await readFile(path.join(root, path.dirname(draftPath), "examples.json"), "utf8")) as Array<{ source: unknown }>;
    expect(examples.map((example) => example.source)).toEqual([{ kind: "run", dispatch_id: failed.dispatch_id }]);
    await expectCleanPanel(panel, "proposal with an example", { canary: "zq9" });
  }, 90_000);

  it("offers Learn From This on a receipt in History, and sets up a session that starts from that receipt's session (§0B.6)", async () => {
    await panel.keyboard.press("Escape");
    await panel.waitForSelector("[data-proposal-drawer]", { hidden: true });
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Learn)').click();
    await panel.locator('[role="tab"]::-p-text(History)').click();
    await panel.waitForSelector("[data-learn-from-receipt]", { timeout: 20_000 });
    await saveScreenshot(panel, "learn-from-receipt-history");
    await panel.locator("[data-learn-from-receipt]").click();
    await panel.waitForSelector('[data-setup-seed="receipt"]', { timeout: 10_000 });
    const seed = await panel.$eval("[data-setup-seed]", (element) => (element as HTMLElement).innerText);
    expect(seed).toContain("Starts from the steps, pages and snapshots of the session this receipt was written for");
    await expectCleanPanel(panel, "set-up from a receipt", { canary: "zq9" });
    await saveScreenshot(panel, "learn-from-receipt-setup");
  }, 60_000);

  it("kept both typed messages out of the agent's memory", async () => {
    const text = await memoryText(root);
    expect(text).not.toContain(RUN_CANARY);
    expect(text).not.toContain(PAGE_CANARY);
  });
});
