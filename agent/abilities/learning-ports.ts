import type { LearnSession, LearnSessionState } from "../../shared/learning/sessions/learn-session";
import type { LearnStreamEventKind } from "../../shared/learning/sessions/lifecycle-event";
import type { LearningReceiptKind } from "../../shared/learning/sessions/receipts";
import type { ProposalDetailResponse } from "../../shared/learning/route-contracts";
import type { SkillBundleProposal } from "../../shared/skills/proposal";

/**
 * What the abilities need of Learn, by shape: the install saga and the ability routes are handed
 * agent/learning's proposal, session and validation services, which satisfy these, so the
 * abilities layer never imports agent/learning (learning reads installed abilities, not the reverse).
 */

/** The proposals an install reads and records its outcome on (agent/learning ProposalService). */
export interface InstallableProposals {
  detail(proposalId: string): Promise<ProposalDetailResponse>;
  /** The files of the proposal's current draft revision, as text, by file name. */
  draftFiles(proposalId: string): Promise<Record<string, string>>;
  /** Records the install saga's outcome on the proposal (state, lane, ability). */
  recordInstall(
    proposalId: string,
    patch: Pick<SkillBundleProposal, "proposal_state" | "install_lane"> & Partial<Pick<SkillBundleProposal, "ability_id" | "primary_capability_id">>,
  ): Promise<SkillBundleProposal>;
}

/** The sessions an install moves on (agent/learning SessionService). */
export interface InstallingSessions {
  get(sessionId: string): LearnSession;
  /** Moves a session through `path`, applying `changes` and writing one receipt (and stream event) per announcement. */
  advance(
    sessionId: string,
    path: readonly LearnSessionState[],
    changes: Partial<Pick<LearnSession, "proposal_id" | "interpretation_id" | "validation_run_id" | "ability_id">>,
    announcements: ReadonlyArray<{ receipt: LearningReceiptKind; event?: LearnStreamEventKind; payload?: Record<string, unknown> }>,
  ): Promise<LearnSession>;
}

/** Whether a proposal's validation run is going (agent/learning ValidationService): no install meanwhile. */
export interface ValidationActivity {
  inProgress(proposalId: string): boolean;
}
