import { render } from "svelte/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ProposalDetailResponse } from "../../../shared/learning/route-contracts";
import type { SkillDelta } from "../../../shared/learning/proposals/skill-delta";
import { readyProposal, type AgentCall } from "../../../agent/test-support/ready-proposal";
import { featuresFromOpenApi } from "../../common/agent-features";
import MoreTestsForm from "../decisions/MoreTestsForm.svelte";
import { moreTestsRequestOf } from "./more-tests-form";
import ProposalDecisions from "../decisions/ProposalDecisions.svelte";
import { proposalActions } from "../decisions/proposal-actions";
import { ProposalReviewState } from "./proposal-review.svelte";
import ProposalSummary from "./ProposalSummary.svelte";
import SkillDeltaView from "./SkillDeltaView.svelte";
import { startListeningAgent, type ListeningAgent } from "../../test-support/listening-agent";

const PAGE_TEXT = 'Downloads <img src=x onerror="alert(1)">';

const delta: SkillDelta = {
  target_ability_id: "learned.export-the-monthly-invoices",
  target_skill_name: "export-the-monthly-invoices",
  installed_title: "Export the monthly invoices",
  installed_version: "0.1.0",
  proposed_version: "0.2.0",
  triggers: [
    { change: "removed", subject: "can you export the monthly invoices", installed: "can you export the monthly invoices" },
    { change: "added", subject: "export invoices for a month", proposed: "export invoices for a month" },
  ],
  negative_triggers: [],
  parameters: [{ change: "added", subject: "{{month}}", proposed: "Month (date)" }],
  checkpoints: [
    {
      change: "changed",
      subject: "Checkpoint 1",
      installed: '"Export" has taken effect — done when: The export file appears',
      proposed: '"Export" is completed with {{month}} — done when: The page says "Your export is ready"',
    },
    { change: "added", subject: "Checkpoint 2", proposed: `A page titled "${PAGE_TEXT}" is shown` },
  ],
  unchanged: { triggers: 2, negative_triggers: 0, parameters: 0, checkpoints: 0 },
  compared_at: "2026-01-05T09:00:00.000Z",
  schema_version: 1,
};

describe("the changes of an improvement to the installed skill", () => {
  it("lists added, removed and changed triggers, parameters and checkpoints under 'Changes to <title>', with both texts of a change", () => {
    const { body } = render(SkillDeltaView, { props: { delta } });
    expect(body).toContain("Changes to Export the monthly invoices");
    expect(body).toContain("Version 0.1.0 → 0.2.0");
    for (const heading of ["Triggers", "Negative triggers", "Parameters", "Checkpoints"]) expect(body).toMatch(new RegExp(`<h4[^>]*>${heading}</h4>`));
    expect(body.match(/data-change="(\w+)"/g)).toEqual([
      'data-change="removed"',
      'data-change="added"',
      'data-change="added"',
      'data-change="changed"',
      'data-change="added"',
    ]);
    expect(body).toContain("can you export the monthly invoices");
    expect(body).toContain("Month (date)");
    expect(body).toMatch(/Installed<\/dt>\s*<dd[^>]*>"Export" has taken effect/);
    expect(body).toMatch(/Proposed<\/dt>\s*<dd[^>]*>"Export" is completed with \{\{month\}\}/);
    expect(body).toContain("No changes.");
    expect(body).toContain("2 unchanged.");
  });

  it("renders page-derived text as text, never as HTML", () => {
    const { body } = render(SkillDeltaView, { props: { delta } });
    expect(body).not.toContain("<img");
    expect(body).toContain("&lt;img");
  });
});

describe("Request More Tests in the review drawer", () => {
  it("is offered from review, drafting and quarantine on an agent with the route, and not for an installed proposal", () => {
    const all = { has: () => true };
    for (const state of ["ready_for_review", "draft", "quarantined"] as const) expect(proposalActions(state, all).request_more_tests.enabled, state).toBe(true);
    expect(proposalActions("installed_private", all).request_more_tests).toEqual({
      enabled: false,
      reason: "Already installed: to test a new version, improve it from Skills (Improving Existing Skill).",
    });
    expect(proposalActions("draft", all).install.reason).toMatch(/Validate it first/);
  });

  it("turns the lines typed into the request, and says what to fix when there are too many or too long", () => {
    expect(moreTestsRequestOf({ positive: " export my invoices \n\nexport my invoices\nget march invoices", negative: "delete invoices", note: "  " })).toEqual(
      {
        ok: true,
        request: { positive_examples: ["export my invoices", "get march invoices"], negative_examples: ["delete invoices"], schema_version: 1 },
      },
    );
    expect(moreTestsRequestOf({ positive: "", negative: "", note: "" })).toMatchObject({ ok: true });
    const tooMany = moreTestsRequestOf({
      positive: Array.from({ length: 11 }, (_, index) => `request ${index}`).join("\n"),
      negative: "x".repeat(241),
      note: "",
    });
    expect(tooMany).toEqual({
      ok: false,
      problems: ["Give at most 10 requests that should use it (one per line).", "Keep each of the requests that should not use it under 240 characters."],
    });
  });

  it("renders a form whose every field has its label", () => {
    const { body } = render(MoreTestsForm, { props: { busy: false, onrequest: () => {}, oncancel: () => {} } });
    for (const name of ["positive-examples", "negative-examples", "tests-note"]) {
      const id = new RegExp(`<textarea[^>]*id="([^"]+)"[^>]*name="${name}"`).exec(body)?.[1];
      expect(id, name).toBeDefined();
      expect(body).toContain(`for="${id}"`);
    }
    expect(body).toMatch(/<button[^>]*type="submit"[^>]*name="send-more-tests"[^>]*>\s*Add tests\s*<\/button>/);
  });
});

describe("Request More Tests against a real agent", () => {
  let agent: ListeningAgent;
  beforeEach(async () => {
    agent = await startListeningAgent();
  });
  afterEach(async () => {
    await agent.close();
  });

  const call: AgentCall = (...args) => agent.call(...args);

  it("is a feature of this agent, enabled in the drawer; sending the form adds the tests and puts the proposal back to draft", async () => {
    expect(featuresFromOpenApi(await agent.client.openApi())?.has("request_more_tests")).toBe(true);
    const { proposalId } = await readyProposal(call);
    const deps = agent.deps();
    const review = new ProposalReviewState(deps, proposalId);
    await review.load();
    const { body } = render(ProposalDecisions, { props: { review, features: deps.features } });
    expect(body).toMatch(/<button[^>]*name="request_more_tests"(?![^>]*disabled)[^>]*>/);

    expect(await review.requestMoreTests({ positive: "Export this month's invoices", negative: "delete all invoices", note: "" })).toBe(true);
    expect(review.message).toMatch(/^Added \d+ trigger tests: \d+ that should use it, \d+ that should not\. It is a draft again until you validate it\.$/);
    expect(review.detail?.proposal.proposal_state).toBe("draft");
    expect(review.error).toBeNull();
    expect(deps.failures).toEqual([]);
    const after = render(ProposalDecisions, { props: { review, features: deps.features } }).body;
    expect(after).toMatch(/<button[^>]*name="validate"(?![^>]*disabled)[^>]*>/);
    expect(after).toMatch(/<button[^>]*disabled[^>]*name="install"|<button[^>]*name="install"[^>]*disabled/);
  });

  it("shows the agent's coded refusal when the proposal cannot take more tests", async () => {
    const { proposalId } = await readyProposal(call);
    await call("POST", `/api/learn/proposals/${proposalId}/reject`, { reason: "Not useful", schema_version: 1 });
    const deps = agent.deps();
    const review = new ProposalReviewState(deps, proposalId);
    await review.load();
    expect(await review.requestMoreTests({ positive: "export invoices", negative: "", note: "" })).toBe(false);
    expect(review.error).toMatch(/More tests are added to a proposal in review, drafting or quarantine/);
    expect(review.detail?.proposal.proposal_state).toBe("rejected");
  });
});

describe("what the model refiner did, in the proposal summary", () => {
  async function detailWith(wording: ProposalDetailResponse["wording_refinement"]): Promise<string> {
    const agent = await startListeningAgent();
    try {
      const call: AgentCall = async (method, url, payload) => {
        const response = await agent.app.inject({
          method,
          url,
          headers: { host: new URL(agent.url).host, authorization: `Bearer ${agent.token}` },
          ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
        });
        return { status: response.statusCode, body: response.json() as Record<string, any> };
      };
      const { proposalId } = await readyProposal(call);
      const detail = await agent.client.proposalDetail(proposalId);
      return render(ProposalSummary, {
        props: { detail: { ...detail, ...(wording === undefined ? {} : { wording_refinement: wording }) }, parameters: [], parametersKnown: true },
      }).body;
    } finally {
      await agent.close();
    }
  }

  it("says nothing when no model is configured, names the model when its wording is used, and says why when it is not", async () => {
    expect(await detailWith(undefined)).not.toContain("data-wording-refinement");
    const used = await detailWith({ used: "model", model: "llama3.1" });
    expect(used).toContain('data-wording-refinement="model"');
    expect(used).toContain("Reworded by your model (llama3.1)");
    const kept = await detailWith({ used: "deterministic", model: "llama3.1", reason: "no answer within 15000 ms" });
    expect(kept).toContain("From the demonstration, as compiled.");
    expect(kept).toContain("Your model's wording was not used: no answer within 15000 ms.");
  });
});
