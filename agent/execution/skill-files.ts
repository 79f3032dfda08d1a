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

/** A sign-in checkpoint's plan (compiler/sign-in.ts); one that does not read as one is ignored, not the whole file. */
const StoredSignInSchema = z
  .object({
    step_ids: z.array(z.string().min(1).max(80)).max(50),
    username_parameter: z.string().max(80).optional(),
    password_parameter: z.string().min(1).max(80),
    signed_in_controls: z.array(z.string().max(200)).max(10),
    signed_in_url: z.string().max(2048).optional(),
  })
  .optional()
  .catch(undefined);

export const StoredCheckpointsSchema = z.array(
  z
    .object({
      checkpoint_id: z.string().min(1).max(80),
      goal: z.string().max(1000),
      success_condition: z.string().max(1000),
      step_ids: z.array(z.string()),
      verification: z.object({ by: z.enum(["page", "person"]), reason: z.string().optional(), from_answer: z.boolean().optional() }).passthrough().optional(),
      sign_in: StoredSignInSchema,
    })
    .passthrough(),
);
