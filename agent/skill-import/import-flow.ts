import { createHash, randomUUID } from "node:crypto";
import path from "node:path";
import {
  SKILL_IMPORT_EXPIRING_SOON_MS,
  SKILL_IMPORT_RETRY_WARNING_AFTER,
  SKILL_IMPORT_TEMP_ARTIFACT_TTL_MS,
  type ImportedSkillRecord,
  type SkillImportScanRequest,
  type SkillImportScanResponse,
  type SkillImportStageRequest,
  type SkillImportStageResponse,
  type SkillImportUploadMetadata,
  type SkillImportUploadResponse,
} from "../../shared/skills/import";
import type { SkillImportDetailView } from "../../shared/skills/import-bundle";
import { canTransitionSkillImport, type SkillImportState } from "../../shared/skills/import-state";
import type { AbilityRegistry } from "../abilities/ability-registry";
import type { Clock } from "../common/clock";
import { AppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { readBundleArchive, type BundleArchive } from "./bundle-reader";
import { scanBundle, type ScanContext, type ScanOutcome } from "./bundle-scan";
import { ImportPaths, type ArtifactFormat, type ImportCase, type ImportStore } from "./import-store";
import { isKnownPack } from "./skill-packs";
import { SKILL_MD } from "../../shared/skills/skill-folder";

/**
 * The first half of §0C.20: upload (kept as a temp artifact for 24 hours), scan, stage, and the
 * read models. Every step is a move of the import state machine (`import-state.ts`), logged as a
 * transition and a receipt; refusals change nothing. Install, decisions and retries are in
 * `import-decisions.ts`.
 */

const UPLOAD_REF = /^upl-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const IMPORT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A single SKILL.md upload: text, small. */
export const SKILL_MD_MAX_BYTES = 1024 * 1024;

export interface UploadInput {
  filename: string;
  mimetype: string;
  bytes: Buffer;
  metadata: SkillImportUploadMetadata;
}

export interface ImportFlowDeps {
  memory: MemoryStore;
  store: ImportStore;
  registry: AbilityRegistry;
  clock: Clock;
  /** Skill names held outside the registry (native and bundled skill folders), with who holds them. */
  otherSkillNames?: () => Promise<ReadonlyMap<string, string>>;
}

/** The bytes of an upload as files: the archive read and checked, or one SKILL.md. */
export async function archiveOf(format: ArtifactFormat, bytes: Buffer): Promise<BundleArchive> {
  if (format === "skill_md") return { files: [{ path: SKILL_MD, bytes, mode: 0o644, executable: false }], skipped: [] };
  return readBundleArchive(bytes);
}

export function formatOfUpload(filename: string, mimetype: string): ArtifactFormat {
  const name = filename.toLowerCase();
  const mime = mimetype.toLowerCase().split(";")[0]?.trim() ?? "";
  if (name.endsWith(".zip")) {
    if (!["application/zip", "application/x-zip-compressed", "application/octet-stream"].includes(mime)) {
      throw new AppError("SKILL_IMPORT_UNSUPPORTED_MIME", "Send the zip as application/zip (or application/x-zip-compressed).");
    }
    return "zip";
  }
  if (name === "skill.md" || name.endsWith("/skill.md") || name.endsWith(".md")) {
    if (!["text/markdown", "text/x-markdown", "text/plain", "application/octet-stream", ""].includes(mime)) {
      throw new AppError("SKILL_IMPORT_UNSUPPORTED_MIME", "Send SKILL.md as text/markdown.");
    }
    return "skill_md";
  }
  throw new AppError("SKILL_IMPORT_UNSUPPORTED_EXTENSION", "Upload a .zip or .skillbundle.zip of the skill's folder, or its SKILL.md.");
}

export function createImportFlow(deps: ImportFlowDeps) {
  const { store, memory } = deps;
  const now = () => deps.clock.now();

  const caseOf = async (importId: string): Promise<ImportCase> => {
    const found = IMPORT_ID.test(importId) ? await store.readCase(importId) : undefined;
    if (found === undefined) throw new AppError("SKILL_IMPORT_NOT_FOUND", "No import with this id; upload and scan the bundle again.");
    return found;
  };

  const assertMove = (entry: ImportCase, to: SkillImportState, retryKind?: "scan" | "stage" | "install") => {
    if (!canTransitionSkillImport(entry.record.stage_state, to, retryKind)) {
      throw new AppError(
        "INVALID_SKILL_IMPORT_TRANSITION",
        `An import that is ${entry.record.stage_state.replace(/_/g, " ")} cannot move to ${to.replace(/_/g, " ")}.`,
      );
    }
  };

  const uploadOf = async (ref: string) => {
    const upload = UPLOAD_REF.test(ref) ? await store.readUpload(ref) : undefined;
    if (upload === undefined)
      throw new AppError("SKILL_IMPORT_UPLOAD_NOT_FOUND", "No upload with this reference; it was deleted, staged or never made. Upload the bundle again.");
    return upload;
  };
  const expired = (expiresAt: string) => new Date(expiresAt).getTime() <= now().getTime();

  /** Names and triggers a bundle must not collide with; `pending` adds other imports waiting for review. */
  const scanContext = async (excluding?: string, pending = true): Promise<ScanContext> => {
    const takenNames = new Map<string, string>((await deps.otherSkillNames?.()) ?? []);
    const installedTriggers = new Map<string, string>();
    for (const ability of deps.registry.all()) {
      takenNames.set(ability.skill_name, `installed ("${ability.title}")`);
      for (const trigger of ability.trigger_phrases) installedTriggers.set(trigger.toLowerCase(), `"${ability.title}"`);
    }
    for (const other of pending ? await store.cases() : []) {
      if (other.record.import_id === excluding || !["ready_for_review", "install_queued"].includes(other.record.stage_state)) continue;
      takenNames.set(other.record.skill_name, "waiting for review in another import");
    }
    return { takenNames, installedTriggers };
  };

  /** Runs the scan of a case in `scanning` and moves it to scan_complete or scan_failed. */
  const runScan = async (entry: ImportCase): Promise<{ entry: ImportCase; outcome: ScanOutcome | undefined; receiptId: string }> => {
    const upload = await store.readUpload(entry.temp_artifact_ref);
    const bytes = upload === undefined ? undefined : await memory.readBytes(ImportPaths.uploadBytes(entry.temp_artifact_ref));
    if (upload === undefined || bytes === undefined || expired(upload.temp_artifact.expires_at)) {
      const next = await store.move(entry, "scan_failed", "the upload expired or was deleted", { last_error_code: "SKILL_IMPORT_UPLOAD_EXPIRED" });
      const receiptId = await store.receipt("skill.import.scan_failed", {
        import_id: entry.record.import_id,
        details: { error_code: "SKILL_IMPORT_UPLOAD_EXPIRED" },
      });
      return { entry: next, outcome: undefined, receiptId };
    }
    let archive: BundleArchive;
    try {
      archive = await archiveOf(upload.format, bytes);
    } catch (error) {
      // Checked at upload, so only a file changed on disk since lands here: the scan fails, it does not hang.
      const code = error instanceof AppError ? error.code : "SKILL_IMPORT_ARCHIVE_UNSAFE";
      const next = await store.move(entry, "scan_failed", "the stored upload could not be read", { last_error_code: code });
      return {
        entry: next,
        outcome: undefined,
        receiptId: await store.receipt("skill.import.scan_failed", { import_id: entry.record.import_id, details: { error_code: code } }),
      };
    }
    const outcome = scanBundle(archive, await scanContext(entry.record.import_id));
    const ok = outcome.report.compatible;
    const errors = outcome.report.findings.filter((finding) => finding.severity === "error").map((finding) => finding.code);
    const next = await store.move(
      {
        ...entry,
        report: outcome.report,
        bundle: outcome.bundle,
        ...(outcome.bundle.frontmatter === undefined ? {} : { frontmatter: outcome.bundle.frontmatter }),
      },
      ok ? "scan_complete" : "scan_failed",
      ok ? "scan found nothing blocking" : `scan found ${errors.join(", ")}`.slice(0, 240),
      {
        skill_name: outcome.bundle.skill_name.slice(0, 80),
        compatibility_report_ref: ImportPaths.record(entry.record.import_id),
        requires_adapter: outcome.report.requires_adapter,
        ...(ok ? {} : { last_error_code: errors[0] ?? "SCAN_FAILED" }),
      },
    );
    const receiptId = await store.receipt(ok ? "skill.import.scanned" : "skill.import.scan_failed", {
      import_id: entry.record.import_id,
      details: {
        compatible: ok,
        findings: outcome.report.findings.length,
        files: outcome.bundle.files.length,
        executables: outcome.bundle.files.filter((file) => file.executable).length,
      },
    });
    return { entry: next, outcome, receiptId };
  };

  /** Runs staging of a case in `staging`: the upload becomes the materialized bundle. */
  const runStage = async (entry: ImportCase): Promise<{ entry: ImportCase; receiptId: string }> => {
    const ref = entry.temp_artifact_ref;
    const upload = await store.readUpload(ref);
    const bytes = upload === undefined ? undefined : await memory.readBytes(ImportPaths.uploadBytes(ref));
    const hash = bytes === undefined ? undefined : createHash("sha256").update(bytes).digest("hex");
    if (upload === undefined || bytes === undefined || expired(upload.temp_artifact.expires_at) || hash !== upload.temp_artifact.content_hash_sha256) {
      const code =
        upload !== undefined && bytes !== undefined && hash !== upload.temp_artifact.content_hash_sha256
          ? "SKILL_IMPORT_ARCHIVE_UNSAFE"
          : "SKILL_IMPORT_UPLOAD_EXPIRED";
      const next = await store.move(
        entry,
        "stage_failed",
        code === "SKILL_IMPORT_UPLOAD_EXPIRED" ? "the upload expired before staging" : "the upload changed since its scan",
        { last_error_code: code },
      );
      return { entry: next, receiptId: await store.receipt("skill.import.stage_failed", { import_id: entry.record.import_id, details: { error_code: code } }) };
    }
    await memory.writeBytes(ImportPaths.stagedBytes(entry.record.import_id), bytes);
    const next = await store.move(entry, "ready_for_review", "staged for review", {
      source_ref_kind: "materialized_bundle",
      source_ref: ImportPaths.staged(entry.record.import_id),
    });
    await memory.remove(ImportPaths.uploadBytes(ref));
    await memory.remove(ImportPaths.uploadMeta(ref));
    return {
      entry: next,
      receiptId: await store.receipt("skill.import.staged", { import_id: entry.record.import_id, details: { pack: next.record.skill_pack ?? null } }),
    };
  };

  return {
    caseOf,
    assertMove,
    scanContext,
    runScan,
    runStage,

    async upload(input: UploadInput): Promise<SkillImportUploadResponse> {
      const format = formatOfUpload(input.filename, input.mimetype);
      if (format === "skill_md") {
        if (input.bytes.length > SKILL_MD_MAX_BYTES)
          throw new AppError("SKILL_IMPORT_FILE_TOO_LARGE", "A single SKILL.md may be at most 1 MiB; zip larger skills with their files.");
        const text = input.bytes.toString("utf8");
        if (!/^(\ufeff)?---\r?\n/.test(text))
          throw new AppError("SKILL_IMPORT_ARCHIVE_REQUIRED", "Upload a zip of the skill's folder, or a SKILL.md that starts with its frontmatter (---).");
      } else {
        // Checked now, so a hostile archive is refused before any byte of it is kept.
        await readBundleArchive(input.bytes);
      }
      if (input.bytes.length === 0) throw new AppError("SKILL_IMPORT_ARCHIVE_REQUIRED", "The uploaded file is empty.");
      const ref = `upl-${randomUUID()}`;
      const created = now();
      const response: SkillImportUploadResponse = {
        temp_artifact: {
          temp_artifact_ref: ref,
          artifact_kind: format === "zip" ? "skill_bundle_zip" : "skill_bundle_dir",
          original_filename: path.posix.basename(input.filename.replace(/\\/g, "/")).slice(0, 240),
          content_hash_sha256: createHash("sha256").update(input.bytes).digest("hex"),
          byte_size: input.bytes.length,
          created_at: created.toISOString(),
          expires_at: new Date(created.getTime() + SKILL_IMPORT_TEMP_ARTIFACT_TTL_MS).toISOString(),
          schema_version: 1,
        },
        accepted: true,
        schema_version: 1,
      };
      await memory.writeBytes(ImportPaths.uploadBytes(ref), input.bytes);
      await memory.writeJson(ImportPaths.uploadMeta(ref), { temp_artifact: response.temp_artifact, format, metadata: input.metadata });
      await store.receipt("skill.import.uploaded", { temp_artifact_ref: ref, details: { byte_size: input.bytes.length, format } });
      return response;
    },

    async deleteUpload(ref: string) {
      await uploadOf(ref);
      const busy = (await store.cases()).some((entry) => entry.temp_artifact_ref === ref && ["staging", "install_queued"].includes(entry.record.stage_state));
      if (busy) throw new AppError("SKILL_IMPORT_UPLOAD_IN_USE", "This upload is being staged or installed; wait for that to finish.");
      await memory.remove(ImportPaths.uploadBytes(ref));
      await memory.remove(ImportPaths.uploadMeta(ref));
      await store.receipt("skill.import.upload_deleted", { temp_artifact_ref: ref });
      return { deleted: true, temp_artifact_ref: ref, schema_version: 1 as const };
    },

    async scan(request: SkillImportScanRequest): Promise<SkillImportScanResponse> {
      // §0C.20 rule 3: the deprecated alias is read as the canonical handle.
      const ref = request.temp_artifact_ref ?? request.staged_upload_ref;
      if (ref === undefined) throw new AppError("REQUEST_INVALID", "Send temp_artifact_ref, the handle the upload answered with.");
      const upload = await uploadOf(ref);
      if (expired(upload.temp_artifact.expires_at))
        throw new AppError("SKILL_IMPORT_UPLOAD_EXPIRED", "This upload expired (uploads are kept 24 hours until staged); upload the bundle again.");
      const at = now().toISOString();
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
      const scanned = await runScan(entry);
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
    },

    async stage(request: SkillImportStageRequest): Promise<SkillImportStageResponse> {
      const entry = await caseOf(request.import_id);
      assertMove(entry, "staging");
      if (request.requested_pack_id !== undefined && !isKnownPack(request.requested_pack_id))
        throw new AppError("SKILL_PACK_NOT_FOUND", "No skill pack with this id; GET /api/skills/packs lists them.");
      const pack = request.requested_pack_id ?? entry.record.skill_pack ?? entry.report?.suggested_pack_id;
      const staging = await store.move(entry, "staging", request.stage_notes ?? "stage requested", pack === undefined ? {} : { skill_pack: pack });
      const staged = await runStage(staging);
      return {
        import_record: staged.entry.record,
        ...(staged.entry.record.stage_state === "ready_for_review" ? { materialized_bundle_ref: staged.entry.record.source_ref } : {}),
        receipt_id: staged.receiptId,
        schema_version: 1,
      };
    },

    async detail(importId: string): Promise<SkillImportDetailView> {
      const entry = await caseOf(importId);
      const warnings: string[] = [];
      const upload = entry.record.source_ref_kind === "temp_artifact" ? await store.readUpload(entry.temp_artifact_ref) : undefined;
      const live = !["installed_private", "approved", "rejected", "discarded", "expired"].includes(entry.record.stage_state);
      if (live && entry.record.source_ref_kind === "temp_artifact") {
        const left = upload === undefined ? 0 : new Date(upload.temp_artifact.expires_at).getTime() - now().getTime();
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
    },

    async list(page: number, pageSize: number) {
      const all = (await store.cases()).sort(
        (a, b) => b.record.created_at.localeCompare(a.record.created_at) || a.record.import_id.localeCompare(b.record.import_id),
      );
      return {
        items: all.slice((page - 1) * pageSize, page * pageSize).map((entry) => entry.record),
        total: all.length,
        page,
        page_size: pageSize,
        schema_version: 1 as const,
      };
    },

    /** Uploads past their 24 hours are deleted; an import still scanning one expires (§0C.20 rule 7). */
    async sweepExpired(): Promise<number> {
      let swept = 0;
      for (const name of (await memory.list(ImportPaths.uploads)).filter((file) => file.endsWith(".json"))) {
        const ref = name.slice(0, -".json".length);
        const upload = UPLOAD_REF.test(ref) ? await store.readUpload(ref).catch(() => undefined) : undefined;
        if (upload === undefined || !expired(upload.temp_artifact.expires_at)) continue;
        for (const entry of await store.cases()) {
          if (entry.temp_artifact_ref === ref && entry.record.stage_state === "scanning")
            await store.move(entry, "expired", "the upload expired while scanning");
        }
        await memory.remove(ImportPaths.uploadBytes(ref));
        await memory.remove(ImportPaths.uploadMeta(ref));
        swept += 1;
      }
      return swept;
    },
  };
}

export type ImportFlow = ReturnType<typeof createImportFlow>;
