import { createHash } from "node:crypto";
import { AppError } from "../errors/app-error";
import type { BundleArchive } from "./bundle-reader";
import { scanBundle, type ScanOutcome } from "./bundle-scan";
import { archiveOf, expired, scanContext, type ImportFlowDeps } from "./import-cases";
import { ImportPaths, type ImportCase } from "./import-store";

/** The two steps of an import that work on its upload's bytes: the scan and the staging. */

export interface ScanRun {
  entry: ImportCase;
  outcome: ScanOutcome | undefined;
  receiptId: string;
}

/** Runs the scan of a case in `scanning` and moves it to scan_complete or scan_failed. */
export async function runScan(deps: ImportFlowDeps, entry: ImportCase): Promise<ScanRun> {
  const { store, memory } = deps;
  const upload = await store.readUpload(entry.temp_artifact_ref);
  const bytes = upload === undefined ? undefined : await memory.readBytes(ImportPaths.uploadBytes(entry.temp_artifact_ref));
  if (upload === undefined || bytes === undefined || expired(deps, upload.temp_artifact.expires_at)) {
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
  return recordScan(deps, entry, scanBundle(archive, await scanContext(deps, entry.record.import_id)));
}

/** The scan's outcome kept on the case, which moves to scan_complete or scan_failed, with its receipt. */
async function recordScan(deps: ImportFlowDeps, entry: ImportCase, outcome: ScanOutcome): Promise<ScanRun> {
  const { store } = deps;
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
}

/** Runs staging of a case in `staging`: the upload becomes the materialized bundle. */
export async function runStage(deps: ImportFlowDeps, entry: ImportCase): Promise<{ entry: ImportCase; receiptId: string }> {
  const { store, memory } = deps;
  const ref = entry.temp_artifact_ref;
  const upload = await store.readUpload(ref);
  const bytes = upload === undefined ? undefined : await memory.readBytes(ImportPaths.uploadBytes(ref));
  const hash = bytes === undefined ? undefined : createHash("sha256").update(bytes).digest("hex");
  if (upload === undefined || bytes === undefined || expired(deps, upload.temp_artifact.expires_at) || hash !== upload.temp_artifact.content_hash_sha256) {
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
}
