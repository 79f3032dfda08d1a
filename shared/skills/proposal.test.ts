import { describe, it, expect } from "vitest";
import { SkillBundleProposalSchema } from "./proposal";

const TRACE_ID = "3f1c2a8e-9b4d-4e2f-8a1b-2c3d4e5f6a7b";
const NOW = "2026-01-01T00:00:00Z";
const base = {
  proposal_id: "7d2e4c1a-5b6f-4a8e-9c0d-1e2f3a4b5c6d",
  source_trace_ids: [TRACE_ID],
  source_mode: "user_guided",
  title: "Export invoices",
  proposed_skill_slug: "export-invoices",
  draft_skill_path: "drafts/export-invoices/SKILL.md",
  draft_manifest_path: "drafts/export-invoices/manifest.json",
  proposal_state: "draft",
  created_at: NOW,
  updated_at: NOW,
  schema_version: 1,
};

describe("SkillBundleProposalSchema (§0C.10A + §0C.19)", () => {
  it("starts in the pending lane with no flags when none are given", () => {
    const proposal = SkillBundleProposalSchema.parse(base);
    expect(proposal.install_lane).toBe("pending");
    expect(proposal.ambiguity_flags).toEqual([]);
    expect(proposal.draft_graph_ref).toBeUndefined();
  });

  it("accepts the §0A.17 states and the quarantined lane", () => {
    const quarantined = { ...base, proposal_state: "quarantined", install_lane: "quarantined" };
    expect(SkillBundleProposalSchema.safeParse(quarantined).success).toBe(true);
    expect(SkillBundleProposalSchema.safeParse({ ...base, proposal_state: "installing_private" }).success).toBe(true);
  });

  it("rejects the §0.2F-only state name awaiting_user_input", () => {
    expect(SkillBundleProposalSchema.safeParse({ ...base, proposal_state: "awaiting_user_input" }).success).toBe(false);
  });

  it("requires at least one source trace and a source mode", () => {
    expect(SkillBundleProposalSchema.safeParse({ ...base, source_trace_ids: [] }).success).toBe(false);
    const { source_mode: _omitted, ...withoutMode } = base;
    expect(SkillBundleProposalSchema.safeParse(withoutMode).success).toBe(false);
  });
});
