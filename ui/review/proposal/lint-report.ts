import { z } from "zod";

/**
 * `checkpoint_lint_report` is `unknown` in ProposalDetailResponseSchema (§0C.16A gives it no
 * shape). This is the shape the agent's checkpoint lint writes (DESIGN §2 CKP-001..005), read
 * leniently: a report in any other shape means "lint not available", never a crash.
 */
export const CheckpointLintReportViewSchema = z.object({
  passed: z.boolean(),
  findings: z
    .array(
      z.object({
        rule: z.string().max(20),
        checkpoint_id: z.string().max(80),
        field: z.string().max(40),
        message: z.string().max(400),
      }),
    )
    .max(200),
  checked: z.number().int().min(0),
});
export type CheckpointLintReportView = z.infer<typeof CheckpointLintReportViewSchema>;

export function readLintReport(report: unknown): CheckpointLintReportView | undefined {
  const parsed = CheckpointLintReportViewSchema.safeParse(report);
  return parsed.success ? parsed.data : undefined;
}
