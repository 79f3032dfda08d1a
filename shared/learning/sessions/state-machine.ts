import type { LearnSessionState } from "./learn-session";

/**
 * §0C.1A The only legal moves of a LearnSession. Agent and side panel both read this table, so a
 * button is offered exactly when the agent would accept it; anything absent must be refused with
 * `INVALID_LEARN_STATE_TRANSITION` (§0C.16B).
 */
export const LEARN_SESSION_TRANSITIONS: Readonly<Record<LearnSessionState, readonly LearnSessionState[]>> = Object.freeze({
  idle: ["armed", "cancelled"],
  armed: ["capturing", "cancelled"],
  capturing: ["paused", "stopped", "cancelled"],
  paused: ["capturing", "stopped", "cancelled"],
  stopped: ["reviewing", "cancelled"],
  reviewing: ["awaiting_questions", "drafting_proposal", "cancelled"],
  awaiting_questions: ["reviewing", "drafting_proposal", "cancelled"],
  drafting_proposal: ["testing_proposal", "ready_for_review", "cancelled"],
  testing_proposal: ["ready_for_review", "drafting_proposal", "cancelled", "quarantined"],
  ready_for_review: ["installing_private", "approved", "rejected", "drafting_proposal"],
  installing_private: ["installed_private", "quarantined"],
  installed_private: ["approved", "quarantined"],
  approved: ["quarantined"],
  rejected: [],
  cancelled: [],
  quarantined: ["drafting_proposal", "cancelled"],
});

/** §0C.1A */
export function validateTransition(from: LearnSessionState, to: LearnSessionState): boolean {
  return LEARN_SESSION_TRANSITIONS[from].includes(to);
}
