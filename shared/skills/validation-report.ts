import { z } from "zod";

/**
 * §0A.18 Outcome of validating a proposal; the install saga's materializer takes it as input
 * (§0C.23). `canary_passed` defaults to false because a canary run is optional and an absent
 * result must not read as a pass.
 */
export const SkillValidationReportSchema = z.object({
  proposal_id: z.string().uuid(),
  lint_passed: z.boolean(),
  trigger_tests_passed: z.boolean(),
  dry_run_passed: z.boolean(),
  canary_passed: z.boolean().default(false),
  dependency_check_passed: z.boolean(),
  collision_check_passed: z.boolean(),
  safety_class: z.enum(["low", "medium", "high"]),
  issues: z.array(z.string().max(240)).default([]),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0A.18 */
export type SkillValidationReport = z.infer<typeof SkillValidationReportSchema>;
