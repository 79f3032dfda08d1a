import { z } from "zod";
import { SkillInputTypeSchema } from "./checkpoint-plan";
import { RecorderFlowSchema, RecorderStepSchema } from "./recorder-flow";
import { SignInPlanSchema } from "./sign-in-plan";

/**
 * What a skill's stored files hold, as read back before a run or a practice: the Recorder flow
 * (`flow.recorder.json`), its checkpoints (`checkpoints.json`, the compiler's CheckpointPlan) and
 * its inputs (`parameters.json`). Unknown fields pass through, so a file written by a newer
 * compiler, or one a repair writes back, keeps everything it had.
 */

/** A stored step: one the executor knows, with every other field it had kept. */
const StoredStepSchema = z.intersection(RecorderStepSchema, z.looseObject({}));

export const StoredFlowSchema = RecorderFlowSchema.extend({
  title: z.string().max(500).default(""),
  steps: z.array(StoredStepSchema).min(1),
});

export const StoredCheckpointsSchema = z.array(
  z.looseObject({
    checkpoint_id: z.string().min(1).max(80),
    goal: z.string().max(1000),
    success_condition: z.string().max(1000),
    step_ids: z.array(z.string()),
    verification: z.looseObject({ by: z.enum(["page", "person"]), reason: z.string().optional(), from_answer: z.boolean().optional() }).optional(),
    /** A sign-in plan that does not read as one is ignored, not the whole file. */
    sign_in: SignInPlanSchema.optional().catch(undefined),
  }),
);

/** `parameters.json`: a type the reader does not know reads as text. */
export const StoredParametersSchema = z.array(
  z.looseObject({
    name: z.string().min(1).max(80),
    label: z.string().max(500).default(""),
    type_hint: SkillInputTypeSchema.catch("text"),
  }),
);

/** A stored skill file's text read with its schema; undefined when it is missing, not JSON, or not that shape. */
export function parseStoredJson<S extends z.ZodType>(text: string | undefined, schema: S): z.infer<S> | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
