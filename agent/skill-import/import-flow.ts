import { randomUUID } from "node:crypto";
import {
  SKILL_IMPORT_EXPIRING_SOON_MS,
  SKILL_IMPORT_RETRY_WARNING_AFTER,
  type ImportedSkillRecord,
  type SkillImportScanRequest,
  type SkillImportScanResponse,
  type SkillImportStageRequest,
  type SkillImportStageResponse,
} from "../../shared/skills/import";
import type { SkillImportDetailView } from "../../shared/skills/import-bundle";
import type { SkillImportState } from "../../shared/skills/import-state";
import { AppError } from "../errors/app-error";
import { assertMove, caseOf, expired, scanContext, uploadOf, type ImportFlowDeps } from "./import-cases";
import { runScan, runStage } from "./import-runs";
import type { ImportCase } from "./import-store";
import { deleteUpload, sweepExpired, upload, type UploadInput } from "./import-upload";
import { isKnownPack } from "./skill-packs";

export type { ImportFlowDeps } from "./import-cases";

/**
 * The first half of §0C.20: upload (kept as a temp artifact for 24 hours, `import-upload.ts`), scan,
 * stage (`import-runs.ts`), and the read models. Every step is a move of the import state machine
 * (`import-state.ts`), logged as a transition and a receipt; refusals change nothing. Install,
 * decisions and retries are in `import-decisions.ts`.
 */
export function createImportFlow(deps: ImportFlowDeps) {
  return {
    caseOf: (importId: string) => caseOf(deps, importId),
    assertMove,
    scanContext: (excluding?: string, pending?: boolean) => scanContext(deps, excluding, pending),
    runScan: (entry: ImportCase) => runScan(deps, entry),
    runStage: (entry: ImportCase) => runStage(deps, entry),
    upload: (input: UploadInput) => upload(deps, input),
    deleteUpload: (ref: string) => deleteUpload(deps, ref),
    scan: (request: SkillImportScanRequest) => scan(deps, request),
    stage: (request: SkillImportStageRequest) => stage(deps, request),
    detail: (importId: string) => detail(deps, importId),
    list: (page: number, pageSize: number) => list(deps, page, pageSize),
    /** Uploads past their 24 hours are deleted; an import still scanning one expires (§0C.20 rule 7). */
    sweepExpired: () => sweepExpired(deps),
  };
}

export type ImportFlow = ReturnType<typeof createImportFlow>;

async function scan(deps: ImportFlowDeps, request: SkillImportScanRequest): Promise<SkillImportScanResponse> {
  const { store } = deps;
  // §0C.20 rule 3: the deprecated alias is read as the canonical handle.
  const ref = request.temp_artifact_ref ?? request.staged_upload_ref;
  if (ref === undefined) throw new AppError("REQUEST_INVALID", "Send temp_artifact_ref, the handle the upload answered with.");
  const upload = await uploadOf(deps, ref);
  if (expired(deps, upload.temp_artifact.expires_at))
    throw new AppError("SKILL_IMPORT_UPLOAD_EXPIRED", "This upload expired (uploads are kept 24 hours until staged); upload the bundle again.");
  const at = deps.clock.now().toISOString();
  const record: ImportedSkillRecord = {
    import_id: randomUUID(),
    source: request.source,
    skill_name: "",
    source_ref_kind: "temp_artifact",
    source_ref: ref,
    ...(upload.temp_artifact.original_filename === undefined ? {} : { original_filename: upload.temp_artifact.original_filename }),
    stage_state: "uploaded",
    retry_count: 0,
    ...(upload.metadata.requested_pack_id === undefined ? {} : { skill_pack: upload.metadata.requested_pack_id }),
    requires_adapter: false,
    created_at: at,
    updated_at: at,
    schema_version: 1,
  };
  let entry: ImportCase = { record, format: upload.format, temp_artifact_ref: ref, failed_retries: { scan: 0, stage: 0, install: 0 } };
  await store.writeCase(entry);
  entry = await store.move(entry, "scanning", "scan requested");
  const scanned = await runScan(deps, entry);
  return {
    import_record: scanned.entry.record,
    compatibility_report: scanned.entry.report ?? {
      compatible: false,
      requires_adapter: false,
      rule_version: "elnor-import-1",
      findings: [],
      schema_version: 1,
    },
    receipt_id: scanned.receiptId,
    schema_version: 1,
  };
}

async function stage(deps: ImportFlowDeps, request: SkillImportStageRequest): Promise<SkillImportStageResponse> {
  const entry = await caseOf(deps, request.import_id);
  assertMove(entry, "staging");
  if (request.requested_pack_id !== undefined && !isKnownPack(request.requested_pack_id))
    throw new AppError("SKILL_PACK_NOT_FOUND", "No skill pack with this id; GET /api/skills/packs lists them.");
  const pack = request.requested_pack_id ?? entry.record.skill_pack ?? entry.report?.suggested_pack_id;
  const staging = await deps.store.move(entry, "staging", request.stage_notes ?? "stage requested", pack === undefined ? {} : { skill_pack: pack });
  const staged = await runStage(deps, staging);
  return {
    import_record: staged.entry.record,
    ...(staged.entry.record.stage_state === "ready_for_review" ? { materialized_bundle_ref: staged.entry.record.source_ref } : {}),
    receipt_id: staged.receiptId,
    schema_version: 1,
  };
}

const FINISHED: readonly SkillImportState[] = ["installed_private", "approved", "rejected", "discarded", "expired"];

async function detail(deps: ImportFlowDeps, importId: string): Promise<SkillImportDetailView> {
  const { store } = deps;
  const entry = await caseOf(deps, importId);
  const warnings: string[] = [];
  const upload = entry.record.source_ref_kind === "temp_artifact" ? await store.readUpload(entry.temp_artifact_ref) : undefined;
  const live = !FINISHED.includes(entry.record.stage_state);
  if (live && entry.record.source_ref_kind === "temp_artifact") {
    const left = upload === undefined ? 0 : new Date(upload.temp_artifact.expires_at).getTime() - deps.clock.now().getTime();
    if (left <= 0) warnings.push("upload_expired: the upload is gone; upload the bundle again to continue.");
    else if (left < SKILL_IMPORT_EXPIRING_SOON_MS)
      warnings.push(`upload_expiring_soon: the upload expires in ${Math.max(1, Math.round(left / 60_000))} minutes; stage it or upload again.`);
  }
  for (const kind of ["scan", "stage", "install"] as const) {
    if (entry.failed_retries[kind] >= SKILL_IMPORT_RETRY_WARNING_AFTER)
      warnings.push(`retry_limit_reached: ${entry.failed_retries[kind]} retries of ${kind} failed; fix the bundle and upload it again.`);
  }
  return {
    import_record: entry.record,
    ...(entry.report === undefined ? {} : { compatibility_report: entry.report }),
    warnings,
    ...(entry.bundle === undefined ? {} : { bundle: entry.bundle }),
    ...(upload === undefined ? {} : { temp_artifact: upload.temp_artifact }),
    ...(entry.ability_id === undefined ? {} : { ability_id: entry.ability_id }),
    receipts: await store.receiptsOf(importId, entry.temp_artifact_ref),
    schema_version: 1,
  };
}

async function list(deps: ImportFlowDeps, page: number, pageSize: number) {
  const all = (await deps.store.cases()).sort(
    (a, b) => b.record.created_at.localeCompare(a.record.created_at) || a.record.import_id.localeCompare(b.record.import_id),
  );
  return {
    items: all.slice((page - 1) * pageSize, page * pageSize).map((entry) => entry.record),
    total: all.length,
    page,
    page_size: pageSize,
    schema_version: 1 as const,
  };
}
