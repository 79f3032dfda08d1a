import { z } from "zod";
import { PortableSkillFrontmatterSchema } from "./frontmatter";
import { SkillImportDetailResponseSchema, TempArtifactRefSchema } from "./import";

/*
 * What an import scan found in a bundle, in the words the side panel shows (issue #20): what the
 * skill says it does, every file it holds, and what we derived for our own records. §0C.20's
 * detail response stays as the spec has it; this view adds the bundle beside it.
 */

/** One file of an imported bundle, kept byte for byte; scripts are listed and never run. */
export const SkillImportFileSchema = z.object({
  path: z.string().max(240),
  byte_size: z.number().int().min(0),
  sha256: z.string().regex(/^[a-f0-9]{64}$/),
  kind: z.enum(["skill_md", "text", "script", "binary"]),
  /** The archive marks it executable, or it is a script by its first line or its extension. */
  executable: z.boolean(),
});
export type SkillImportFile = z.infer<typeof SkillImportFileSchema>;

/** The bundle as the scan read it, and what our records derive from it. */
export const SkillImportBundleSummarySchema = z.object({
  skill_name: z.string().max(80),
  /** `elnor_export`: a bundle we projected (our §0.2C fields under `metadata`); else any Agent Skills bundle. */
  format: z.enum(["elnor_export", "agent_skills"]),
  /** The bundle's own description, as written (the format allows up to 1,024 characters). */
  description: z.string().max(4000),
  license: z.string().max(500).optional(),
  compatibility: z.string().max(1000).optional(),
  /** §0.2C frontmatter our records use: the bundle's own for ours, derived for others. */
  frontmatter: PortableSkillFrontmatterSchema.optional(),
  /** "When to use" sentences found in the description. */
  when_to_use: z.array(z.string().max(240)).max(20).default([]),
  /** What was derived rather than read, one line each ("triggers from the description", …). */
  derived: z.array(z.string().max(240)).max(20).default([]),
  files: z.array(SkillImportFileSchema).max(2000),
  total_bytes: z.number().int().min(0),
  /** Archive litter and folder entries left out (`__MACOSX/`, `.DS_Store`). */
  skipped: z.array(z.string().max(240)).max(2000).default([]),
  schema_version: z.literal(1),
});
export type SkillImportBundleSummary = z.infer<typeof SkillImportBundleSummarySchema>;

/** Receipts of the import flow, one per step (§0C.20 "receipts at every step"). */
export const SkillImportReceiptKindSchema = z.enum([
  "skill.import.uploaded",
  "skill.import.upload_deleted",
  "skill.import.scanned",
  "skill.import.scan_failed",
  "skill.import.staged",
  "skill.import.stage_failed",
  "skill.import.trigger_tested",
  "skill.import.installed_private",
  "skill.import.approved",
  "skill.import.install_failed",
  "skill.import.rejected",
  "skill.import.discarded",
  "skill.import.retried",
]);
export type SkillImportReceiptKind = z.infer<typeof SkillImportReceiptKindSchema>;

export const SkillImportReceiptSchema = z.object({
  receipt_id: z.string().uuid(),
  receipt_kind: SkillImportReceiptKindSchema,
  import_id: z.string().uuid().optional(),
  temp_artifact_ref: z.string().max(240).optional(),
  ability_id: z.string().max(160).optional(),
  details: z.record(z.string(), z.unknown()).default({}),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
export type SkillImportReceipt = z.infer<typeof SkillImportReceiptSchema>;

/** `GET /api/skills/import/:importId`: §0C.20's detail plus the bundle, the upload it came from and its receipts. */
export const SkillImportDetailViewSchema = SkillImportDetailResponseSchema.extend({
  bundle: SkillImportBundleSummarySchema.optional(),
  temp_artifact: TempArtifactRefSchema.optional(),
  /** The installed ability, once the import is installed privately or approved. */
  ability_id: z.string().max(160).optional(),
  /** Every step's receipt, oldest first. */
  receipts: z.array(SkillImportReceiptSchema).max(500).default([]),
});
export type SkillImportDetailView = z.infer<typeof SkillImportDetailViewSchema>;
