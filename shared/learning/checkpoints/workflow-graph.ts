import { z } from "zod";
import { ControlSurfaceSchema } from "../../capabilities/control-surface";

// Two WorkflowGraphSchema blocks exist: the early node/edge sketch of the R1 patch plan (the
// "Shared workflow graph model" section) and §0A.15. §0A.15 is the one §0C.9A Rule 1 cites as the
// IR, so it is the one transcribed here. Per §0C.9A Rule 1 this is an internal review and repair
// artifact only; it never reaches the assistant's context as an execution plan (R11.2-27).

/** §0A.15 The internal step taxonomy; users see plain-language steps. */
export const WorkflowStepTypeSchema = z.enum([
  "action",
  "guard",
  "branch",
  "decision",
  "reasoning",
  "verification",
  "fallback",
  "subworkflow",
  "loop",
  "ask_user",
]);
/** §0A.15 */
export type WorkflowStepType = z.infer<typeof WorkflowStepTypeSchema>;

/** §0A.15 */
export const WorkflowStepSchema = z.object({
  step_id: z.string().max(120),
  step_type: WorkflowStepTypeSchema,
  label: z.string().max(240),
  description: z.string().max(800).optional(),
  preferred_surfaces: z.array(ControlSurfaceSchema).default([]),
  next_step_ids: z.array(z.string().max(120)).default([]),
  verification_rule_ref: z.string().max(240).optional(),
  schema_version: z.literal(1),
});
/** §0A.15 */
export type WorkflowStep = z.infer<typeof WorkflowStepSchema>;

/** §0A.15 Shared workflow IR of skills, proposals and tasks. */
export const WorkflowGraphSchema = z.object({
  workflow_id: z.string().max(120),
  title: z.string().max(200),
  entry_step_id: z.string().max(120),
  steps: z.array(WorkflowStepSchema).min(1),
  schema_version: z.literal(1),
});
/** §0A.15 */
export type WorkflowGraph = z.infer<typeof WorkflowGraphSchema>;
