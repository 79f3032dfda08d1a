import { z } from "zod";

/**
 * §0C.20 States of a skill import. §0C.19's table still says "§0.2B (10 states)", but §0C.20 is
 * later Part 0 text for the same file (`skills/import-state.ts`), its transition graph and
 * `ImportedSkillRecordSchema` use these fifteen states, and its backfill rules retire the §0.2B
 * values (`cancelled` → `discarded`, `needs_adapter` → `scan_complete` + `requires_adapter`,
 * `promoted_shared` no longer valid). So §0C.20 wins; §0.2B values are rejected.
 */
export const SkillImportStateSchema = z.enum([
  "upload_pending",
  "uploaded",
  "scanning",
  "scan_failed",
  "scan_complete",
  "staging",
  "stage_failed",
  "ready_for_review",
  "install_queued",
  "install_failed",
  "installed_private",
  "approved",
  "rejected",
  "discarded",
  "expired",
]);
/** §0C.20 */
export type SkillImportState = z.infer<typeof SkillImportStateSchema>;

/** §0C.20 States an import never leaves. */
export const SkillImportTerminalStateSchema = z.enum(["installed_private", "approved", "rejected", "discarded", "expired"]);
/** §0C.20 */
export type SkillImportTerminalState = z.infer<typeof SkillImportTerminalStateSchema>;

/** §0.2B One recorded move of an import, over the §0C.20 states. */
export const SkillImportTransitionSchema = z.object({
  import_id: z.string().uuid(),
  from_state: SkillImportStateSchema,
  to_state: SkillImportStateSchema,
  actor: z.enum(["system", "user", "reviewer", "repair_engine"]),
  reason: z.string().max(240),
  correlation_id: z.string().max(200),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0.2B */
export type SkillImportTransition = z.infer<typeof SkillImportTransitionSchema>;

/** §0C.20 `retry_kind` of `POST /api/skills/import/retry`: which failed state to leave. */
export const SkillImportRetryKindSchema = z.enum(["scan", "stage", "install"]);
/** §0C.20 */
export type SkillImportRetryKind = z.infer<typeof SkillImportRetryKindSchema>;

/**
 * §0C.20 transition graph, without the retry edges: those are only legal through the retry
 * route, so they live in `SKILL_IMPORT_RETRY_TRANSITIONS` and need the matching `retry_kind`.
 */
export const SKILL_IMPORT_TRANSITIONS: Readonly<Record<SkillImportState, readonly SkillImportState[]>> = {
  upload_pending: ["uploaded"],
  uploaded: ["scanning"],
  scanning: ["scan_complete", "scan_failed", "expired"],
  scan_failed: [],
  scan_complete: ["staging", "discarded"],
  staging: ["ready_for_review", "stage_failed", "discarded"],
  stage_failed: [],
  ready_for_review: ["install_queued", "approved", "rejected", "discarded"],
  install_queued: ["installed_private", "install_failed"],
  install_failed: [],
  installed_private: [],
  approved: [],
  rejected: [],
  discarded: [],
  expired: [],
};

/** §0C.20 The only way out of a failed state is a retry of the matching kind. */
export const SKILL_IMPORT_RETRY_TRANSITIONS: Readonly<Record<SkillImportRetryKind, { from: SkillImportState; to: SkillImportState }>> = {
  scan: { from: "scan_failed", to: "scanning" },
  stage: { from: "stage_failed", to: "staging" },
  install: { from: "install_failed", to: "install_queued" },
};

/** §0C.20 Whether `from → to` is legal; pass `retryKind` when the move comes from the retry route. */
export function canTransitionSkillImport(from: SkillImportState, to: SkillImportState, retryKind?: SkillImportRetryKind): boolean {
  if (retryKind !== undefined) {
    const edge = SKILL_IMPORT_RETRY_TRANSITIONS[retryKind];
    return edge.from === from && edge.to === to;
  }
  return SKILL_IMPORT_TRANSITIONS[from].includes(to);
}
