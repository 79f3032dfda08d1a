import { z } from "zod";
import type { InstallLane } from "../../skills/proposal";
import type { LearnSessionState } from "./learn-session";

/** §0C.6 The only states the Pending Abilities tab shows; internal states stay internal. */
export const PendingAbilityUiStateSchema = z.enum([
  "capturing",
  "awaiting_input",
  "drafting",
  "testing",
  "ready_for_review",
  "private_active",
  "revision_required",
]);
/** §0C.6 */
export type PendingAbilityUiState = z.infer<typeof PendingAbilityUiStateSchema>;

/**
 * §0C.6 Transcribed branch for branch, order included: the learn state wins over the lane except
 * for the private-install check, and every state not named (idle, armed, stopped, reviewing,
 * installing_private, approved, rejected, cancelled, quarantined) falls through to
 * `revision_required`, as the spec writes it.
 */
export const mapInternalStateToPendingAbilityUiState = (learnState: LearnSessionState, installLane: InstallLane | null): PendingAbilityUiState => {
  if (learnState === "capturing" || learnState === "paused") return "capturing";
  if (learnState === "awaiting_questions") return "awaiting_input";
  if (learnState === "drafting_proposal") return "drafting";
  if (learnState === "testing_proposal") return "testing";
  if (learnState === "ready_for_review") return "ready_for_review";
  if (installLane === "experimental_private" || learnState === "installed_private") return "private_active";
  return "revision_required";
};
