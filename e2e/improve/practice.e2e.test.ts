import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PracticeReportSchema, type PracticeReport } from "../../shared/learning/sessions/practice";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { memoryText } from "../../agent/test-support/memory-text";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { startTestAgent, type TestAgent } from "../../agent/test-support/test-agent";
import { serveLateShop, type LateShop } from "./practice-fixtures/late-shop";

/**
 * Autonomous Agent Practice (issue #16) through the real agent, its one executor and Debian's
 * Chromium, on a fixture shop whose send button can move and whose page can post elsewhere.
 */
let site: RunFixtureSite;
let elsewhere: RunFixtureSite;
let agent: TestAgent;
let abilityId: string;
let sourceProposalId: string;

beforeAll(async () => {
  site = await serveRunFixtureSite();
  elsewhere = await serveRunFixtureSite();
  agent = await startTestAgent();
  ({ abilityId, proposalId: sourceProposalId } = await installContactAbility((method, url, payload) => agent.call(method, url, payload), site));
}, 30_000);
afterAll(async () => {
  await agent?.close();
  await site?.close();
  await elsewhere?.close();
});
afterEach(() => {
  site.leakTo(undefined);
  site.moveSendButton(false);
});

const policy = () => ({ policy_id: randomUUID(), mode: "live_read_safe_write", allowed_domains: [site.host], max_actions: 40, schema_version: 1 });

async function startPractice(practice: Record<string, unknown>): Promise<string> {
  const answer = await agent.call("POST", "/api/learn/sessions", {
    entry_mode: "autonomous_agent_practice",
    target_app_whitelist: [site.host],
    test_policy: policy(),
    practice: { practise: { ability_id: abilityId }, ...practice },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  expect(answer.body).toMatchObject({ ui_mode: "exploratory", next_action: "launch_exploration" });
  expect(answer.body.session.observation_mode).toBe("inside_agent");
  return answer.body.session.learn_session_id as string;
}

async function finished(sessionId: string, timeoutMs = 90_000): Promise<PracticeReport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await agent.call("GET", `/api/learn/sessions/${sessionId}/practice`);
    if (answer.status === 200) {
      const report = PracticeReportSchema.parse(answer.body);
      if (report.status !== "running") return report;
    }
    if (Date.now() > deadline) throw new Error(`practice never finished: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function skillDigest(): Promise<string> {
  const folder = path.join(agent.root, MemoryPaths.installedSkill(abilityId.replace("learned.", "")));
  const files = (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  const hash = createHash("sha256");
  for (const entry of files.sort((a, b) => path.join(a.parentPath, a.name).localeCompare(path.join(b.parentPath, b.name))))
    hash.update(await readFile(path.join(entry.parentPath, entry.name)));
  return hash.digest("hex");
}

const sessionDetail = async (sessionId: string) => (await agent.call("GET", `/api/learn/sessions/${sessionId}/detail`)).body;

describe("Autonomous Agent Practice in the managed Chromium", () => {
  it("refuses a practice without what to practise, or with inputs the skill does not have, and creates no session", async () => {
    const before = (await agent.call("GET", "/api/learn/sessions")).body.total;
    const bare = await agent.call("POST", "/api/learn/sessions", { entry_mode: "autonomous_agent_practice" });
    expect(bare.status).toBe(400);
    expect(bare.body.error.code).toBe("REQUEST_INVALID");
    const unknown = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "autonomous_agent_practice",
      practice: { practise: { ability_id: abilityId }, input_sets: [{ colour: "blue" }] },
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain("colour");
    const missing = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "autonomous_agent_practice",
      practice: { practise: { ability_id: "learned.no-such-skill" } },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("ABILITY_NOT_FOUND");
    expect((await agent.call("GET", "/api/learn/sessions")).body.total).toBe(before);
  });

  it("repairs a skill whose button moved, confirms the repair in another round, and proposes it; the installed skill and the inputs stay untouched", async () => {
    site.moveSendButton(true);
    const digest = await skillDigest();
    const canary = `CANARY-practice-${randomUUID().slice(0, 8)}`;
    const sessionId = await startPractice({
      goal_summary: "Send a message to the shop",
      success_description: "The shop says the message was sent",
      rounds: 2,
      input_sets: [
        { message: "First practice note", access_code: canary },
        { message: "Second practice note", access_code: `${canary}-2` },
      ],
    });
    const report = await finished(sessionId);
    expect(report.status, report.message).toBe("proposed");
    expect(report).toMatchObject({ goal_summary: "Send a message to the shop", success_description: "The shop says the message was sent" });
    expect(report.repairs).toHaveLength(1);
    expect(report.repairs[0]).toMatchObject({ kind: "target_relocated", made_in_round: 1, confirmed_in_round: 2 });
    expect(report.rounds.map((round) => [round.viewport.width, round.input_set])).toEqual([
      [1280, 1],
      [390, 2],
    ]);
    expect(report.rounds[1]?.overall).toBe("passed");

    const proposalId = report.proposal_id as string;
    const detail = (await agent.call("GET", `/api/learn/proposals/${proposalId}/detail`)).body;
    expect(detail.proposal).toMatchObject({ proposal_state: "ready_for_review", ability_id: abilityId, source_mode: "exploratory" });
    expect(detail.skill_delta.steps).toHaveLength(1);
    // The goal in the person's words, and the skill's checkpoints, as the review shows them.
    expect(detail.interpretation.goal_summary).toBe("Send a message to the shop");
    expect(detail.interpretation.checkpoints).toHaveLength(2);
    expect(detail.skill_delta.steps[0].proposed).toContain("Send message now");
    const runs = (await agent.call("GET", `/api/learn/proposals/${proposalId}/validation-runs`)).body;
    expect(runs.runs).toHaveLength(2);
    expect(runs.runs.some((run: { overall_result: string }) => run.overall_result === "passed")).toBe(true);
    const flow = JSON.parse((await agent.memory.readText(`${MemoryPaths.draftRevision(proposalId, 1)}/flow.recorder.json`)) ?? "{}");
    const send = flow.steps.find((step: { type: string; selectors?: string[][] }) => step.type === "click" && JSON.stringify(step.selectors).includes("#send"));
    expect(send.selectors[0]).toEqual(['aria/Send message now[role="button"]']);

    // The session went as a demonstration does: its own actions observed, stopped, a proposal ready for review.
    const session = await sessionDetail(sessionId);
    expect(session.state).toBe("ready_for_review");
    const events = await agent.memory.readText(MemoryPaths.observationEvents(sessionId));
    expect(events).toContain("Round 2:");
    const receipts = ((await agent.memory.readText(MemoryPaths.receipts)) ?? "")
      .split("\n")
      .filter((line) => line.includes(sessionId))
      .map((line) => JSON.parse(line).receipt_kind);
    expect(receipts).toEqual(
      expect.arrayContaining([
        "learn.session.started",
        "learn.capture.armed",
        "learn.capture.started",
        "learn.capture.stopped",
        "learn.proposal.created",
        "learn.validation.completed",
      ]),
    );
    // Nothing installed changed; no input value reached a file.
    expect(await skillDigest()).toBe(digest);
    const everything = await memoryText(agent.root);
    expect(everything).not.toContain(canary);
    expect(everything).not.toContain("First practice note");

    // Installing the proposal replaces the skill; a run of it then finds the moved button at once.
    const installed = await agent.call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    expect(await skillDigest()).not.toBe(digest);
  }, 120_000);

  it("stops with TEST_POLICY_VIOLATION when a round would leave the policy, and proposes nothing", async () => {
    site.leakTo(elsewhere.origin);
    const proposalsBefore = (await agent.call("GET", "/api/learn/proposals")).body.total;
    const sessionId = await startPractice({ rounds: 3, input_sets: [{ message: "Policy note", access_code: "pc-3333" }] });
    const report = await finished(sessionId);
    expect(report.status).toBe("policy_violation");
    expect(report.error_code).toBe("TEST_POLICY_VIOLATION");
    expect(report.rounds).toHaveLength(1);
    expect(report.proposal_id).toBeUndefined();
    expect(elsewhere.requests.filter((request) => request.path === "/collect")).toHaveLength(0);
    expect((await sessionDetail(sessionId)).state).toBe("cancelled");
    expect((await agent.call("GET", "/api/learn/proposals")).body.total).toBe(proposalsBefore);
  }, 120_000);

  it("says there is nothing to repair when every round passes, and proposes nothing", async () => {
    const proposalsBefore = (await agent.call("GET", "/api/learn/proposals")).body.total;
    const sessionId = await startPractice({ rounds: 2, input_sets: [{ message: "Calm note", access_code: "pc-4444" }] });
    const report = await finished(sessionId);
    expect(report.status, report.message).toBe("nothing_to_repair");
    expect(report.message).toContain("nothing to repair");
    expect(report.rounds.map((round) => round.overall)).toEqual(["passed", "passed"]);
    expect(report.repairs).toEqual([]);
    expect(report.proposal_id).toBeUndefined();
    expect((await sessionDetail(sessionId)).state).toBe("cancelled");
    expect((await agent.call("GET", "/api/learn/proposals")).body.total).toBe(proposalsBefore);
  }, 120_000);
});

describe("Autonomous Agent Practice cancelled", () => {
  it("stops playing when the session is cancelled mid-practice, and proposes nothing", async () => {
    site.moveSendButton(true);
    const sessionId = await startPractice({ rounds: 5, input_sets: [{ message: "Cancelled note", access_code: "pc-7777" }] });
    const deadline = Date.now() + 30_000;
    while (((await agent.memory.readText(MemoryPaths.observationEvents(sessionId))) ?? "") === "") {
      if (Date.now() > deadline) throw new Error("the practice never acted");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await agent.call("POST", `/api/learn/sessions/${sessionId}/cancel`, { reason: "changed my mind" })).status).toBe(200);
    const report = await finished(sessionId);
    expect(report.status).toBe("failed");
    expect(report.message).toContain("cancelled");
    expect(report.rounds.length).toBeLessThanOrEqual(1);
    expect(report.proposal_id).toBeUndefined();
    expect((await sessionDetail(sessionId)).state).toBe("cancelled");
  }, 120_000);
});

describe("Autonomous Agent Practice of a proposal", () => {
  it("plays a proposal's recorded flow as it plays an installed skill's", async () => {
    const answer = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "autonomous_agent_practice",
      target_app_whitelist: [site.host],
      test_policy: policy(),
      practice: { practise: { proposal_id: sourceProposalId }, rounds: 1, input_sets: [{ message: "Draft note", access_code: "pc-6666" }] },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.session.target_kind).toBe("new_skill");
    const report = await finished(answer.body.session.learn_session_id as string);
    expect(report.status, report.message).toBe("nothing_to_repair");
    expect(report.rounds[0]?.held.length).toBeGreaterThan(3);
  }, 120_000);
});

describe("Autonomous Agent Practice on a page whose content loads late", () => {
  let late: LateShop;
  let lateAgent: TestAgent;
  let lateAbility: string;

  beforeAll(async () => {
    late = await serveLateShop();
    lateAgent = await startTestAgent();
    // The demonstration only needs the shop's address: the late shop serves the same pages.
    ({ abilityId: lateAbility } = await installContactAbility(
      (method, url, payload) => lateAgent.call(method, url, payload),
      late as unknown as RunFixtureSite,
    ));
  }, 30_000);
  afterAll(async () => {
    await lateAgent?.close();
    await late?.close();
  });

  it("tells content that loads late from a missing element, gives the step its own longer wait, confirms it in a round with the usual wait, and proposes it", async () => {
    late.setLate(2_500);
    const answer = await lateAgent.call("POST", "/api/learn/sessions", {
      entry_mode: "autonomous_agent_practice",
      target_app_whitelist: [late.host],
      test_policy: { policy_id: randomUUID(), mode: "live_read_safe_write", allowed_domains: [late.host], schema_version: 1 },
      practice: { practise: { ability_id: lateAbility }, rounds: 1, step_timeout_ms: 1_000, input_sets: [{ message: "Late note", access_code: "pc-5555" }] },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const sessionId = answer.body.session.learn_session_id as string;
    const deadline = Date.now() + 90_000;
    let report: PracticeReport | undefined;
    while (report === undefined || report.status === "running") {
      if (Date.now() > deadline) throw new Error("practice never finished");
      await new Promise((resolve) => setTimeout(resolve, 200));
      const read = await lateAgent.call("GET", `/api/learn/sessions/${sessionId}/practice`);
      if (read.status === 200) report = PracticeReportSchema.parse(read.body);
    }
    expect(report.status, report.message).toBe("proposed");
    // Round 1 misses the button with the usual 1 s wait; the repair is made there and round 2, with
    // the same 1 s step wait and the step's own timeout, confirms it.
    expect(report.rounds[0]?.failed.some((failure) => failure.details.includes("found the element within 1 s"))).toBe(true);
    expect(report.rounds).toHaveLength(2);
    expect(report.rounds[1]?.overall).toBe("passed");
    expect(report.findings).toEqual([]);
    expect(report.repairs).toHaveLength(1);
    expect(report.repairs[0]).toMatchObject({ kind: "step_waits_longer", made_in_round: 1, confirmed_in_round: 2 });
    expect(report.repairs[0]?.description).toMatch(/now waits up to \d+ s for it/);

    const proposalId = report.proposal_id as string;
    const detail = (await lateAgent.call("GET", `/api/learn/proposals/${proposalId}/detail`)).body;
    expect(detail.proposal).toMatchObject({ proposal_state: "ready_for_review", ability_id: lateAbility });
    expect(detail.skill_delta.steps).toHaveLength(1);
    // The goal in the person's words, and the skill's checkpoints, as the review shows them.
    expect(detail.interpretation.goal_summary).toBe("Send a message to the shop");
    expect(detail.interpretation.checkpoints).toHaveLength(2);
    expect(detail.skill_delta.steps[0].proposed).toContain("its own Recorder timeout");
    const flow = JSON.parse((await lateAgent.memory.readText(`${MemoryPaths.draftRevision(proposalId, 1)}/flow.recorder.json`)) ?? "{}");
    const send = flow.steps.find((step: { type: string; selectors?: string[][] }) => step.type === "click" && JSON.stringify(step.selectors).includes("#send"));
    // Twice the time the button took (about 2.5 s after the page loaded), in whole seconds.
    expect(send.timeout % 1_000).toBe(0);
    expect(send.timeout).toBeGreaterThanOrEqual(4_000);
    expect(send.timeout).toBeLessThanOrEqual(12_000);
    expect(flow.steps.filter((step: { timeout?: number }) => step.timeout !== undefined)).toHaveLength(1);
    expect((await lateAgent.call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("ready_for_review");
  }, 120_000);
});
