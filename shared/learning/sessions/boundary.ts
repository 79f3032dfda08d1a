import { z } from "zod";

/**
 * §0C.22 A user or system marker on the session timeline; mark-goal and mark-step are recorded as
 * boundaries with `kind` `mark_goal` / `mark_step` (R11.2-08, -09).
 */
export const WorkflowBoundarySchema = z.object({
  boundary_id: z.string().uuid(),
  learn_session_id: z.string().uuid(),
  kind: z.enum(["start", "pause", "resume", "stop", "cancel", "trim_start", "trim_end", "mark_goal", "mark_step"]),
  source: z.enum(["user_click", "hotkey", "system_inferred", "api_call"]),
  label: z.string().max(400).optional(),
  source_event_id: z.string().uuid().optional(),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.22 */
export type WorkflowBoundary = z.infer<typeof WorkflowBoundarySchema>;
