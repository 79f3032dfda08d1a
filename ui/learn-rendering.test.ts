import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import type { ObservedActionEventWithDetail } from "../shared/learning/observed-actions/observed-action";
import CheckpointProgressView from "./review/checkpoints/CheckpointProgressView.svelte";
import LearnNewAbility from "./learn/LearnNewAbility.svelte";
import SessionTimeline from "./session/timeline/SessionTimeline.svelte";
import SkillMarkdownPreview from "./review/proposal/SkillMarkdownPreview.svelte";
import ProposalDecisions from "./review/decisions/ProposalDecisions.svelte";
import { ProposalReviewState } from "./review/proposal/proposal-review.svelte";
import { proposalActions } from "./review/decisions/proposal-actions";
import type { AgentFeature } from "./common/agent-features";
import { FORBIDDEN_LABELS, findForbiddenLabels } from "./forbidden-labels";
import { LearnNavigation } from "./common/learn-navigation.svelte";
import { noBrowser } from "./common/no-browser";
import { SessionSetupState } from "./learn/session-setup.svelte";
import type { SessionTimelineState } from "./session/timeline/session-timeline.svelte";
import { MASKED_TEXT, timelineStep } from "./session/timeline/timeline";
import { createAgentClient } from "./agent-link/agent-client";

const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, "..");

/** Every source file of the panel: the UI and the side panel entry. */
async function panelSources(): Promise<Array<{ file: string; text: string }>> {
  const files: string[] = [];
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (/\.(svelte|ts|html)$/.test(entry.name)) files.push(full);
    }
  };
  await walk(path.join(projectRoot, "ui"));
  await walk(path.join(projectRoot, "extension", "entrypoints", "sidepanel"));
  return Promise.all(files.map(async (file) => ({ file: path.relative(projectRoot, file), text: await readFile(file, "utf8") })));
}

const CANARY = "Qz9-typed-canary";

function event(extra: Partial<ObservedActionEventWithDetail> = {}): ObservedActionEventWithDetail {
  return {
    event_id: "22222222-2222-4222-8222-222222222222",
    learn_session_id: "33333333-3333-4333-8333-333333333333",
    adapter_kind: "browser_dom",
    action_label: "Fill 'Full name'",
    caused_state_change: false,
    redaction_mode: "mask_text",
    created_at: "2026-01-01T10:00:00.000Z",
    schema_version: 1,
    browser_detail: {
      page_url: "https://shop.example.com/signup?token=secret-query-value",
      page_title: "Sign up",
      selectors: [["#full-name"]],
      dom_event_kind: "change",
      masked_field: { masked: true, length_class: "short" },
    },
    ...extra,
  };
}

describe("deprecated labels (§0B.4, §0C.18)", () => {
  it("appear nowhere in the panel's source text", async () => {
    const offenders: string[] = [];
    for (const { file, text } of await panelSources()) {
      // The list itself and the tests that use it are the only places allowed to spell them.
      if (file.endsWith("forbidden-labels.ts") || file.endsWith(".test.ts")) continue;
      for (const label of findForbiddenLabels(text)) offenders.push(`${file}: ${label}`);
    }
    expect(offenders).toEqual([]);
  });

  it("are caught in any case and spacing, while one-word internal values are not", () => {
    expect(findForbiddenLabels("Open the experimental abilities")).toEqual(["Experimental", "Experimental Abilities"]);
    expect(findForbiddenLabels("Teach  Elnor a trick")).toEqual(["Teach Elnor"]);
    expect(findForbiddenLabels("install_lane experimental_private")).toEqual([]);
    expect(FORBIDDEN_LABELS).toContain("Observe My Actions");
  });
});

describe("the live timeline never shows a typed value", () => {
  it("shows a masked field as 'masked', the site without its query, and a snapshot summary", () => {
    const step = timelineStep(event({ after_state_ref: "snapshot:abc" }), new Set());
    expect(step).toMatchObject({
      label: "Fill 'Full name'",
      kind: "Edit",
      field: MASKED_TEXT,
      where: "Sign up · shop.example.com",
      snapshot: "Page snapshot: Sign up",
    });
    expect(JSON.stringify(step)).not.toContain("secret-query-value");
  });

  it("does not show even a value recorded with consent", () => {
    const consented = event({ redaction_mode: "none", browser_detail: { ...event().browser_detail!, masked_field: { masked: false, value: CANARY } } });
    const step = timelineStep(consented, new Set());
    expect(JSON.stringify(step)).not.toContain(CANARY);
    expect(step.field).toMatch(/not shown/);
  });

  it("renders the steps with 'masked' and no value", () => {
    const steps = [
      timelineStep(event(), new Set()),
      timelineStep(
        event({
          event_id: "44444444-4444-4444-8444-444444444444",
          redaction_mode: "none",
          browser_detail: { ...event().browser_detail!, masked_field: { masked: false, value: CANARY } },
        }),
        new Set(["44444444-4444-4444-8444-444444444444"]),
      ),
    ];
    const timeline = { steps, total: 2, availability: "ready", error: null, busy: false } as unknown as SessionTimelineState;
    const { body } = render(SessionTimeline, {
      props: { timeline, shapeable: true, busy: false, trimStartId: undefined, trimEndId: undefined, ontrim: () => {} },
    });
    expect(body).toContain(">masked<");
    expect(body).toContain("Excluded from the proposal");
    expect(body).not.toContain(CANARY);
    expect(body).not.toContain("secret-query-value");
  });
});

describe("rendering rules", () => {
  it("renders page-derived SKILL.md text as text, never as HTML", () => {
    const markdown = '# Title\n<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const { body } = render(SkillMarkdownPreview, { props: { markdown: { status: "ready", value: markdown } } });
    expect(body).not.toContain("<img");
    expect(body).not.toContain("<script>");
    expect(body).toContain("&lt;img");
  });

  it("shows each checkpoint status with a symbol and words (§0C.9B), goal text when not reached", () => {
    const { body } = render(CheckpointProgressView, {
      props: {
        rows: [
          { checkpoint_id: "a", goal: "Export dialog is open", success_condition: "Dialog visible", status: "reached", evidence: "Export dialog visible" },
          { checkpoint_id: "b", goal: "PDF selected", success_condition: "PDF chosen", status: "skipped", reason: "already PDF" },
          { checkpoint_id: "c", goal: "Export confirmed", success_condition: "Confirmation", status: "failed", reason: "no confirmation" },
          { checkpoint_id: "d", goal: "File exists", success_condition: "File listed", status: "not_reached" },
        ],
        note: "Checkpoint verification is not available yet",
      },
    });
    for (const text of [
      "Reached",
      "Skipped",
      "Failed",
      "Not yet reached",
      "Evidence:",
      "already PDF",
      "no confirmation",
      "(not yet reached)",
      "Checkpoint Progress",
    ]) {
      expect(body).toContain(text);
    }
    expect(body.match(/data-checkpoint-status="(\w+)"/g)).toEqual([
      'data-checkpoint-status="reached"',
      'data-checkpoint-status="skipped"',
      'data-checkpoint-status="failed"',
      'data-checkpoint-status="not_reached"',
    ]);
  });

  it("shows the five cards under 'Create new ability by:', the unbuilt ones disabled with their reason", () => {
    const client = createAgentClient({ baseUrl: "http://127.0.0.1:9" });
    const setup = new SessionSetupState(
      { client, browser: noBrowser, features: { has: () => false }, onFailure: () => {} },
      { onCreated: () => {}, onShowActive: () => {} },
    );
    const { body } = render(LearnNewAbility, { props: { setup, nav: new LearnNavigation() } });
    expect(body).toContain("Create new ability by:");
    const cards = [...body.matchAll(/data-card="([^"]+)"/g)].map((match) => match[1]);
    expect(cards).toEqual(["Demonstrating Skill", "Coaching Agent", "Autonomous Agent Practice", "Improving Existing Skill", "Import Skill"]);
    expect(body.match(/Not available yet/g)?.length).toBe(3);
    expect(findForbiddenLabels(body)).toEqual([]);
  });

  it("offers no card while the agent's description is read, and says why over the cards when it could not be", () => {
    const client = createAgentClient({ baseUrl: "http://127.0.0.1:9" });
    const setup = new SessionSetupState(
      { client, browser: noBrowser, features: { has: () => false }, onFailure: () => {} },
      { onCreated: () => {}, onShowActive: () => {} },
    );
    const reading = render(LearnNewAbility, { props: { setup, nav: new LearnNavigation(), reading: true } }).body;
    expect(reading).toContain("Checking what your agent can do…");
    expect(reading).not.toContain("data-card=");
    const failed = render(LearnNewAbility, { props: { setup, nav: new LearnNavigation(), featuresFailure: "The agent did not answer." } }).body;
    expect(failed).toContain("Could not check what your agent can do, so some ways below may show as not available. The agent did not answer.");
    expect(failed.match(/data-card="/g)?.length).toBe(5);
    expect(render(LearnNewAbility, { props: { setup, nav: new LearnNavigation() } }).body).not.toContain("data-features-failure");
  });

  it("on an agent without the routes, offers Validate, Install privately, Approve and Request More Tests disabled, each with its reason", () => {
    const client = createAgentClient({ baseUrl: "http://127.0.0.1:9" });
    const deps = { client, browser: noBrowser, features: { has: () => false }, onFailure: () => {} };
    const review = new ProposalReviewState(deps, "55555555-5555-4555-8555-555555555555");
    review.detail = {
      proposal: {
        proposal_id: "55555555-5555-4555-8555-555555555555",
        source_trace_ids: ["66666666-6666-4666-8666-666666666666"],
        source_mode: "user_guided",
        title: "Create an account",
        proposed_skill_slug: "create-an-account",
        trigger_phrases: [],
        negative_triggers: [],
        draft_skill_path: "x",
        draft_manifest_path: "y",
        proposal_state: "ready_for_review",
        install_lane: "pending",
        support_pack_refs: [],
        ambiguity_flags: [],
        created_at: "2026-01-01T10:00:00.000Z",
        updated_at: "2026-01-01T10:00:00.000Z",
        schema_version: 1,
      },
      questions: [],
    };
    const { body } = render(ProposalDecisions, { props: { review, features: deps.features } });
    for (const label of ["Validate", "Install privately", "Approve", "Request More Tests"]) {
      expect(body).toMatch(new RegExp(`<button[^>]*disabled[^>]*>\\s*${label}\\s*</button>`));
    }
    expect(body).toMatch(/<button[^>]*name="revise"(?![^>]*disabled)[^>]*>/);
    expect(body).toContain("Validation arrives with the next agent update.");
  });
});

describe("proposal decisions follow the proposal's state and the agent's routes", () => {
  const all = { has: (_feature: AgentFeature) => true };
  const none = { has: (_feature: AgentFeature) => false };

  it("says which decisions an older agent cannot take yet", () => {
    const actions = proposalActions("ready_for_review", none);
    expect(actions.validate).toEqual({ enabled: false, reason: "Validation arrives with the next agent update." });
    expect(actions.install.enabled).toBe(false);
    expect(actions.approve.enabled).toBe(false);
    expect(actions.revise.enabled).toBe(true);
    expect(actions.reject.enabled).toBe(true);
  });

  it("offers validate, install and approve from review, approve again after a private install, never a second install", () => {
    const review = proposalActions("ready_for_review", all);
    expect([review.validate, review.install, review.approve].every((action) => action.enabled)).toBe(true);
    const privately = proposalActions("installed_private", all);
    expect(privately.approve.enabled).toBe(true);
    expect(privately.install).toEqual({ enabled: false, reason: "Already installed." });
    expect(privately.reject.enabled).toBe(false);
    expect(proposalActions("awaiting_questions", all).validate.reason).toMatch(/Answer the open questions/);
    expect(proposalActions("draft", all).validate.enabled).toBe(true);
    expect(proposalActions("approved", all).approve.reason).toMatch(/under Skills/);
  });
});
