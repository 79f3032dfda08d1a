import type { LearnSession, LearnSessionState } from "../../shared/learning/sessions/learn-session";
import {
  mapInternalStateToPendingAbilityUiState,
  PendingAbilityUiStateSchema,
  type PendingAbilityUiState,
} from "../../shared/learning/sessions/pending-ability-ui-state";
import type { SkillBundleProposal } from "../../shared/skills/proposal";
import { ENTRY_MODE_LABEL, PENDING_UI_STATE_LABEL } from "../common/learn-labels";

/**
 * Sessions that are not Pending Abilities: not started yet (they live under Active Capability
 * Learning until something is captured), finished without a result, or accepted — accepted
 * abilities belong in Skills (§0B.7, §0B.8).
 */
const NOT_PENDING: ReadonlySet<LearnSessionState> = new Set(["idle", "armed", "rejected", "cancelled", "approved"]);

export interface PendingItem {
  session: LearnSession;
  proposal: SkillBundleProposal | undefined;
  uiState: PendingAbilityUiState;
  title: string;
}

export interface PendingGroup {
  uiState: PendingAbilityUiState;
  label: string;
  items: PendingItem[];
}

export function isPendingSession(state: LearnSessionState): boolean {
  return !NOT_PENDING.has(state);
}

/**
 * §0C.6: every pending session in the group the spec's mapping gives it (with its proposal's
 * install lane), groups in the spec's order, empty groups left out, newest first inside a group.
 */
export function groupPendingAbilities(sessions: readonly LearnSession[], proposals: readonly SkillBundleProposal[]): PendingGroup[] {
  const byId = new Map(proposals.map((proposal) => [proposal.proposal_id, proposal]));
  const items: PendingItem[] = sessions
    .filter((session) => isPendingSession(session.state))
    .map((session) => {
      const proposal = session.proposal_id === undefined ? undefined : byId.get(session.proposal_id);
      return {
        session,
        proposal,
        uiState: mapInternalStateToPendingAbilityUiState(session.state, proposal?.install_lane ?? null),
        title: proposal?.title ?? `${ENTRY_MODE_LABEL[session.entry_mode]} session`,
      };
    })
    .sort((a, b) => (a.session.created_at < b.session.created_at ? 1 : a.session.created_at > b.session.created_at ? -1 : 0));
  return PendingAbilityUiStateSchema.options
    .map((uiState) => ({ uiState, label: PENDING_UI_STATE_LABEL[uiState], items: items.filter((item) => item.uiState === uiState) }))
    .filter((group) => group.items.length > 0);
}
