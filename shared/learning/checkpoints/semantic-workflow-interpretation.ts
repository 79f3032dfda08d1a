import { z } from "zod";

/**
 * §0C.9B One semantic checkpoint of a learned skill, in the shape the checkpoint progress view
 * consumes. The spec's generation and lint rules (§0C.9A Rules 2–6) are cut off; our lint codes
 * CKP-001..005 (DESIGN §2) judge `success_condition`, which must describe an observable state,
 * never a selector, coordinate, typed value or click sequence. `checkpoint_id` is a short slug
 * (the §0C.16C example is `"cp-01"`), not a uuid; lengths follow the interpretation's own
 * 240-character condition strings.
 */
export const WorkflowCheckpointSchema = z.object({
  checkpoint_id: z.string().min(1).max(80),
  goal: z.string().min(1).max(240),
  success_condition: z.string().max(240),
  order_hint: z.number().int().min(0).optional(),
  /**
   * Issue #14: who confirms it — `page` (the rehearsal checks `success_condition` in the page) or
   * `person` (nothing observable changed, or the user's answer names nothing on the page), and why.
   */
  verification: z.object({ by: z.enum(["page", "person"]), reason: z.string().max(240).optional(), from_answer: z.boolean().optional() }).optional(),
});
/** §0C.9B */
export type WorkflowCheckpoint = z.infer<typeof WorkflowCheckpointSchema>;

/**
 * §0C.9 "as updated by §0C.9A" (§0C.19): the meaning attached to a workflow. Internal review and
 * repair artifact only, never an execution plan (§0C.9A Rule 1).
 *
 * `checkpoints` is our addition. §0C.9A Rule 1 describes this object as "meaning + checkpoints",
 * §0C.19 says §0C.9A updates this schema, and §0C.9B needs checkpoints from somewhere; the update
 * itself sits in the cut-off rules. It defaults to `[]` so a record written without it still parses.
 */
export const SemanticWorkflowInterpretationSchema = z.object({
  interpretation_id: z.string().uuid(),
  learn_session_id: z.string().uuid(),
  proposal_id: z.string().uuid().optional(),
  title: z.string().max(160),
  goal_summary: z.string().max(600),
  use_conditions: z.array(z.string().max(240)).default([]),
  non_use_conditions: z.array(z.string().max(240)).default([]),
  project_scope: z.enum(["global", "project_scoped", "unclear"]),
  preferred_control_surfaces: z.array(z.string().max(80)).default([]),
  success_conditions: z.array(z.string().max(240)).default([]),
  checkpoints: z.array(WorkflowCheckpointSchema).default([]),
  user_confirmed: z.boolean().default(false),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.9 */
export type SemanticWorkflowInterpretation = z.infer<typeof SemanticWorkflowInterpretationSchema>;
