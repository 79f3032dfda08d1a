import {
  SkillImportDeleteUploadResponseSchema,
  SkillImportListResponseSchema,
  SkillImportScanResponseSchema,
  SkillImportStageResponseSchema,
  SkillImportTerminalActionResponseSchema,
  SkillImportUploadResponseSchema,
  SkillPacksListResponseSchema,
  SkillTriggerTestRequestSchema,
  SkillTriggerTestResponseSchema,
  type SkillImportRetryRequest,
} from "../../../shared/skills/import";
import { SkillImportDetailViewSchema } from "../../../shared/skills/import-bundle";
import { pageQuery, requestBody, SLOW, VERY_SLOW, type AgentTransport, type Input } from "../transport/agent-transport";

/** Import Skill (§0C.20): upload, scan, stage, decide, and the packs it can come from. */
export function skillImportRoutes({ call, send, answerOf }: AgentTransport) {
  const terminal = (path: string, body: unknown, timeout?: number) =>
    call("POST", `/api/skills/import/${path}`, SkillImportTerminalActionResponseSchema, body, timeout);
  return {
    /**
     * Uploads a bundle (a .zip, or one SKILL.md) as multipart/form-data (§0C.20 multipart contract),
     * its MIME type named from its extension, since browsers name zips differently.
     */
    async uploadSkillBundle(file: Blob, filename: string, clientRequestId?: string) {
      const form = new FormData();
      form.append(
        "metadata",
        JSON.stringify({ source: "manual_upload", ...(clientRequestId === undefined ? {} : { client_request_id: clientRequestId }), schema_version: 1 }),
      );
      const type = /\.zip$/i.test(filename) ? "application/zip" : /\.md$/i.test(filename) ? "text/markdown" : file.type;
      form.append("bundle", new Blob([file], { type }), filename);
      const response = await send("POST", "/api/skills/import/uploads", { form, signal: AbortSignal.timeout(VERY_SLOW) });
      return answerOf(response, SkillImportUploadResponseSchema);
    },
    deleteSkillUpload: (ref: string) => call("DELETE", `/api/skills/import/uploads/${encodeURIComponent(ref)}`, SkillImportDeleteUploadResponseSchema),
    scanSkillImport: (tempArtifactRef: string) =>
      call(
        "POST",
        "/api/skills/import/scan",
        SkillImportScanResponseSchema,
        { source: "manual_upload", temp_artifact_ref: tempArtifactRef, schema_version: 1 },
        SLOW,
      ),
    stageSkillImport: (importId: string) =>
      call("POST", "/api/skills/import/stage", SkillImportStageResponseSchema, { import_id: importId, schema_version: 1 }, SLOW),
    skillImportDetail: (importId: string) => call("GET", `/api/skills/import/${encodeURIComponent(importId)}`, SkillImportDetailViewSchema),
    listSkillImports: (pageNumber = 1, pageSize = 50) =>
      call("GET", `/api/skills/import/list?${pageQuery(pageNumber, pageSize)}`, SkillImportListResponseSchema),
    triggerTest: (request: Input<typeof SkillTriggerTestRequestSchema>) =>
      call("POST", "/api/skills/trigger-test", SkillTriggerTestResponseSchema, requestBody(SkillTriggerTestRequestSchema, request)),
    installSkillImport: (importId: string) => terminal("install-private", { import_id: importId, target_scope: "private", schema_version: 1 }, SLOW),
    approveSkillImport: (importId: string) => terminal("approve", { import_id: importId, schema_version: 1 }, SLOW),
    rejectSkillImport: (importId: string, reason: string) => terminal("reject", { import_id: importId, reason, schema_version: 1 }),
    discardSkillImport: (importId: string) => terminal("discard", { import_id: importId, schema_version: 1 }),
    retrySkillImport: (importId: string, kind: SkillImportRetryRequest["retry_kind"]) =>
      terminal("retry", { import_id: importId, retry_kind: kind, schema_version: 1 }, SLOW),
    skillPacks: () => call("GET", "/api/skills/packs", SkillPacksListResponseSchema),
  };
}
