import { describe, it, expect } from "vitest";
import {
  ImportedSkillRecordSchema,
  SkillImportScanRequestSchema,
  SkillImportListResponseSchema,
  SkillPackListResponseSchema,
  SkillPacksListResponseSchema,
  SkillTriggerTestRequestSchema,
  TempArtifactRefSchema,
} from "./import";

const IMPORT_ID = "3f1c2a8e-9b4d-4e2f-8a1b-2c3d4e5f6a7b";
const NOW = "2026-01-01T00:00:00Z";

describe("ImportedSkillRecordSchema (§0C.20)", () => {
  it("defaults to a temp artifact with no retries and no adapter", () => {
    const record = ImportedSkillRecordSchema.parse({
      import_id: IMPORT_ID,
      source: "manual_upload",
      skill_name: "export-invoices",
      source_ref: "tmp/abc",
      stage_state: "uploaded",
      created_at: NOW,
      updated_at: NOW,
      schema_version: 1,
    });
    expect(record).toMatchObject({ source_ref_kind: "temp_artifact", retry_count: 0, requires_adapter: false });
  });

  it("rejects a legacy stage_state", () => {
    const result = ImportedSkillRecordSchema.safeParse({
      import_id: IMPORT_ID,
      source: "manual_upload",
      skill_name: "x",
      source_ref: "tmp/abc",
      stage_state: "needs_adapter",
      created_at: NOW,
      updated_at: NOW,
      schema_version: 1,
    });
    expect(result.success).toBe(false);
  });
});

describe("request schemas (§0C.20)", () => {
  it("rejects unknown fields on write requests", () => {
    const result = SkillImportScanRequestSchema.safeParse({
      source: "manual_upload",
      temp_artifact_ref: "tmp/abc",
      input_path: "/Users/me/Downloads/skill.zip",
      schema_version: 1,
    });
    expect(result.success).toBe(false);
  });

  it("still accepts the deprecated staged_upload_ref alias", () => {
    const result = SkillImportScanRequestSchema.safeParse({ source: "manual_upload", staged_upload_ref: "tmp/abc", schema_version: 1 });
    expect(result.success).toBe(true);
  });

  it("requires a trigger test to name an import or an ability", () => {
    expect(SkillTriggerTestRequestSchema.safeParse({ trigger_text: "export invoices", schema_version: 1 }).success).toBe(false);
    expect(SkillTriggerTestRequestSchema.safeParse({ trigger_text: "export invoices", ability_id: "a1", schema_version: 1 }).success).toBe(true);
  });

  it("rejects an empty trigger text", () => {
    expect(SkillTriggerTestRequestSchema.safeParse({ trigger_text: "", import_id: IMPORT_ID, schema_version: 1 }).success).toBe(false);
  });
});

describe("response schemas (§0C.20)", () => {
  it("accepts only a lowercase hex sha256 for a temp artifact", () => {
    const artifact = {
      temp_artifact_ref: "tmp/abc",
      artifact_kind: "skill_bundle_zip",
      byte_size: 10,
      created_at: NOW,
      expires_at: NOW,
      schema_version: 1,
    };
    expect(TempArtifactRefSchema.safeParse({ ...artifact, content_hash_sha256: "a".repeat(64) }).success).toBe(true);
    expect(TempArtifactRefSchema.safeParse({ ...artifact, content_hash_sha256: "A".repeat(64) }).success).toBe(false);
    expect(TempArtifactRefSchema.safeParse({ ...artifact, content_hash_sha256: "a".repeat(63) }).success).toBe(false);
  });

  it("caps a list page at 100 items", () => {
    const page = { total: 0, page: 1, schema_version: 1 };
    expect(SkillImportListResponseSchema.safeParse({ ...page, page_size: 100 }).success).toBe(true);
    expect(SkillImportListResponseSchema.safeParse({ ...page, page_size: 101 }).success).toBe(false);
  });

  it("keeps the §0C.28 pack-list alias identical to the canonical schema", () => {
    expect(SkillPackListResponseSchema).toBe(SkillPacksListResponseSchema);
  });
});
