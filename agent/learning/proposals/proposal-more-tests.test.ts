import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import { ProposalTriggerTestsSchema, RequestMoreTestsResponseSchema } from "../../../shared/learning/proposal-tests";
import { MemoryPaths } from "../../memory/memory-paths";
import { readyProposal } from "../../test-support/ready-proposal";
import { expectError, startTestAgent, type TestAgent } from "../../test-support/test-agent";

let agent: TestAgent;

beforeEach(async () => {
  agent = await startTestAgent();
});
afterEach(async () => {
  await agent.close();
});

const call: TestAgent["call"] = (...args) => agent.call(...args);

const testsOf = async (skillPath: string) =>
  ProposalTriggerTestsSchema.parse(JSON.parse((await agent.memory.readText(skillPath.replace(/SKILL\.md$/, "trigger-tests.json"))) ?? "{}"));

/** What a request may not change when it is refused: the proposal log, its drafts, the session. */
async function proposalMemory(proposalId: string, sessionId: string) {
  const draft = MemoryPaths.draft(proposalId);
  return {
    proposals: await agent.memory.readText(MemoryPaths.proposals),
    revisions: await agent.memory.list(draft),
    receipts: await agent.memory.readText(MemoryPaths.receipts),
    session: (await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body,
  };
}

describe("POST /api/learn/proposals/:proposalId/request-more-tests (§0C.18 Request More Tests)", () => {
  it("adds the user's examples and generated ones as a new draft revision, which must be validated again before install", async () => {
    const { sessionId, proposalId } = await readyProposal(call);
    const validated = await call("POST", `/api/learn/proposals/${proposalId}/validate`, { selected_tests: ["lint", "trigger"], schema_version: 1 });
    expect(validated.body.validation_run.overall_result).toBe("passed");
    const before = (await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body;
    const previousTests = await testsOf(before.proposal.draft_skill_path);

    const result = await call("POST", `/api/learn/proposals/${proposalId}/request-more-tests`, {
      positive_examples: ["Export this month's invoices"],
      negative_examples: ["delete all invoices"],
      note: "It must not react to deleting invoices",
      schema_version: 1,
    });
    expect(result.status).toBe(200);
    const answer = RequestMoreTestsResponseSchema.parse(result.body);
    expect(answer.added_trigger_tests.positive).toEqual(["Export this month's invoices"]);
    expect(answer.added_trigger_tests.paraphrases).toEqual(
      expect.arrayContaining(["could you export this month's invoices for me", "i need to export this month's invoices"]),
    );
    expect(answer.added_trigger_tests.negative[0]).toBe("delete all invoices");
    expect(answer.added_trigger_tests.negative.length).toBeGreaterThan(1);

    // A new revision, the previous one kept as it was; the skill itself is the same text.
    expect(answer.proposal.draft_skill_path).not.toBe(before.proposal.draft_skill_path);
    expect(await testsOf(before.proposal.draft_skill_path)).toEqual(previousTests);
    const now = await testsOf(answer.proposal.draft_skill_path);
    expect(now.positive).toEqual([...previousTests.positive, "Export this month's invoices"]);
    expect(now.negative).toEqual([...previousTests.negative, ...answer.added_trigger_tests.negative]);
    expect(await agent.memory.readText(answer.proposal.draft_skill_path)).toBe(await agent.memory.readText(before.proposal.draft_skill_path));

    // Tests that never ran: not ready for review (nor install) until a validation runs them.
    expect(answer.proposal.proposal_state).toBe("draft");
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("drafting_proposal");
    expectError(
      await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" }),
      400,
      "INVALID_LEARN_STATE_TRANSITION",
    );
    const receipts = (await call("GET", `/api/learn/receipts?session_id=${sessionId}`)).body.receipts as Array<{
      receipt_kind: string;
      details?: Record<string, any>;
    }>;
    expect(receipts.find((receipt) => receipt.receipt_kind === "learn.proposal.revision_requested")?.details?.more_tests).toMatchObject({ positive: 1 });

    const again = await call("POST", `/api/learn/proposals/${proposalId}/validate`, { selected_tests: ["lint", "trigger"], schema_version: 1 });
    expect(again.status).toBe(200);
    const steps = (await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`)).body.steps as Array<{
      validation_run_id: string;
      label: string;
      result: string;
    }>;
    const latest = steps.filter((step) => step.validation_run_id === again.body.validation_run.validation_run_id);
    expect(latest.find((step) => step.label === 'Finds it for "Export this month\'s invoices"')?.result).toBe("passed");
    expect(latest.find((step) => step.label === 'Does not find it for "delete all invoices"')?.result).toBe("passed");
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("ready_for_review");
  });

  it("refuses a body that is not the contract with the envelope, and changes nothing", async () => {
    const { sessionId, proposalId } = await readyProposal(call);
    const before = await proposalMemory(proposalId, sessionId);
    for (const body of [
      { positive_examples: "export invoices", schema_version: 1 },
      { positive_examples: [""], schema_version: 1 },
      { positive_examples: ["x".repeat(241)], schema_version: 1 },
      { positive_examples: ["export invoices"], install_lane: "shared_promoted", schema_version: 1 },
      { positive_examples: ["export invoices"] },
    ]) {
      const result = await call("POST", `/api/learn/proposals/${proposalId}/request-more-tests`, body);
      expectError(result, 400, "REQUEST_INVALID");
    }
    expect(await proposalMemory(proposalId, sessionId)).toEqual(before);
  });

  it("answers INVALID_LEARN_STATE_TRANSITION for a rejected proposal and PROPOSAL_NOT_FOUND for an unknown one, changing nothing", async () => {
    const { sessionId, proposalId } = await readyProposal(call);
    await call("POST", `/api/learn/proposals/${proposalId}/reject`, { reason: "Not useful", schema_version: 1 });
    const before = await proposalMemory(proposalId, sessionId);
    const body = { positive_examples: ["export invoices"], schema_version: 1 };
    expectError(await call("POST", `/api/learn/proposals/${proposalId}/request-more-tests`, body), 400, "INVALID_LEARN_STATE_TRANSITION");
    expectError(await call("POST", `/api/learn/proposals/${randomUUID()}/request-more-tests`, body), 404, "PROPOSAL_NOT_FOUND");
    expect(await proposalMemory(proposalId, sessionId)).toEqual(before);
  });

  it("refuses a request that would add nothing new", async () => {
    const { proposalId } = await readyProposal(call);
    const current = await testsOf((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.proposal.draft_skill_path);
    // Ask until the generated tests run out; each request is a new revision while it adds something.
    let last = { status: 200, body: {} as Record<string, any> };
    for (let round = 0; round < 10 && last.status === 200; round += 1) {
      last = await call("POST", `/api/learn/proposals/${proposalId}/request-more-tests`, { positive_examples: [current.positive[0]], schema_version: 1 });
    }
    expectError(last, 400, "REQUEST_INVALID");
    expect(ApiErrorResponseSchema.parse(last.body).error.message).toMatch(/already a test/);
  });
});
