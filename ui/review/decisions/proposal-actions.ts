import type { SkillBundleProposalState } from "../../../shared/skills/proposal";
import type { AgentFeature } from "../../common/agent-features";
import { NOT_AVAILABLE_YET } from "../../common/learn-labels";

export type ProposalAction = "validate" | "install" | "approve" | "request_more_tests" | "revise" | "reject";

export interface ActionAvailability {
  enabled: boolean;
  /** Why it is disabled, in words; absent when enabled. */
  reason?: string;
}

/** The proposal states from which the agent accepts each decision (agent/abilities, agent/learning). */
const ALLOWED: Record<ProposalAction, readonly SkillBundleProposalState[]> = {
  revise: ["draft", "ready_for_review", "testing", "quarantined"],
  reject: ["ready_for_review"],
  validate: ["draft", "ready_for_review"],
  install: ["ready_for_review"],
  approve: ["ready_for_review", "installed_private"],
  // A new draft revision that must be validated again: from where the session may go back to drafting.
  request_more_tests: ["draft", "ready_for_review", "quarantined"],
};

/** Which route each action needs; revise and reject are part of every agent the panel pairs with. */
const NEEDS: Partial<Record<ProposalAction, AgentFeature>> = {
  validate: "validate",
  install: "install",
  approve: "approve",
  request_more_tests: "request_more_tests",
};

const MISSING: Record<ProposalAction, string> = {
  validate: NOT_AVAILABLE_YET.validate,
  install: NOT_AVAILABLE_YET.install,
  approve: NOT_AVAILABLE_YET.approve,
  request_more_tests: NOT_AVAILABLE_YET.request_more_tests,
  revise: "",
  reject: "",
};

function stateReason(action: ProposalAction, state: SkillBundleProposalState): string {
  if (state === "awaiting_questions") return "Answer the open questions first (Active Capability Learning).";
  if (state === "testing") return "Wait for the validation run to finish.";
  if (state === "rejected" || state === "cancelled") return "This proposal is closed.";
  if (action === "approve" && state === "approved") return "Already approved: it is under Skills.";
  if (action === "install" && (state === "installed_private" || state === "approved")) return "Already installed.";
  if (action === "validate" && (state === "installed_private" || state === "approved")) return "Already installed; revise it to validate a new draft.";
  if (action === "reject" && state === "draft") return "Revise it or validate it first: a draft is not ready for review.";
  if ((action === "install" || action === "approve") && state === "draft")
    return "Validate it first (revise it if validation fails): a draft is not ready for review.";
  if (action === "request_more_tests" && (state === "installed_private" || state === "approved"))
    return "Already installed: to test a new version, improve it from Skills (Improving Existing Skill).";
  return "Not possible in this state.";
}

/** What each decision of the review drawer offers for a proposal in this state, on this agent. */
export function proposalActions(
  state: SkillBundleProposalState,
  features: { has(feature: AgentFeature): boolean },
): Record<ProposalAction, ActionAvailability> {
  const result = {} as Record<ProposalAction, ActionAvailability>;
  for (const action of Object.keys(ALLOWED) as ProposalAction[]) {
    const feature = NEEDS[action];
    if (feature !== undefined && !features.has(feature)) result[action] = { enabled: false, reason: MISSING[action] };
    else if (!ALLOWED[action].includes(state)) result[action] = { enabled: false, reason: stateReason(action, state) };
    else result[action] = { enabled: true };
  }
  return result;
}
