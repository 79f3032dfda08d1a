import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import type { AgentCall } from "../../agent/test-support/ready-proposal";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { AbilityRunSpecSchema, RunResponseSchema, type RunRecord } from "../../shared/execution/run-contract";
import { PracticeReportSchema } from "../../shared/learning/sessions/practice";
import { launchExtensionBrowser, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";
import { agentCallOf, drawerShot, endJourney, expectCleanPanel, openPairedPanel, openValidateForm, waitForCard, waitForText } from "../test-support/panel-flow";

/**
 * The "done when" for Autonomous Agent Practice (issue #16), in real Chromium with the built
 * extension and a real agent: a "send a message" skill is installed, then the shop moves its send
 * button (new id, new wording). From the Learn New Ability card: the set-up prefilled from the skill
 * (goal, success, sites), test inputs, Start; the rounds as they come; Review the proposal (the repair,
 * the rounds as its validation runs); Validate (a rehearsal with test values), Install; and the
 * installed revision passes validation: a run of it finds the moved button by its recorded selector,
 * without relocating, and proves every checkpoint.
 */
let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let call: AgentCall;
let chromium: ExtensionBrowser;
let site: RunFixtureSite;
let panel: Page;
let abilityId: string;
let proposalId: string;

const CANARY = "Zq7-practice-canary";
/** The practice's own inputs field holds the canary on purpose (they are the run's inputs). */
const PRACTICE_CLEAN = { canary: "zq7", fields: "input:not([name='practice-inputs']), textarea:not([name='practice-inputs'])" };

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-practice-ui-"));
  site = await serveRunFixtureSite();
  agent = await startAgentProcess(root);
  call = await agentCallOf(agent, root);
  ({ abilityId } = await installContactAbility(call, site));
  // The site changed: the send button has another id and wording.
  site.moveSendButton(true);
  chromium = await launchExtensionBrowser();
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  panel = await openPairedPanel(chromium, agent, token);
}, 120_000);

afterAll(() => endJourney({ chromium, agent, sites: [site], cleanup }));

describe("Autonomous Agent Practice from its card to an installed, validated revision (issue #16)", () => {
  it("sets up the practice from the card, prefilled from the skill: goal, success and sites", async () => {
    await waitForCard(panel, "Autonomous Agent Practice");
    await panel.locator('[data-card="Autonomous Agent Practice"] button').click();
    await panel.waitForSelector("[data-practice-setup]");
    await panel.waitForFunction(() => (document.querySelector('[name="practice-goal"]') as HTMLTextAreaElement | null)?.value !== "", { timeout: 15_000 });
    const spec = AbilityRunSpecSchema.parse((await call("GET", `/api/abilities/${abilityId}/run-spec`)).body);
    const value = (name: string) => panel.$eval(`[name="${name}"]`, (element) => (element as HTMLInputElement).value);
    expect(await value("practice-skill")).toBe(abilityId);
    expect(await value("practice-goal")).toBe(spec.description);
    for (const checkpoint of spec.checkpoints) expect(await value("practice-success")).toContain(checkpoint.goal.replace(/\.$/, ""));
    expect(await value("practice-sites")).toBe(site.host);

    // The goal in the person's own words.
    await panel.locator('[name="practice-goal"]').fill("Leave the shop a message");
    await panel.locator('[name="practice-rounds"]').fill("2");
    await panel.locator('[name="practice-inputs"]').fill(`message = ${CANARY} one\naccess_code = pc-1111\n\nmessage = ${CANARY} two\naccess_code = pc-2222`);
    // A test shop: the practice may press Send for real there.
    await panel.locator('[name="practice-dry-run"]').click();
    await saveScreenshot(panel, "practice-setup-prefilled");
  }, 60_000);

  it("practises round after round, shows each round, and proposes the repair", async () => {
    await panel.locator("[data-practice-setup] button[type=submit]").click();
    // The test inputs were handed over for this practice only: the form no longer holds them.
    await panel.waitForFunction(() => (document.querySelector('[name="practice-inputs"]') as HTMLTextAreaElement | null)?.value === "", { timeout: 15_000 });
    await panel.waitForSelector(
      '[data-practice-status="proposed"], [data-practice-status="could_not_repair"], [data-practice-status="nothing_to_repair"], [data-practice-status="failed"], [data-practice-status="policy_violation"]',
      { timeout: 150_000 },
    );
    const status = await panel.$eval("[data-practice-status]", (element) => element.getAttribute("data-practice-status"));
    const shown = await panel.$eval("[data-practice-status]", (element) => (element as HTMLElement).innerText);
    expect(status, shown).toBe("proposed");
    expect(await panel.$$eval("[data-practice-status] li", (items) => items.length)).toBeGreaterThanOrEqual(2);
    expect(shown).toMatch(/Round 1 \(1280×800\)/);
    expect(shown).toMatch(/Round 2 \(390×844\): passed/);
    expect(shown).toContain("Goal:");
    await expectCleanPanel(panel, "practice rounds", PRACTICE_CLEAN);
    await saveScreenshot(panel, "practice-rounds");

    const sessions = (await call("GET", "/api/learn/sessions?page=1&page_size=5")).body.sessions as Array<{ learn_session_id: string }>;
    const report = PracticeReportSchema.parse((await call("GET", `/api/learn/sessions/${sessions[0]!.learn_session_id}/practice`)).body);
    expect(report.repairs[0]).toMatchObject({ kind: "target_relocated", confirmed_in_round: 2 });
    proposalId = report.proposal_id!;
  }, 180_000);

  it("reviews the proposal: the repaired step against the installed skill, and the rounds as its validation runs", async () => {
    await panel.locator("[data-practice-status] button::-p-text(Review the proposal)").click();
    await panel.waitForSelector("[data-proposal-drawer]", { timeout: 20_000 });
    await waitForText(panel, "[data-proposal-drawer]", "Leave the shop a message", 20_000);
    // The repair, as a change to the installed skill's step.
    await waitForText(panel, '[data-proposal-drawer] [data-delta-group="steps"]', "Send message now", 20_000);
    // Each round is one of its validation runs.
    await panel.waitForFunction(() => document.querySelectorAll('[data-proposal-drawer] li.run[data-validation-result="passed"]').length >= 2, {
      timeout: 20_000,
    });
    await expectCleanPanel(panel, "practice proposal", PRACTICE_CLEAN);
    await drawerShot(panel, "practice-proposal-review", 2400);
  }, 60_000);

  it("validates it with test values and installs it", async () => {
    const testInput = '[data-proposal-drawer] input[name^="test-"]';
    await openValidateForm(panel, { buttonTimeout: 20_000 });
    const inputs = await panel.$$eval(testInput, (elements) => elements.map((element) => element.getAttribute("name") ?? ""));
    for (const name of inputs)
      await panel.locator(`[data-proposal-drawer] input[name="${name}"]`).fill(name === "test-message" ? `${CANARY} rehearsal` : "pc-3333");
    await panel.locator('[data-proposal-drawer] button[name="run-validation"]').click();
    await panel.waitForSelector("[data-proposal-drawer] [data-validation-result]", { timeout: 150_000 });
    const result = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => element.getAttribute("data-validation-result"));
    const runText = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => (element as HTMLElement).innerText);
    expect(result, runText).toBe("passed");
    await drawerShot(panel, "practice-validated", 2400);

    await panel.locator('[data-proposal-drawer] button[name="install"]').click();
    await waitForText(panel, "[data-review-message]", "Installed for you only", 60_000);
    await expectCleanPanel(panel, "installed practice proposal", PRACTICE_CLEAN);
    await drawerShot(panel, "practice-installed", 2400);
  }, 240_000);

  it("the installed revision passes validation: its last validation passed, and a run finds the moved button without relocating", async () => {
    const runs = (await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`)).body.runs as Array<{ overall_result: string; started_at: string }>;
    const latest = [...runs].sort((a, b) => a.started_at.localeCompare(b.started_at)).at(-1);
    expect(latest?.overall_result).toBe("passed");
    const flow = await readFile(path.join(root, MemoryPaths.installedSkill(abilityId.replace(/^learned\./, "")), "tests", "flow.recorder.json"), "utf8");
    expect(flow).toContain('aria/Send message now[role=\\"button\\"]');

    const started = await call("POST", "/api/runs", {
      ability_id: abilityId,
      inputs: { message: "A message after practice", access_code: "pc-4444" },
      schema_version: 1,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const dispatchId = RunResponseSchema.parse(started.body).run.dispatch_id;
    const until = async (done: (run: RunRecord) => boolean): Promise<RunRecord> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const run = RunResponseSchema.parse((await call("GET", `/api/runs/${dispatchId}`)).body).run;
        if (done(run)) return run;
        if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const waiting = await until((run) => run.state === "needs_confirmation" || run.completed_at !== undefined);
    if (waiting.pending_confirmation !== undefined)
      await call("POST", `/api/runs/${dispatchId}/confirm`, {
        confirmation_id: waiting.pending_confirmation.confirmation_id,
        decision: "confirm",
        schema_version: 1,
      });
    const run = await until((candidate) => candidate.completed_at !== undefined);
    expect(run.state, JSON.stringify(run.failure)).toBe("succeeded");
    expect(run.checkpoints.every((checkpoint) => checkpoint.status === "reached")).toBe(true);
    expect(run.steps.some((step) => step.relocated !== undefined)).toBe(false);
  }, 120_000);

  it("kept the test inputs out of the agent's memory", async () => {
    const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    for (const entry of files) expect((await readFile(path.join(entry.parentPath, entry.name))).includes(CANARY), entry.name).toBe(false);
  });
});
