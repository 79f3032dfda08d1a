import { z } from "zod";

/**
 * What a skill's stored files hold, as read back before a run or a practice: the Recorder flow
 * (`flow.recorder.json`, compiler/emit-recorder-flow.ts) and its checkpoints (`checkpoints.json`,
 * the compiler's CheckpointPlan). Unknown fields pass through, so a file written by a newer
 * compiler, or one a repair writes back, keeps everything it had.
 */
export const StoredFlowSchema = z.object({
  title: z.string().max(500).default(""),
  steps: z.array(z.object({ type: z.string() }).passthrough()).min(1),
  step_ids: z.array(z.string().nullable()),
});

export const StoredCheckpointsSchema = z.array(
  z
    .object({
      checkpoint_id: z.string().min(1).max(80),
      goal: z.string().max(1000),
      success_condition: z.string().max(1000),
      step_ids: z.array(z.string()),
      verification: z.object({ by: z.enum(["page", "person"]), reason: z.string().optional(), from_answer: z.boolean().optional() }).passthrough().optional(),
    })
    .passthrough(),
);
