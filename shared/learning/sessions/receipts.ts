import { z } from "zod";
import { LearningLifecycleEventSchema } from "./lifecycle-event";

/**
 * §0C.12, §0C.13, §0C.16D, §0C.28 What a learning receipt records.
 *
 * R11.2 lists the lifecycle changes that need a receipt (§0C.12) but gives no kind names; the only
 * field list is the non-operative Part 3 §0A.26, whose underscore names (`session_started`) clash
 * with the dotted names R11.2 uses for receipts (`learn.session.cancelled`, §0C.16D). So: every
 * §0C.13 lifecycle event is also a receipt kind under the same name, and the §0C.12 changes that
 * have no lifecycle event get a dotted name in the same family:
 * - observation armed → `learn.capture.armed`; clarification answered → `learn.proposal.questions_answered`;
 * - ability activated / deactivated → `ability.activated` / `ability.deactivated`;
 * then the kinds other sections name: `learn.session.cancelled` and `learn.capture.paused` (§0C.16D
 * TTL), `learn.install.failed` (§0C.11B), `migration_backfill` (§0C.28, spelled as the spec does);
 * and the user decisions an audit must show: resume, approve, reject, revision,
 * unquarantine, promote to shared (the routes of §0C.16), plus a failed bridge rebuild (§0C.13 saga).
 */
export const LearningReceiptKindSchema = z.enum([
  ...LearningLifecycleEventSchema.options,
  "learn.session.cancelled",
  "learn.capture.armed",
  "learn.capture.resumed",
  // The text-entry masking mode chosen for a session; for `none` this is the consent record (§0C.22 rule 4).
  "learn.capture.redaction_set",
  "learn.proposal.questions_answered",
  "learn.proposal.revision_requested",
  "learn.proposal.approved",
  "learn.proposal.rejected",
  "learn.install.failed",
  "bridge.rebuild.failed",
  "ability.activated",
  "ability.deactivated",
  "ability.unquarantined",
  "ability.promoted_shared",
  // Issue #30: the person deleted an installed ability; its files and its runs' files are gone.
  "ability.deleted",
  // Issue #6: a dispatch used an installed ability (first checkpoint receipt of that dispatch).
  "ability.used_later",
  "migration_backfill",
]);
/** §0C.12 */
export type LearningReceiptKind = z.infer<typeof LearningReceiptKindSchema>;

/**
 * §0C.12 One line of `system/learning/receipts.jsonl`. Referenced by §0C.16A but not defined in
 * R11.2. `reason` carries the machine reasons the spec names (`"session_timeout"`,
 * `"capture_timeout"`, §0C.16D); `correlation_id` keeps §0A.26's saga correlation, optional because
 * a user action outside a saga has none; `details` holds kind-specific extras (e.g. the migrated
 * view for `migration_backfill`).
 */
export const LearningReceiptSchema = z.object({
  receipt_id: z.string().uuid(),
  receipt_kind: LearningReceiptKindSchema,
  learn_session_id: z.string().uuid().optional(),
  proposal_id: z.string().uuid().optional(),
  ability_id: z.string().max(160).optional(),
  reason: z.string().max(240).optional(),
  correlation_id: z.string().max(200).optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.12 */
export type LearningReceipt = z.infer<typeof LearningReceiptSchema>;
