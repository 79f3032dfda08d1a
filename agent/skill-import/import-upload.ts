import { createHash, randomUUID } from "node:crypto";
import path from "node:path";
import { SKILL_IMPORT_TEMP_ARTIFACT_TTL_MS, type SkillImportUploadMetadata, type SkillImportUploadResponse } from "../../shared/skills/import";
import { AppError } from "../errors/app-error";
import { readBundleArchive } from "./bundle-reader";
import { expired, UPLOAD_REF, uploadOf, type ImportFlowDeps } from "./import-cases";
import { ImportPaths, type ArtifactFormat } from "./import-store";

/** Uploads: kept as a temp artifact for 24 hours, deleted on request or when they expire. */

/** A single SKILL.md upload: text, small. */
export const SKILL_MD_MAX_BYTES = 1024 * 1024;

export interface UploadInput {
  filename: string;
  mimetype: string;
  bytes: Buffer;
  metadata: SkillImportUploadMetadata;
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

/** Refuses an upload before any byte of it is kept: a SKILL.md too large or without frontmatter, a hostile archive, nothing. */
async function checkUpload(input: UploadInput, format: ArtifactFormat): Promise<void> {
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
}

export async function upload(deps: ImportFlowDeps, input: UploadInput): Promise<SkillImportUploadResponse> {
  const { store, memory } = deps;
  const format = formatOfUpload(input.filename, input.mimetype);
  await checkUpload(input, format);
  const ref = `upl-${randomUUID()}`;
  const created = deps.clock.now();
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
}

export async function deleteUpload(deps: ImportFlowDeps, ref: string) {
  const { store, memory } = deps;
  await uploadOf(deps, ref);
  const busy = (await store.cases()).some((entry) => entry.temp_artifact_ref === ref && ["staging", "install_queued"].includes(entry.record.stage_state));
  if (busy) throw new AppError("SKILL_IMPORT_UPLOAD_IN_USE", "This upload is being staged or installed; wait for that to finish.");
  await memory.remove(ImportPaths.uploadBytes(ref));
  await memory.remove(ImportPaths.uploadMeta(ref));
  await store.receipt("skill.import.upload_deleted", { temp_artifact_ref: ref });
  return { deleted: true, temp_artifact_ref: ref, schema_version: 1 as const };
}

/** Uploads past their 24 hours are deleted; an import still scanning one expires (§0C.20 rule 7). */
export async function sweepExpired(deps: ImportFlowDeps): Promise<number> {
  const { store, memory } = deps;
  let swept = 0;
  for (const name of (await memory.list(ImportPaths.uploads)).filter((file) => file.endsWith(".json"))) {
    const ref = name.slice(0, -".json".length);
    const upload = UPLOAD_REF.test(ref) ? await store.readUpload(ref).catch(() => undefined) : undefined;
    if (upload === undefined || !expired(deps, upload.temp_artifact.expires_at)) continue;
    for (const entry of await store.cases()) {
      if (entry.temp_artifact_ref === ref && entry.record.stage_state === "scanning") await store.move(entry, "expired", "the upload expired while scanning");
    }
    await memory.remove(ImportPaths.uploadBytes(ref));
    await memory.remove(ImportPaths.uploadMeta(ref));
    swept += 1;
  }
  return swept;
}
