import type { SkillImportState } from "../../shared/skills/import-state";
import { canTransitionSkillImport } from "../../shared/skills/import-state";
import type { AbilityRegistry } from "../abilities/ability-registry";
import type { Clock } from "../common/clock";
import { AppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { readBundleArchive, type BundleArchive } from "./bundle-reader";
import type { ScanContext } from "./bundle-scan";
import type { ArtifactFormat, ImportCase, ImportStore } from "./import-store";
import { SKILL_MD } from "../../shared/skills/skill-folder";

/** Finding an import and its upload, and the rules every step of the import flow checks first. */

export const UPLOAD_REF = /^upl-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const IMPORT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

export async function caseOf(deps: ImportFlowDeps, importId: string): Promise<ImportCase> {
  const found = IMPORT_ID.test(importId) ? await deps.store.readCase(importId) : undefined;
  if (found === undefined) throw new AppError("SKILL_IMPORT_NOT_FOUND", "No import with this id; upload and scan the bundle again.");
  return found;
}

export function assertMove(entry: ImportCase, to: SkillImportState, retryKind?: "scan" | "stage" | "install"): void {
  if (!canTransitionSkillImport(entry.record.stage_state, to, retryKind)) {
    throw new AppError(
      "INVALID_SKILL_IMPORT_TRANSITION",
      `An import that is ${entry.record.stage_state.replace(/_/g, " ")} cannot move to ${to.replace(/_/g, " ")}.`,
    );
  }
}

export async function uploadOf(deps: ImportFlowDeps, ref: string) {
  const upload = UPLOAD_REF.test(ref) ? await deps.store.readUpload(ref) : undefined;
  if (upload === undefined)
    throw new AppError("SKILL_IMPORT_UPLOAD_NOT_FOUND", "No upload with this reference; it was deleted, staged or never made. Upload the bundle again.");
  return upload;
}

export const expired = (deps: ImportFlowDeps, expiresAt: string) => new Date(expiresAt).getTime() <= deps.clock.now().getTime();

/** Names and triggers a bundle must not collide with; `pending` adds other imports waiting for review. */
export async function scanContext(deps: ImportFlowDeps, excluding?: string, pending = true): Promise<ScanContext> {
  const takenNames = new Map<string, string>((await deps.otherSkillNames?.()) ?? []);
  const installedTriggers = new Map<string, string>();
  for (const ability of deps.registry.all()) {
    takenNames.set(ability.skill_name, `installed ("${ability.title}")`);
    for (const trigger of ability.trigger_phrases) installedTriggers.set(trigger.toLowerCase(), `"${ability.title}"`);
  }
  for (const other of pending ? await deps.store.cases() : []) {
    if (other.record.import_id === excluding || !["ready_for_review", "install_queued"].includes(other.record.stage_state)) continue;
    takenNames.set(other.record.skill_name, "waiting for review in another import");
  }
  return { takenNames, installedTriggers };
}
