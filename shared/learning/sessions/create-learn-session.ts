import { z } from "zod";
import {
  LearnSessionSchema,
  LearningEntryModeSchema,
  ObservationModeSchema,
  BuildPolicySchema,
  LearnExecutionModeSchema,
  LearnTargetKindSchema,
} from "./learn-session";
import { PracticeSetupSchema } from "./practice";
import { TestPolicySchema } from "./test-policy";
import { SourceTraceSchema, TraceSeedSummarySchema } from "./trace-seed";

/**
 * §0C.2 Body of `POST /api/learn/sessions`. When `target_app_whitelist` is non-empty and observation
 * is `outside_agent` or `mixed`, events outside the list are ignored (capture-scoping rule).
 */
export const CreateLearnSessionRequestSchema = z.object({
  entry_mode: LearningEntryModeSchema,
  observation_mode: ObservationModeSchema.default("none"),
  build_policy: BuildPolicySchema.default("build_then_review"),
  execution_mode: LearnExecutionModeSchema.default("guided"),
  target_kind: LearnTargetKindSchema.default("new_skill"),
  project_id: z.string().max(120).optional(),
  room_id: z.string().max(160).optional(),
  target_skill_id: z.string().max(160).optional(),
  target_app_family: z.string().max(80).optional(),
  target_app_whitelist: z.array(z.string().max(160)).default([]),
  ask_before_build: z.boolean().default(false),
  allow_private_install: z.boolean().default(false),
  requested_safe_target_ref: z.string().max(240).optional(),
  /** §0C.14 The policy the session's own actions run under (Autonomous Agent Practice; issue #16). */
  test_policy: TestPolicySchema.optional(),
  /** Autonomous Agent Practice only: what to practise and how (issue #16). */
  practice: PracticeSetupSchema.optional(),
  /**
   * §0B.6 Learn From This: the run, session or receipt whose trace the new session starts from (its
   * steps, pages and checkpoints, never a typed value). With `improving_existing_skill`: Improve
   * This Skill from a failed run, so the improvement starts from what the run saw (issue #16).
   */
  source_trace: SourceTraceSchema.optional(),
});
/** §0C.2 */
export type CreateLearnSessionRequest = z.infer<typeof CreateLearnSessionRequestSchema>;

/** §0C.2 */
export const CreateLearnSessionResponseSchema = z.object({
  session: LearnSessionSchema,
  ui_mode: z.enum(["overlay", "drawer", "recent-run", "exploratory", "import"]),
  next_action: z.enum([
    "wait_for_first_meaningful_event",
    "show_recent_run_picker",
    "launch_exploration",
    "show_skill_delta_editor",
    "show_import_configurator",
  ]),
  /** What the session was seeded with, when the request named a `source_trace`. */
  seed: TraceSeedSummarySchema.optional(),
});
/** §0C.2 */
export type CreateLearnSessionResponse = z.infer<typeof CreateLearnSessionResponseSchema>;
