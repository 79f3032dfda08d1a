import { z } from "zod";

/** §0C.14 Rehearsal instead of a full sandbox: each session or proposal declares how it may be tried. */
export const TestPolicyModeSchema = z.enum([
  "read_only",
  "dry_run_only",
  "blank_artifact",
  "copy_artifact",
  "safe_target_only",
  "redirect_send",
  "live_read_safe_write",
  "controlled_live_test",
]);
/** §0C.14 */
export type TestPolicyMode = z.infer<typeof TestPolicyModeSchema>;

/** §0C.14 */
export const RehearsalSafeTargetSchema = z.object({
  target_kind: z.enum([
    "temp_folder",
    "blank_document",
    "copied_document",
    "blank_project",
    "safe_email_recipient",
    "managed_browser_profile",
    "test_sharepoint_site",
  ]),
  ref: z.string().max(240),
});
/** §0C.14 */
export type RehearsalSafeTarget = z.infer<typeof RehearsalSafeTargetSchema>;

/** §0C.14 Defaults are the safe side: no destructive writes, no external send, 40 actions. */
export const TestPolicySchema = z.object({
  policy_id: z.string().uuid(),
  mode: TestPolicyModeSchema,
  safe_targets: z.array(RehearsalSafeTargetSchema).default([]),
  forbid_destructive_writes: z.boolean().default(true),
  forbid_external_send: z.boolean().default(true),
  allowed_domains: z.array(z.string().max(120)).default([]),
  max_actions: z.number().int().min(1).max(200).default(40),
  cleanup_required: z.boolean().default(false),
  schema_version: z.literal(1),
});
/** §0C.14 */
export type TestPolicy = z.infer<typeof TestPolicySchema>;
