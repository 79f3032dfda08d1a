import { z } from "zod";

/** §0C.10 One validation pass over a proposal; stored in `system/learning/validation_runs.jsonl`. */
export const ValidationRunSchema = z.object({
  validation_run_id: z.string().uuid(),
  proposal_id: z.string().uuid(),
  run_kind: z.enum(["lint", "trigger", "dry_run", "canary", "adapter_check", "dependency_check", "rehearsal"]),
  started_at: z.string().datetime(),
  completed_at: z.string().datetime().optional(),
  overall_result: z.enum(["passed", "failed", "partial", "cancelled"]),
  result_refs: z.array(z.string().max(240)).default([]),
  schema_version: z.literal(1),
});
/** §0C.10 */
export type ValidationRun = z.infer<typeof ValidationRunSchema>;

/** §0C.10 Stored in `system/learning/validation_step_results.jsonl`. */
export const ValidationStepResultSchema = z.object({
  validation_run_id: z.string().uuid(),
  test_case_id: z.string().max(160),
  label: z.string().max(240),
  result: z.enum(["passed", "failed", "skipped"]),
  details: z.string().max(1000).optional(),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.10 */
export type ValidationStepResult = z.infer<typeof ValidationStepResultSchema>;
