import { z } from "zod";
import { DAY_MS, HOUR_MS } from "../common/durations";
import { LearnPartialDeploymentStateSchema } from "./partial-deployment";
import { SkillImportRetryKindSchema, SkillImportStateSchema } from "./import-state";

/*
 * §0C.20 Skill import, staging, trigger testing and packs. Import states live in ./import-state
 * (one definition per identifier); everything else §0C.20 defines is here.
 */

/** §0C.20 Where an imported bundle came from; the spec repeats this enum in three schemas. */
export const SkillImportSourceSchema = z.enum(["manual_upload", "anthropic_bundle", "openclaw_bundle", "elnor_generated"]);
/** §0C.20 */
export type SkillImportSource = z.infer<typeof SkillImportSourceSchema>;

/** §0C.20 multipart contract: MIME types a browser upload may declare. */
export const SKILL_IMPORT_ACCEPTED_MIME_TYPES = [
  "application/zip",
  "application/x-zip-compressed",
  // Browsers send this for unknown types; accepted only with an accepted extension (§0C.20 item 4).
  "application/octet-stream",
] as const;

/** §0C.20 multipart contract: accepted filename endings. */
export const SKILL_IMPORT_ACCEPTED_EXTENSIONS = [".zip", ".skillbundle.zip"] as const;

/** §0C.20 "Maximum upload size is 100 MB"; read as MiB, the larger of the two readings. */
export const SKILL_IMPORT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** §0C.20 rule 7: an unstaged temp artifact expires after 24 hours. */
export const SKILL_IMPORT_TEMP_ARTIFACT_TTL_MS = DAY_MS;

/** §0C.20: under this much time left, the UI shows `upload_expiring_soon`. */
export const SKILL_IMPORT_EXPIRING_SOON_MS = 2 * HOUR_MS;

/** §0C.20: after this many failed retries of one kind, surface `retry_limit_reached`. */
export const SKILL_IMPORT_RETRY_WARNING_AFTER = 3;

/** §0C.20 The durable record of one import. */
export const ImportedSkillRecordSchema = z.object({
  import_id: z.string().uuid(),
  source: SkillImportSourceSchema,
  skill_name: z.string().max(80),
  source_ref_kind: z.enum(["temp_artifact", "materialized_bundle", "generated_bundle", "legacy_path"]).default("temp_artifact"),
  source_ref: z.string().max(240),
  original_filename: z.string().max(240).optional(),
  compatibility_report_ref: z.string().max(240).optional(),
  stage_state: SkillImportStateSchema,
  retry_count: z.number().int().min(0).default(0),
  last_error_code: z.string().max(120).optional(),
  skill_pack: z.string().max(64).optional(),
  requires_adapter: z.boolean().default(false),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type ImportedSkillRecord = z.infer<typeof ImportedSkillRecordSchema>;

/** §0C.20 One finding of the compatibility scan. */
export const SkillCompatibilityFindingSchema = z.object({
  code: z.string().max(120),
  severity: z.enum(["info", "warning", "error"]),
  message: z.string().max(1000),
  path_hint: z.string().max(240).optional(),
});
/** §0C.20 */
export type SkillCompatibilityFinding = z.infer<typeof SkillCompatibilityFindingSchema>;

/** §0C.20 Result of scanning a bundle. */
export const SkillCompatibilityReportSchema = z.object({
  compatible: z.boolean(),
  requires_adapter: z.boolean().default(false),
  rule_version: z.string().max(80),
  suggested_pack_id: z.string().max(64).optional(),
  findings: z.array(SkillCompatibilityFindingSchema).default([]),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillCompatibilityReport = z.infer<typeof SkillCompatibilityReportSchema>;

/** §0C.20 The `metadata` part of `POST /api/skills/import/uploads`. */
export const SkillImportUploadMetadataSchema = z
  .object({
    source: SkillImportSourceSchema.default("manual_upload"),
    requested_pack_id: z.string().max(64).optional(),
    notes: z.string().max(1000).optional(),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.20 */
export type SkillImportUploadMetadata = z.infer<typeof SkillImportUploadMetadataSchema>;

/** §0C.20 Handle for an uploaded bundle; the canonical import handle instead of a desktop path. */
export const TempArtifactRefSchema = z.object({
  temp_artifact_ref: z.string().max(240),
  artifact_kind: z.enum(["skill_bundle_zip", "skill_bundle_dir", "generated_bundle"]),
  original_filename: z.string().max(240).optional(),
  content_hash_sha256: z.string().regex(/^[a-f0-9]{64}$/),
  byte_size: z.number().int().min(1),
  created_at: z.string().datetime(),
  expires_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type TempArtifactRef = z.infer<typeof TempArtifactRefSchema>;

/** §0C.20 Response of `POST /api/skills/import/uploads`. */
export const SkillImportUploadResponseSchema = z.object({
  temp_artifact: TempArtifactRefSchema,
  accepted: z.boolean(),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillImportUploadResponse = z.infer<typeof SkillImportUploadResponseSchema>;

/** §0C.20 Response of `DELETE /api/skills/import/uploads/:tempArtifactRef`. */
export const SkillImportDeleteUploadResponseSchema = z.object({
  deleted: z.boolean(),
  temp_artifact_ref: z.string().max(240),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillImportDeleteUploadResponse = z.infer<typeof SkillImportDeleteUploadResponseSchema>;

/**
 * §0C.20 Body of `POST /api/skills/import/scan`. `staged_upload_ref` is the deprecated alias the
 * agent normalizes to `temp_artifact_ref`, so both stay optional here.
 */
export const SkillImportScanRequestSchema = z
  .object({
    source: SkillImportSourceSchema,
    temp_artifact_ref: z.string().max(240).optional(),
    staged_upload_ref: z.string().max(240).optional(),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.20 */
export type SkillImportScanRequest = z.infer<typeof SkillImportScanRequestSchema>;

/** §0C.20 Response of `POST /api/skills/import/scan`. */
export const SkillImportScanResponseSchema = z.object({
  import_record: ImportedSkillRecordSchema,
  compatibility_report: SkillCompatibilityReportSchema,
  receipt_id: z.string().uuid().optional(),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillImportScanResponse = z.infer<typeof SkillImportScanResponseSchema>;

/** §0C.20 Body of `POST /api/skills/import/stage`. */
export const SkillImportStageRequestSchema = z
  .object({
    import_id: z.string().uuid(),
    requested_pack_id: z.string().max(64).optional(),
    stage_notes: z.string().max(1000).optional(),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.20 */
export type SkillImportStageRequest = z.infer<typeof SkillImportStageRequestSchema>;

/** §0C.20 Response of `POST /api/skills/import/stage`. */
export const SkillImportStageResponseSchema = z.object({
  import_record: ImportedSkillRecordSchema,
  materialized_bundle_ref: z.string().max(240).optional(),
  receipt_id: z.string().uuid().optional(),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillImportStageResponse = z.infer<typeof SkillImportStageResponseSchema>;

/** §0C.20 Body of `POST /api/skills/import/approve`. */
export const SkillImportApproveRequestSchema = z
  .object({
    import_id: z.string().uuid(),
    approval_note: z.string().max(1000).optional(),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.20 */
export type SkillImportApproveRequest = z.infer<typeof SkillImportApproveRequestSchema>;

/** §0C.20 Body of `POST /api/skills/import/reject`; a rejection must say why. */
export const SkillImportRejectRequestSchema = z
  .object({
    import_id: z.string().uuid(),
    reason: z.string().min(1).max(1000),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.20 */
export type SkillImportRejectRequest = z.infer<typeof SkillImportRejectRequestSchema>;

/** §0C.20 Body of `POST /api/skills/import/install-private`. */
export const SkillImportInstallPrivateRequestSchema = z
  .object({
    import_id: z.string().uuid(),
    target_scope: z.enum(["private", "workspace"]).default("private"),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.20 */
export type SkillImportInstallPrivateRequest = z.infer<typeof SkillImportInstallPrivateRequestSchema>;

/** §0C.20 Body of `POST /api/skills/import/discard`. */
export const SkillImportDiscardRequestSchema = z
  .object({
    import_id: z.string().uuid(),
    reason: z.string().max(1000).optional(),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.20 */
export type SkillImportDiscardRequest = z.infer<typeof SkillImportDiscardRequestSchema>;

/** §0C.20 Body of `POST /api/skills/import/retry`; `retry_kind` picks the failed state to leave. */
export const SkillImportRetryRequestSchema = z
  .object({
    import_id: z.string().uuid(),
    retry_kind: SkillImportRetryKindSchema,
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.20 */
export type SkillImportRetryRequest = z.infer<typeof SkillImportRetryRequestSchema>;

/** §0C.20 Response of approve, reject, install-private, discard and retry. */
export const SkillImportTerminalActionResponseSchema = z.object({
  import_record: ImportedSkillRecordSchema,
  receipt_id: z.string().uuid().optional(),
  saga_id: z.string().uuid().optional(),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillImportTerminalActionResponse = z.infer<typeof SkillImportTerminalActionResponseSchema>;

/** §0C.20 Response of `GET /api/skills/import/:importId`. */
export const SkillImportDetailResponseSchema = z.object({
  import_record: ImportedSkillRecordSchema,
  compatibility_report: SkillCompatibilityReportSchema.optional(),
  partial_deployment: LearnPartialDeploymentStateSchema.optional(),
  proposal_id: z.string().uuid().optional(),
  warnings: z.array(z.string().max(240)).default([]),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillImportDetailResponse = z.infer<typeof SkillImportDetailResponseSchema>;

/** §0C.20 Response of `GET /api/skills/import/list`. */
export const SkillImportListResponseSchema = z.object({
  items: z.array(ImportedSkillRecordSchema).default([]),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(100),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillImportListResponse = z.infer<typeof SkillImportListResponseSchema>;

/** §0C.20 Body of `POST /api/skills/trigger-test`: a phrase tried against one import or ability. */
export const SkillTriggerTestRequestSchema = z
  .object({
    import_id: z.string().uuid().optional(),
    ability_id: z.string().max(160).optional(),
    trigger_text: z.string().min(1).max(2000),
    project_id: z.string().max(160).optional(),
    context_excerpt: z.string().max(4000).optional(),
    schema_version: z.literal(1),
  })
  .strict()
  .refine((value) => Boolean(value.import_id || value.ability_id), "Either import_id or ability_id is required");
/** §0C.20 */
export type SkillTriggerTestRequest = z.infer<typeof SkillTriggerTestRequestSchema>;

/** §0C.20 Response of `POST /api/skills/trigger-test`. */
export const SkillTriggerTestResponseSchema = z.object({
  matched: z.boolean(),
  candidate_ability_id: z.string().max(160).optional(),
  candidate_import_id: z.string().uuid().optional(),
  score: z.number().min(0).max(1).optional(),
  reasons: z.array(z.string().max(240)).default([]),
  rejection_reasons: z.array(z.string().max(240)).default([]),
  receipt_id: z.string().uuid().optional(),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillTriggerTestResponse = z.infer<typeof SkillTriggerTestResponseSchema>;

/** §0C.20 One skill pack. */
export const SkillPackMetadataSchema = z.object({
  pack_id: z.string().max(64),
  title: z.string().max(120),
  description: z.string().max(500).optional(),
  compatibility_target: z.string().max(120).optional(),
  active_build_surface: z.boolean().default(true),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillPackMetadata = z.infer<typeof SkillPackMetadataSchema>;

/** §0C.20 Response of `GET /api/skills/packs`. */
export const SkillPacksListResponseSchema = z.object({
  packs: z.array(SkillPackMetadataSchema).default([]),
  schema_version: z.literal(1),
});
/** §0C.20 */
export type SkillPacksListResponse = z.infer<typeof SkillPacksListResponseSchema>;

/** §0C.28 Deprecated alias; new code uses `SkillPacksListResponseSchema`. */
export const SkillPackListResponseSchema = SkillPacksListResponseSchema;
