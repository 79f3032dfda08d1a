import { isLearnSessionInProgress, LearnSessionStateSchema, type LearnSessionState } from "../../../shared/learning/sessions/learn-session";
import { validateTransition } from "../../../shared/learning/sessions/state-machine";

/** The controls of the active session view (issue #7). */
export type SessionControl = "start" | "pause" | "resume" | "stop" | "cancel" | "mark_step" | "mark_goal" | "generate_proposal";

/** States in which marks are accepted: the agent starts the capture from `armed` on a mark. */
const MARKABLE: ReadonlySet<LearnSessionState> = new Set(["armed", "capturing", "paused"]);
/** States in which trims and exclusions still shape the proposal (the agent's TRIMMABLE set). */
const SHAPEABLE: ReadonlySet<LearnSessionState> = new Set(["capturing", "paused", "stopped", "reviewing", "awaiting_questions"]);
/** States in which events may still arrive, so the timeline keeps polling. */
export const CAPTURE_STATES: ReadonlySet<LearnSessionState> = new Set(["armed", "capturing", "paused"]);
/**
 * Sessions shown under Active Capability Learning: in flight — set up, capturing, being clarified,
 * drafted, tested or reviewed (§0B.8). Installed, approved and finished ones are elsewhere.
 */
export const IN_FLIGHT_STATES: ReadonlySet<LearnSessionState> = new Set(LearnSessionStateSchema.options.filter(isLearnSessionInProgress));
/** States with a proposal worth opening in the review drawer. */
const REVIEWABLE: ReadonlySet<LearnSessionState> = new Set([
  "drafting_proposal",
  "testing_proposal",
  "ready_for_review",
  "installing_private",
  "installed_private",
  "approved",
  "rejected",
  "quarantined",
]);

/**
 * Which controls a session in this state offers: exactly the moves the agent's state machine
 * (shared/learning/sessions/state-machine, §0C.1A) would accept, so no button answers "invalid transition".
 */
export function availableControls(state: LearnSessionState): ReadonlySet<SessionControl> {
  const controls = new Set<SessionControl>();
  if (state === "idle") controls.add("start");
  if (state === "capturing") controls.add("pause");
  if (state === "paused") controls.add("resume");
  if (state === "capturing" || state === "paused") controls.add("stop");
  if (validateTransition(state, "cancelled")) controls.add("cancel");
  if (MARKABLE.has(state)) {
    controls.add("mark_step");
    controls.add("mark_goal");
  }
  if (state === "stopped" || state === "reviewing") controls.add("generate_proposal");
  return controls;
}

export function canShapeCapture(state: LearnSessionState): boolean {
  return SHAPEABLE.has(state);
}

export function canReviewProposal(state: LearnSessionState, proposalId: string | undefined): boolean {
  return proposalId !== undefined && REVIEWABLE.has(state);
}
