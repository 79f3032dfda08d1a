import { createHash, randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import { ProposalDetailResponseSchema } from "../../../shared/learning/route-contracts";
import { canonicalJson, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { parseSkillFrontmatter } from "../../../shared/skills/frontmatter";
import { MemoryPaths } from "../../memory/memory-paths";
import { startTestAgent, type TestAgent } from "../../test-support/test-agent";

const SITE = "http://127.0.0.1:8123";
let agent: TestAgent;

beforeEach(async () => {
  agent = await startTestAgent();
});
afterEach(async () => {
  await agent.close();
});

const call: TestAgent["call"] = (...args) => agent.call(...args);

function snapshot(title: string, extra: Partial<PageSnapshot> = {}): PageSnapshot {
  return {
    url: `${SITE}/`,
    title,
    headings: [{ level: 1, text: title }],
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: [],
    links: [],
    status_messages: [],
    schema_version: 1,
    ...extra,
  };
}
const sha = (page: PageSnapshot) => createHash("sha256").update(canonicalJson(page)).digest("hex");

/** A captured demonstration: fill a masked email, click "Sign up", the page says the account is ready. */
async function demonstrate(options: { goal?: string } = {}): Promise<string> {
  const created = await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" });
  const id = created.body.session.learn_session_id as string;
  await call("POST", `/api/learn/sessions/${id}/start`);
  if (options.goal !== undefined) await call("POST", `/api/learn/sessions/${id}/mark-goal`, { goal_description: options.goal });
  const before = snapshot("Create account", { buttons: ["Sign up"] });
  const after = snapshot("Welcome", { status_messages: ["Your account is ready"] });
  const base = { learn_session_id: id, adapter_kind: "browser_dom", app_family: "browser", redaction_mode: "mask_text", schema_version: 1 };
  const detail = { page_url: `${SITE}/signup`, page_title: "Create account" };
  const events = [
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Email'",
      created_at: new Date(Date.now() + 1).toISOString(),
      browser_detail: {
        ...detail,
        target_name: "Email",
        target_role: "textbox",
        target_tag: "input",
        input_type: "email",
        selectors: [["#email"], ["aria/Email"]],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "medium" },
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Sign up'",
      created_at: new Date(Date.now() + 2).toISOString(),
      before_state_ref: `snapshot:${sha(before)}`,
      after_state_ref: `snapshot:${sha(after)}`,
      browser_detail: {
        ...detail,
        target_name: "Sign up",
        target_role: "button",
        selectors: [["#signup"], ['aria/Sign up[role="button"]']],
        dom_event_kind: "click",
      },
    },
  ];
  const ack = await call("POST", "/api/observations/events", {
    batch_id: randomUUID(),
    events,
    snapshots: [before, after].map((page) => ({ sha256: sha(page), learn_session_id: id, snapshot: page })),
    schema_version: 1,
  });
  expect(ack.body.accepted).toHaveLength(2);
  await call("POST", `/api/learn/sessions/${id}/stop`);
  return id;
}

describe("generate-proposal and the proposal routes", () => {
  it("R11.2-11: generate-proposal from stopped creates a proposal, passing drafting_proposal, and a lint-clean one is ready for review", async () => {
    const id = await demonstrate({ goal: "Create a shop account" });
    const generated = await call("POST", `/api/learn/sessions/${id}/generate-proposal`);
    expect(generated.status).toBe(200);
    expect(generated.body.session.state).toBe("ready_for_review");
    const proposalId = generated.body.proposal_id as string;
    const receipts = (await call("GET", `/api/learn/receipts?session_id=${id}`)).body.receipts as Array<{ receipt_kind: string }>;
    expect(receipts.map((receipt) => receipt.receipt_kind)).toContain("learn.proposal.created");

    const detail = ProposalDetailResponseSchema.parse((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body);
    expect(detail.proposal).toMatchObject({
      proposal_state: "ready_for_review",
      title: "Create a shop account",
      proposed_skill_slug: "create-a-shop-account",
      install_lane: "pending",
    });
    expect(detail.interpretation?.success_conditions).toContain('The page says "Your account is ready"');
    expect(detail.checkpoint_lint_report).toMatchObject({ passed: true });

    const markdown = (await agent.memory.readText(detail.proposal.draft_skill_path)) ?? "";
    expect(parseSkillFrontmatter(markdown)?.name).toBe("create-a-shop-account");
    expect(markdown).toContain("{{email}}");
    expect(markdown).not.toMatch(/#signup|#email|aria\//);
    const list = await call("GET", "/api/learn/proposals");
    expect(list.body).toMatchObject({ total: 1, proposals: [expect.objectContaining({ proposal_id: proposalId })] });
  });

  it("answers INSUFFICIENT_TRACES for a session with nothing observed, and writes nothing", async () => {
    const created = await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" });
    const id = created.body.session.learn_session_id as string;
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "nothing" });
    await call("POST", `/api/learn/sessions/${id}/stop`);
    const result = await call("POST", `/api/learn/sessions/${id}/generate-proposal`);
    expect(result.status).toBe(400);
    expect(ApiErrorResponseSchema.parse(result.body).error.code).toBe("INSUFFICIENT_TRACES");
    expect((await call("GET", `/api/learn/sessions/${id}/detail`)).body.state).toBe("stopped");
    expect(await agent.memory.exists(MemoryPaths.proposals)).toBe(false);
  });

  it("asks for the goal when none was marked; answering it yields a proposal whose SKILL.md uses the answer", async () => {
    const id = await demonstrate();
    const generated = await call("POST", `/api/learn/sessions/${id}/generate-proposal`);
    expect(generated.body.session.state).toBe("awaiting_questions");
    const proposalId = generated.body.proposal_id as string;
    const detail = ProposalDetailResponseSchema.parse((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body);
    const goalQuestion = detail.questions.find((question) => question.question_text.startsWith("What is this ability for"));
    expect(goalQuestion).toBeDefined();
    // Each question says whether it is required; the optional ones also say so in their text.
    expect(goalQuestion?.required).toBe(true);
    for (const question of detail.questions) expect(question.question_text.endsWith("(optional)")).toBe(question.required === false);

    const answered = await call("POST", `/api/learn/sessions/${id}/answer-questions`, {
      answers: [{ question_id: goalQuestion?.question_id, answer_text: "Open a customer account" }],
    });
    expect(answered.body).toMatchObject({ remaining_questions: 0, next_action: "ready_for_review", session: { state: "ready_for_review" } });
    const after = ProposalDetailResponseSchema.parse((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body);
    expect(after.proposal.title).toBe("Open a customer account");
    expect(await agent.memory.readText(after.proposal.draft_skill_path)).toContain("Open a customer account");
    expect(after.questions.find((question) => question.question_id === goalQuestion?.question_id)).toMatchObject({
      answered: true,
      answer_text: "Open a customer account",
    });
  });

  it("R11.2-25: a revision whose checkpoints fail lint cannot reach ready_for_review, and the report says which and why", async () => {
    const id = await demonstrate({ goal: "Create a shop account" });
    const proposalId = (await call("POST", `/api/learn/sessions/${id}/generate-proposal`)).body.proposal_id as string;
    const before = ProposalDetailResponseSchema.parse((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body);
    const revised = await call("POST", `/api/learn/proposals/${proposalId}/revise`, {
      revision_instructions: "Use the banner as proof",
      edited_fields: { checkpoints: [{ checkpoint_id: "cp-01", success_condition: "div-8472" }] },
    });
    expect(revised.status).toBe(200);
    expect(revised.body.proposal.proposal_state).toBe("draft");
    expect(revised.body.checkpoint_lint_report.findings).toEqual([expect.objectContaining({ rule: "CKP-001", checkpoint_id: "cp-01" })]);
    expect((await call("GET", `/api/learn/sessions/${id}/detail`)).body.state).toBe("drafting_proposal");
    // The previous draft revision is kept.
    expect(await agent.memory.readText(before.proposal.draft_skill_path)).toContain("Your account is ready");
    expect(revised.body.proposal.draft_skill_path).not.toBe(before.proposal.draft_skill_path);

    const fixed = await call("POST", `/api/learn/proposals/${proposalId}/revise`, {
      revision_instructions: "Back to the visible confirmation",
      edited_fields: { checkpoints: [{ checkpoint_id: "cp-01", success_condition: "The page says the account is ready" }], title: "Create a customer account" },
    });
    expect(fixed.body.proposal).toMatchObject({ proposal_state: "ready_for_review", title: "Create a customer account" });
  });

  it("marks a checkpoint as confirmed by hand: the person confirms it at each run, the page is not checked for it (issue #35)", async () => {
    const id = await demonstrate({ goal: "Create a shop account" });
    const proposalId = (await call("POST", `/api/learn/sessions/${id}/generate-proposal`)).body.proposal_id as string;
    const before = await call("GET", `/api/learn/proposals/${proposalId}/detail`);
    const checkpoint = (
      before.body.interpretation.checkpoints as Array<{ checkpoint_id: string; success_condition: string; verification?: { by: string } }>
    )[0]!;
    expect(checkpoint.verification?.by ?? "page").toBe("page");
    const revised = await call("POST", `/api/learn/proposals/${proposalId}/revise`, {
      revision_instructions: "I will confirm this one myself",
      edited_fields: { checkpoints: [{ checkpoint_id: checkpoint.checkpoint_id, verified_by: "person" }] },
    });
    expect(revised.status, JSON.stringify(revised.body)).toBe(200);
    const after = (revised.body.interpretation.checkpoints as Array<{ checkpoint_id: string; success_condition: string; verification?: { by: string } }>).find(
      (entry) => entry.checkpoint_id === checkpoint.checkpoint_id,
    );
    expect(after).toMatchObject({ success_condition: checkpoint.success_condition, verification: { by: "person" } });
    // Only "person" can be asked for this way.
    const refused = await call("POST", `/api/learn/proposals/${proposalId}/revise`, {
      revision_instructions: "x",
      edited_fields: { checkpoints: [{ checkpoint_id: checkpoint.checkpoint_id, verified_by: "robot" }] },
    });
    expect(refused.status).toBe(400);
  });

  it("refuses edits of fields that cannot be edited", async () => {
    const id = await demonstrate({ goal: "Create a shop account" });
    const proposalId = (await call("POST", `/api/learn/sessions/${id}/generate-proposal`)).body.proposal_id as string;
    const result = await call("POST", `/api/learn/proposals/${proposalId}/revise`, {
      revision_instructions: "x",
      edited_fields: { install_lane: "shared_promoted" },
    });
    expect(result.status).toBe(400);
    expect(ApiErrorResponseSchema.parse(result.body).error.code).toBe("REQUEST_INVALID");
  });

  it("R11.2-13: reject moves a proposal ready for review to rejected, with the reason on the receipt", async () => {
    const id = await demonstrate({ goal: "Create a shop account" });
    const proposalId = (await call("POST", `/api/learn/sessions/${id}/generate-proposal`)).body.proposal_id as string;
    expect((await call("POST", `/api/learn/proposals/${proposalId}/reject`, { schema_version: 1 })).status).toBe(400);
    const rejected = await call("POST", `/api/learn/proposals/${proposalId}/reject`, { reason: "Not useful", schema_version: 1 });
    expect(rejected.body.proposal.proposal_state).toBe("rejected");
    expect((await call("GET", `/api/learn/sessions/${id}/detail`)).body.state).toBe("rejected");
    const receipts = (await call("GET", `/api/learn/receipts?session_id=${id}`)).body.receipts as Array<{
      receipt_kind: string;
      details?: { reason?: string };
    }>;
    expect(receipts.find((receipt) => receipt.receipt_kind === "learn.proposal.rejected")?.details?.reason).toBe("Not useful");
  });

  it("lists what was captured after a cursor, and leaves excluded events out of the proposal", async () => {
    const id = await demonstrate({ goal: "Create a shop account" });
    const all = await call("GET", `/api/learn/sessions/${id}/observations`);
    expect(all.body.total).toBe(2);
    const [fill, click] = all.body.events as Array<{ event_id: string; action_label: string }>;
    expect(fill?.action_label).toBe("Fill 'Email'");
    const after = await call("GET", `/api/learn/sessions/${id}/observations?after=${fill?.event_id}`);
    expect((after.body.events as Array<{ event_id: string }>).map((event) => event.event_id)).toEqual([click?.event_id]);

    const excluded = await call("POST", `/api/learn/sessions/${id}/exclude-events`, { event_ids: [fill?.event_id] });
    expect(excluded.body.excluded_event_ids).toEqual([fill?.event_id]);
    expect((await call("POST", `/api/learn/sessions/${id}/exclude-events`, { event_ids: [randomUUID()] })).status).toBe(400);
    const proposalId = (await call("POST", `/api/learn/sessions/${id}/generate-proposal`)).body.proposal_id as string;
    const markdown = (await call("GET", `/api/learn/proposals/${proposalId}/skill-md`)).body.markdown as string;
    expect(markdown).toContain("## Checkpoints");
    expect(markdown).not.toContain("{{email}}");
  });

  it("answers PROPOSAL_NOT_FOUND for an unknown proposal", async () => {
    const result = await call("GET", `/api/learn/proposals/${randomUUID()}/detail`);
    expect(ApiErrorResponseSchema.parse(result.body).error.code).toBe("PROPOSAL_NOT_FOUND");
  });
});
