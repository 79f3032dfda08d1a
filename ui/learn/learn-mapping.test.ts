import { describe, expect, it } from "vitest";
import type { CheckpointVerificationReceipt } from "../../shared/learning/checkpoints/checkpoint-receipt";
import type { LearnSession, LearnSessionState } from "../../shared/learning/sessions/learn-session";
import { LearnSessionStateSchema } from "../../shared/learning/sessions/learn-session";
import type { SkillBundleProposal } from "../../shared/skills/proposal";
import { checkpointProgress } from "../review/checkpoints/checkpoint-progress";
import { groupPendingAbilities, isPendingSession } from "./pending-abilities";
import { openQuestions } from "../session/questions/questions.svelte";
import { availableControls } from "../session/controls/session-control-availability";
import { parametersFromSkillMarkdown } from "../review/proposal/skill-parameters";
import { normalizeSiteEntry } from "../common/site-entry";
import { siteFromUrl } from "../../shared/observation/site-allowlist";

let counter = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++counter).padStart(12, "0")}`;

function session(state: LearnSessionState, extra: Partial<LearnSession> = {}): LearnSession {
  return {
    learn_session_id: uuid(),
    entry_mode: "demonstrating_skill",
    observation_mode: "outside_agent",
    build_policy: "build_then_review",
    execution_mode: "guided",
    target_kind: "new_skill",
    state,
    actor_mode: "mixed",
    target_app_whitelist: [],
    active_trace_ids: [],
    active_observation_batch_ids: [],
    created_at: `2026-01-0${(counter % 9) + 1}T10:00:00.000Z`,
    updated_at: "2026-01-09T10:00:00.000Z",
    schema_version: 1,
    ...extra,
  };
}

function proposal(sessionId: string, extra: Partial<SkillBundleProposal> = {}): SkillBundleProposal {
  return {
    proposal_id: uuid(),
    learn_session_id: sessionId,
    source_trace_ids: [sessionId],
    source_mode: "user_guided",
    title: "Create a customer account",
    proposed_skill_slug: "create-a-customer-account",
    trigger_phrases: [],
    negative_triggers: [],
    draft_skill_path: "x/SKILL.md",
    draft_manifest_path: "x/manifest.json",
    proposal_state: "ready_for_review",
    install_lane: "pending",
    support_pack_refs: [],
    ambiguity_flags: [],
    created_at: "2026-01-01T10:00:00.000Z",
    updated_at: "2026-01-01T10:00:00.000Z",
    schema_version: 1,
    ...extra,
  };
}

describe("Pending Abilities grouping (§0C.6)", () => {
  it("puts each pending session in the group the spec's mapping gives it, groups in the spec's order", () => {
    const capturing = session("capturing");
    const paused = session("paused");
    const asking = session("awaiting_questions");
    const drafting = session("drafting_proposal");
    const testing = session("testing_proposal");
    const review = session("ready_for_review");
    const reviewProposal = proposal(review.learn_session_id);
    review.proposal_id = reviewProposal.proposal_id;
    const installed = session("installed_private");
    const quarantined = session("quarantined");
    const groups = groupPendingAbilities([quarantined, installed, review, testing, drafting, asking, paused, capturing], [reviewProposal]);
    expect(groups.map((group) => group.uiState)).toEqual([
      "capturing",
      "awaiting_input",
      "drafting",
      "testing",
      "ready_for_review",
      "private_active",
      "revision_required",
    ]);
    expect(groups[0]?.items.map((item) => item.session.state).sort()).toEqual(["capturing", "paused"]);
    expect(groups.find((group) => group.uiState === "ready_for_review")?.items[0]?.title).toBe("Create a customer account");
    expect(groups.find((group) => group.uiState === "ready_for_review")?.label).toBe("Ready for review");
  });

  it("uses the proposal's install lane: a session whose proposal is installed privately is 'private_active'", () => {
    const stopped = session("stopped");
    const lane = proposal(stopped.learn_session_id, { install_lane: "experimental_private" });
    stopped.proposal_id = lane.proposal_id;
    expect(groupPendingAbilities([stopped], [lane]).map((group) => group.uiState)).toEqual(["private_active"]);
  });

  it("leaves out sessions not started yet, finished without a result, and accepted ones (they belong to Skills)", () => {
    for (const state of ["idle", "armed", "rejected", "cancelled", "approved"] as const) expect(isPendingSession(state)).toBe(false);
    expect(groupPendingAbilities([session("idle"), session("cancelled"), session("approved")], [])).toEqual([]);
  });
});

describe("checkpoint progress (§0C.9B)", () => {
  const checkpoints = [
    { checkpoint_id: "cp-03", goal: "Export confirmed", success_condition: "A confirmation is shown", order_hint: 3 },
    { checkpoint_id: "cp-01", goal: "Export dialog is open", success_condition: "The dialog is visible", order_hint: 1 },
    { checkpoint_id: "cp-02", goal: "PDF format is selected", success_condition: "PDF is chosen", order_hint: 2 },
    { checkpoint_id: "cp-04", goal: "File exists at destination", success_condition: "The file is listed" },
  ];
  const receipt = (
    checkpoint_id: string,
    status: "reached" | "skipped" | "failed",
    created_at: string,
    extra: Partial<CheckpointVerificationReceipt> = {},
  ): CheckpointVerificationReceipt => ({
    receipt_id: uuid(),
    learn_session_id: uuid(),
    checkpoint_id,
    status,
    evidence: `${checkpoint_id} evidence`,
    created_at,
    schema_version: 1,
    ...extra,
  });

  it("sorts by order_hint and shows a checkpoint without a receipt as not yet reached", () => {
    const rows = checkpointProgress(checkpoints, []);
    expect(rows.map((row) => row.checkpoint_id)).toEqual(["cp-01", "cp-02", "cp-03", "cp-04"]);
    expect(new Set(rows.map((row) => row.status))).toEqual(new Set(["not_reached"]));
    expect(rows[0]?.evidence).toBeUndefined();
  });

  it("overlays the latest receipt of each checkpoint: reached with evidence, skipped and failed with their reason", () => {
    const rows = checkpointProgress(checkpoints, [
      receipt("cp-01", "failed", "2026-01-01T10:00:00.000Z", { reason: "dialog did not open" }),
      receipt("cp-01", "reached", "2026-01-01T10:05:00.000Z"),
      receipt("cp-02", "skipped", "2026-01-01T10:06:00.000Z", { reason: "PDF already selected" }),
      receipt("cp-03", "failed", "2026-01-01T10:07:00.000Z", { reason: "no confirmation" }),
      receipt("cp-99", "reached", "2026-01-01T10:08:00.000Z"),
    ]);
    expect(rows.map((row) => [row.checkpoint_id, row.status])).toEqual([
      ["cp-01", "reached"],
      ["cp-02", "skipped"],
      ["cp-03", "failed"],
      ["cp-04", "not_reached"],
    ]);
    expect(rows[0]?.evidence).toBe("cp-01 evidence");
    expect(rows[1]?.reason).toBe("PDF already selected");
    expect(rows[2]).toMatchObject({ reason: "no confirmation", evidence: "cp-03 evidence" });
  });
});

describe("session controls follow the state machine (§0C.1A)", () => {
  it("offers only moves the agent accepts", () => {
    expect([...availableControls("idle")].sort()).toEqual(["cancel", "start"]);
    expect([...availableControls("armed")].sort()).toEqual(["cancel", "mark_goal", "mark_step"]);
    expect([...availableControls("capturing")].sort()).toEqual(["cancel", "mark_goal", "mark_step", "pause", "stop"]);
    expect([...availableControls("paused")].sort()).toEqual(["cancel", "mark_goal", "mark_step", "resume", "stop"]);
    expect([...availableControls("stopped")].sort()).toEqual(["cancel", "generate_proposal"]);
    expect([...availableControls("ready_for_review")]).toEqual([]);
    for (const state of LearnSessionStateSchema.options) {
      if (availableControls(state).has("cancel"))
        expect(["rejected", "cancelled", "approved", "installed_private", "installing_private", "ready_for_review"]).not.toContain(state);
    }
  });
});

describe("the questions panel reads the detail route's questions", () => {
  it("keeps the open ones, required first, and takes the '(optional)' marker off the text", () => {
    const questions = openQuestions([
      { question_id: "a", question_text: "When should it be used? (optional)", answered: false },
      { question_id: "b", question_text: "What is this ability for?", answered: false },
      { question_id: "c", question_text: "Is it for one project? (optional)", answered: true, answer_text: "all" },
    ]);
    expect(questions).toEqual([
      { question_id: "b", text: "What is this ability for?", required: true },
      { question_id: "a", text: "When should it be used?", required: false },
    ]);
  });

  it("trusts the agent's required flag over the text", () => {
    const questions = openQuestions([
      { question_id: "a", question_text: "Which project is it for? (optional)", required: true, answered: false },
      { question_id: "b", question_text: "Anything else to know?", required: false, answered: false },
    ]);
    expect(questions).toEqual([
      { question_id: "a", text: "Which project is it for?", required: true },
      { question_id: "b", text: "Anything else to know?", required: false },
    ]);
  });
});

describe("sites", () => {
  it("reads the current tab's site as an allow-list entry, never its path or query", () => {
    expect(siteFromUrl("https://Shop.Example.com/checkout?token=abc")).toBe("shop.example.com");
    expect(siteFromUrl("http://127.0.0.1:8123/signup.html")).toBe("http://127.0.0.1:8123");
    expect(siteFromUrl("chrome-extension://abc/sidepanel.html")).toBeUndefined();
    expect(siteFromUrl("chrome://settings")).toBeUndefined();
    expect(siteFromUrl(undefined)).toBeUndefined();
  });

  it("accepts hosts, wildcards, origins and full addresses, and refuses what is not a site", () => {
    expect(normalizeSiteEntry("shop.example.com")).toEqual({ ok: true, entry: "shop.example.com" });
    expect(normalizeSiteEntry("*.Example.com")).toEqual({ ok: true, entry: "*.example.com" });
    expect(normalizeSiteEntry("http://127.0.0.1:8123/")).toEqual({ ok: true, entry: "http://127.0.0.1:8123" });
    expect(normalizeSiteEntry("https://shop.example.com/orders?x=1")).toEqual({ ok: true, entry: "shop.example.com" });
    expect(normalizeSiteEntry("my bank").ok).toBe(false);
    expect(normalizeSiteEntry("  ").ok).toBe(false);
  });
});

describe("draft parameters", () => {
  it("reads the Inputs section the compiler writes", () => {
    const markdown = [
      "# Create an account",
      "",
      "## Inputs",
      "",
      "Ask the user for each of these when you run the skill.",
      "",
      "- `{{full_name}}` — Full name (text)",
      "- `{{about_you}}` — About \\*you\\* (long text)",
      "",
      "## Checkpoints",
      "- `{{not_a_parameter}}` — Elsewhere (text)",
    ].join("\n");
    expect(parametersFromSkillMarkdown(markdown)).toEqual([
      { name: "full_name", label: "Full name", type: "text" },
      { name: "about_you", label: "About *you*", type: "long text" },
    ]);
    expect(parametersFromSkillMarkdown("# No inputs here")).toEqual([]);
  });
});
