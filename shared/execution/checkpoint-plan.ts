import { z } from "zod";
import { WorkflowCheckpointSchema } from "../learning/checkpoints/semantic-workflow-interpretation";
import { SignInPlanSchema } from "./sign-in-plan";

/** What a skill input is, as the compiler guessed it from what was typed (DESIGN §6.2). */
export const SkillInputTypeSchema = z.enum(["text", "long_text", "email", "phone", "number", "date", "url", "secret", "file"]);
export type SkillInputType = z.infer<typeof SkillInputTypeSchema>;

/** A value the skill asks for at run time instead of repeating what was typed (DESIGN §6.2). */
export const SkillParameterSchema = z.object({
  name: z.string(),
  label: z.string(),
  type_hint: SkillInputTypeSchema,
  /** Steps that use it: a hashed value typed twice is one parameter. */
  step_ids: z.array(z.string()),
  /** Why it is shaped as it is (numbered entries of one field, issue #14). */
  note: z.string().optional(),
});
export type SkillParameter = z.infer<typeof SkillParameterSchema>;

/**
 * A checkpoint with what the skill body says about it, as the compiler plans it and the executor
 * checks it (its stored form: `StoredCheckpointsSchema`, stored-skill-files.ts).
 */
export const CheckpointPlanSchema = WorkflowCheckpointSchema.extend({
  /** Where it happens (page title), for the guidance. */
  where: z.string().optional(),
  /** Controls involved, by accessible name: what a runtime agent looks for on a changed page. */
  controls: z.array(z.object({ name: z.string(), role: z.string(), parameter: z.string().optional(), choice: z.string().optional() })),
  step_ids: z.array(z.string()),
  observable: z.boolean(),
  /**
   * Issue #14: who confirms it — the page (a check the rehearsal runs), or a person, and why
   * (nothing observable changed, or the user's answer names nothing on the page).
   */
  verification: z.object({ by: z.enum(["page", "person"]), reason: z.string().optional(), from_answer: z.boolean().optional() }).optional(),
  /** Issue #35: this checkpoint is a sign-in, whose steps a run skips when the browser is already signed in. */
  sign_in: SignInPlanSchema.optional(),
});
export type CheckpointPlan = z.infer<typeof CheckpointPlanSchema>;
