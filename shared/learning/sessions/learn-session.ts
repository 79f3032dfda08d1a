import { z } from "zod";

/** §0C.1 How the user chose to teach; the five Learn New Ability cards map 1:1 (§0C.3). */
export const LearningEntryModeSchema = z.enum([
  "demonstrating_skill",
  "coaching_agent",
  "autonomous_agent_practice",
  "improving_existing_skill",
  "import_skill",
]);
/** §0C.1 */
export type LearningEntryMode = z.infer<typeof LearningEntryModeSchema>;

/** §0C.1, §0C.5 Observation is a capture option of a session, never a learning mode of its own. */
export const ObservationModeSchema = z.enum(["none", "inside_agent", "outside_agent", "mixed"]);
/** §0C.1 */
export type ObservationMode = z.infer<typeof ObservationModeSchema>;

/** §0C.1 */
export const BuildPolicySchema = z.enum(["ask_before_build", "build_then_review", "private_auto_install"]);
/** §0C.1 */
export type BuildPolicy = z.infer<typeof BuildPolicySchema>;

/** §0C.1 */
export const LearnExecutionModeSchema = z.enum(["strict", "guided", "adaptive"]);
/** §0C.1 */
export type LearnExecutionMode = z.infer<typeof LearnExecutionModeSchema>;

/** §0C.1 Internal states; allowed moves between them live in ./state-machine (§0C.1A). */
export const LearnSessionStateSchema = z.enum([
  "idle",
  "armed",
  "capturing",
  "paused",
  "stopped",
  "reviewing",
  "awaiting_questions",
  "drafting_proposal",
  "testing_proposal",
  "ready_for_review",
  "installing_private",
  "installed_private",
  "approved",
  "rejected",
  "cancelled",
  "quarantined",
]);
/** §0C.1 */
export type LearnSessionState = z.infer<typeof LearnSessionStateSchema>;

/** §0C.1 */
export const LearnTargetKindSchema = z.enum(["new_skill", "existing_skill", "imported_skill"]);
/** §0C.1 */
export type LearnTargetKind = z.infer<typeof LearnTargetKindSchema>;

/** §0C.1 Canonical LearnSession (supersedes Part 3 §0A.2 per §0C.19). */
export const LearnSessionSchema = z.object({
  learn_session_id: z.string().uuid(),
  entry_mode: LearningEntryModeSchema,
  observation_mode: ObservationModeSchema.default("none"),
  build_policy: BuildPolicySchema.default("build_then_review"),
  execution_mode: LearnExecutionModeSchema.default("guided"),
  target_kind: LearnTargetKindSchema.default("new_skill"),
  state: LearnSessionStateSchema,
  actor_mode: z.enum(["user_driven", "agent_driven", "mixed"]).default("mixed"),
  project_id: z.string().max(120).optional(),
  room_id: z.string().max(160).optional(),
  target_skill_id: z.string().max(160).optional(),
  target_app_family: z.string().max(80).optional(),
  target_app_whitelist: z.array(z.string().max(160)).default([]),
  active_trace_ids: z.array(z.string().uuid()).default([]),
  active_observation_batch_ids: z.array(z.string().uuid()).default([]),
  proposal_id: z.string().uuid().optional(),
  interpretation_id: z.string().uuid().optional(),
  validation_run_id: z.string().uuid().optional(),
  ability_id: z.string().max(160).optional(),
  start_boundary_ref: z.string().max(240).optional(),
  stop_boundary_ref: z.string().max(240).optional(),
  test_policy_ref: z.string().max(240).optional(),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.1 */
export type LearnSession = z.infer<typeof LearnSessionSchema>;

/**
 * §0C.1B Only these two end a session for the one-active-session rule. Note that the spec counts
 * `approved` and `installed_private` as non-terminal, so the rule as written keeps them "active".
 */
export const TERMINAL_LEARN_SESSION_STATES = ["rejected", "cancelled"] as const satisfies readonly LearnSessionState[];
/** §0C.1B */
export type TerminalLearnSessionState = (typeof TERMINAL_LEARN_SESSION_STATES)[number];

/** §0C.1B */
export function isTerminalLearnSessionState(state: LearnSessionState): state is TerminalLearnSessionState {
  return (TERMINAL_LEARN_SESSION_STATES as readonly LearnSessionState[]).includes(state);
}

/**
 * States in which a session's learning is over for the user although §0C.1A keeps them
 * non-terminal (an installed or approved ability can still be quarantined later). §0C.1B read
 * literally would let one approved ability block every later session for ever; our decision
 * (DESIGN §2 "holes"): the one-session rule counts a session as in progress only outside these
 * and the terminal states.
 */
export const FINISHED_LEARN_SESSION_STATES = ["installed_private", "approved", "quarantined"] as const satisfies readonly LearnSessionState[];

/** §0C.1B as we apply it: the session that blocks a new one, and that the runtime views describe first. */
export function isLearnSessionInProgress(state: LearnSessionState): boolean {
  return !isTerminalLearnSessionState(state) && !(FINISHED_LEARN_SESSION_STATES as readonly LearnSessionState[]).includes(state);
}
