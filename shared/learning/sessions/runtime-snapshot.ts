import { z } from "zod";
import { InstallLaneSchema } from "../../skills/proposal";
import { LearningEntryModeSchema, ObservationModeSchema, LearnSessionStateSchema, BuildPolicySchema } from "./learn-session";

/**
 * §0C.7 The answer source for "what is being learned, what is observed, and is the result usable
 * now". Stored at `system/learning/runtime/current.json`, overwritten on every session change
 * (§0C.16D). `install_lane` uses the shared lane enum instead of the spec's inline copy so that
 * the five values are defined once.
 */
export const LearningRuntimeSnapshotSchema = z.object({
  learn_session_id: z.string().uuid(),
  entry_mode: LearningEntryModeSchema,
  observation_mode: ObservationModeSchema,
  build_policy: BuildPolicySchema,
  state: LearnSessionStateSchema,
  observed_data_classes: z.array(z.string().max(80)).default([]),
  active_boundary_ref: z.string().max(240).optional(),
  interpretation_id: z.string().uuid().optional(),
  proposal_id: z.string().uuid().optional(),
  validation_run_id: z.string().uuid().optional(),
  install_lane: InstallLaneSchema.optional(),
  ability_id: z.string().max(160).optional(),
  ability_usable_now: z.boolean().optional(),
  reason_unusable: z.string().max(240).optional(),
  latest_receipt_ids: z.array(z.string().uuid()).default([]),
  snapshot_as_of: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.7 */
export type LearningRuntimeSnapshot = z.infer<typeof LearningRuntimeSnapshotSchema>;
