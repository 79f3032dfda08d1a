import { readFrontmatterMapping, renderPortableFrontmatter, type PortableSkillFrontmatter } from "../../shared/skills/frontmatter";
import type { SkillImportTerminalActionResponse } from "../../shared/skills/import";
import type { InstalledAbility } from "../abilities/ability-registry";
import { AppError, isAppError } from "../errors/app-error";
import { scanBundle, type ScanOutcome } from "./bundle-scan";
import { archiveOf } from "./import-cases";
import type { ImportDecisionDeps } from "./import-decisions";
import { ImportPaths, type ImportCase } from "./import-store";
import { SKILL_MD } from "../../shared/skills/skill-folder";

/**
 * Installing a staged import: the bundle's archive kept byte for byte in ELNOR_MEMORY, its files
 * projected into the assistant's skill folder (a script keeps its executable bit; nothing is ever
 * run) and the ability registered, so Skills and lookup find it. A failed install leaves nothing behind.
 */

type Lane = "experimental_private" | "approved_workspace";

/** Installs a staged import into a lane; throws (having undone everything) on failure. */
export async function install(deps: ImportDecisionDeps, entry: ImportCase, lane: Lane): Promise<string> {
  const { memory } = deps;
  const bytes = await memory.readBytes(ImportPaths.stagedBytes(entry.record.import_id));
  if (bytes === undefined) throw new AppError("SKILL_IMPORT_NOT_FOUND", "The staged bundle is missing; upload it again.");
  // Scanned again at install: a skill of the same name may have been installed or added since.
  const outcome = scanBundle(await archiveOf(entry.format, bytes), await deps.flow.scanContext(entry.record.import_id, false));
  const frontmatter = outcome.bundle.frontmatter;
  if (!outcome.report.compatible || frontmatter === undefined) {
    const reason = outcome.report.findings.find((finding) => finding.severity === "error")?.message ?? "The bundle no longer passes its scan.";
    throw new AppError("INSTALL_LANE_DENIED", reason.slice(0, 240));
  }
  const name = frontmatter.name;
  const abilityId = `imported.${name}`;
  const installed = ImportPaths.installed(name);
  try {
    await keepCanonicalCopy(deps, entry, outcome, frontmatter, bytes);
    // The assistant's copy: every file byte for byte, SKILL.md under its canonical name.
    const projected = Object.fromEntries(
      outcome.files.map((file) => [/^skill\.md$/i.test(file.path) ? SKILL_MD : file.path, { bytes: file.bytes, executable: file.executable }]),
    );
    await deps.projector.project(name, projected);
    await deps.abilities.register(installedAbility(deps, entry, frontmatter, lane));
  } catch (error) {
    if (deps.registry.get(abilityId) === undefined) {
      await deps.projector.remove(name).catch(() => undefined);
      await memory.remove(installed).catch(() => undefined);
    }
    throw error;
  }
  await memory.remove(ImportPaths.staged(entry.record.import_id));
  return abilityId;
}

/** The canonical copy: the archive as uploaded, what we derived, and for our own export its §0.2C SKILL.md. */
async function keepCanonicalCopy(
  deps: ImportDecisionDeps,
  entry: ImportCase,
  outcome: ScanOutcome,
  frontmatter: PortableSkillFrontmatter,
  bytes: Buffer,
): Promise<void> {
  const { memory } = deps;
  const installed = ImportPaths.installed(frontmatter.name);
  await memory.writeBytes(`${installed}/bundle.bin`, bytes);
  await memory.writeJson(`${installed}/import.json`, {
    import_id: entry.record.import_id,
    format: entry.format,
    frontmatter,
    bundle: outcome.bundle,
    installed_at: deps.clock.now().toISOString(),
    schema_version: 1,
  });
  const skillMd = outcome.files.find((file) => /^skill\.md$/i.test(file.path));
  const mapping = skillMd === undefined ? undefined : readFrontmatterMapping(skillMd.bytes.toString("utf8"));
  if (outcome.bundle.format === "elnor_export" && mapping?.ok === true) {
    await memory.writeText(`${installed}/${SKILL_MD}`, `${renderPortableFrontmatter(frontmatter)}${mapping.body}`);
  }
}

function installedAbility(deps: ImportDecisionDeps, entry: ImportCase, frontmatter: PortableSkillFrontmatter, lane: Lane): InstalledAbility {
  const abilityId = `imported.${frontmatter.name}`;
  const at = deps.clock.now().toISOString();
  return {
    ability_id: abilityId,
    skill_name: frontmatter.name,
    capability_id: abilityId,
    title: frontmatter.title,
    family: "imported",
    install_lane: lane,
    enabled: true,
    quarantined: false,
    trigger_phrases: frontmatter.triggers.map((trigger) => trigger.slice(0, 120)),
    negative_triggers: frontmatter.negative_triggers.map((trigger) => trigger.slice(0, 120)),
    project_scopes: [],
    preferred_control_surfaces: frontmatter.preferred_control_surfaces,
    support_pack_refs: [],
    source: "imported",
    import_id: entry.record.import_id,
    // An import is scanned, never validated here: it has no `last_validated_at`.
    skill_version: frontmatter.version,
    installed_at: at,
    updated_at: at,
  };
}

/** Install privately (or its retry): install_queued, then installed_private or install_failed, with a receipt. */
export async function installPrivately(deps: ImportDecisionDeps, entry: ImportCase, retried = false): Promise<SkillImportTerminalActionResponse> {
  const { store } = deps;
  let queued = await store.move(entry, "install_queued", retried ? "install retried" : "install privately requested");
  try {
    const abilityId = await install(deps, queued, "experimental_private");
    queued = await store.move({ ...queued, ability_id: abilityId }, "installed_private", "installed for you only");
    const receiptId = await store.receipt("skill.import.installed_private", { import_id: entry.record.import_id, ability_id: abilityId });
    return { import_record: queued.record, receipt_id: receiptId, schema_version: 1 };
  } catch (error) {
    const code = isAppError(error) ? error.code : "INTERNAL_ERROR";
    const failed = await store.move(queued, "install_failed", `install failed (${code})`, { last_error_code: code });
    const receiptId = await store.receipt("skill.import.install_failed", {
      import_id: entry.record.import_id,
      details: { error_code: code, message: error instanceof Error ? error.message.slice(0, 240) : "" },
    });
    return { import_record: failed.record, receipt_id: receiptId, schema_version: 1 };
  }
}
