import type { AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import { readFrontmatterMapping, renderPortableFrontmatter, type PortableSkillFrontmatter } from "../../shared/skills/frontmatter";
import type { SkillImportRetryKind } from "../../shared/skills/import-state";
import type { SkillImportTerminalActionResponse, SkillTriggerTestRequest, SkillTriggerTestResponse } from "../../shared/skills/import";
import type { AbilityService } from "../abilities/ability-service";
import type { AbilityRegistry, InstalledAbility } from "../abilities/ability-registry";
import type { WorkspaceProjector } from "../abilities/workspace-projection";
import type { Clock } from "../common/clock";
import { AppError, isAppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { scanBundle } from "./bundle-scan";
import type { ImportFlow } from "./import-flow";
import { archiveOf } from "./import-cases";
import { ImportPaths, type ImportCase, type ImportStore } from "./import-store";
import { SKILL_MD } from "../../shared/skills/skill-folder";

/**
 * The second half of §0C.20: the decisions on a staged import (install privately, approve,
 * reject, discard), retries of failed steps, and the trigger test. Installing keeps the bundle's
 * archive byte for byte in ELNOR_MEMORY, projects its files into the assistant's skill folder (a
 * script keeps its executable bit; nothing is ever run) and registers the ability, so Skills and
 * lookup find it. A failed install leaves nothing behind.
 */

export interface ImportDecisionDeps {
  memory: MemoryStore;
  store: ImportStore;
  flow: ImportFlow;
  registry: AbilityRegistry;
  abilities: AbilityService;
  projector: WorkspaceProjector;
  clock: Clock;
}

type Action = Promise<SkillImportTerminalActionResponse>;

const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length > 2),
  );

/** The availability entry an import would have once installed: what the trigger test looks up. */
function candidateEntry(abilityId: string, frontmatter: PortableSkillFrontmatter): AbilityAvailabilityEntry {
  return {
    ability_id: abilityId,
    title: frontmatter.title.slice(0, 200),
    family: "imported",
    source: "imported",
    skill_slug: frontmatter.name,
    install_lane: "experimental_private",
    enabled: true,
    usable_now: true,
    trigger_phrases: frontmatter.triggers.map((trigger) => trigger.slice(0, 120)),
    negative_triggers: frontmatter.negative_triggers.map((trigger) => trigger.slice(0, 120)),
    aliases: [],
    project_scopes: [],
    preferred_control_surfaces: frontmatter.preferred_control_surfaces,
    support_pack_refs: [],
    schema_version: 1,
  };
}

export function createImportDecisions(deps: ImportDecisionDeps) {
  const { store, flow, memory } = deps;
  const now = () => deps.clock.now().toISOString();

  /** Installs a staged import into a lane; throws (having undone everything) on failure. */
  const install = async (entry: ImportCase, lane: "experimental_private" | "approved_workspace"): Promise<string> => {
    const bytes = await memory.readBytes(ImportPaths.stagedBytes(entry.record.import_id));
    if (bytes === undefined) throw new AppError("SKILL_IMPORT_NOT_FOUND", "The staged bundle is missing; upload it again.");
    // Scanned again at install: a skill of the same name may have been installed or added since.
    const outcome = scanBundle(await archiveOf(entry.format, bytes), await flow.scanContext(entry.record.import_id, false));
    const frontmatter = outcome.bundle.frontmatter;
    if (!outcome.report.compatible || frontmatter === undefined) {
      const reason = outcome.report.findings.find((finding) => finding.severity === "error")?.message ?? "The bundle no longer passes its scan.";
      throw new AppError("INSTALL_LANE_DENIED", reason.slice(0, 240));
    }
    const name = frontmatter.name;
    const abilityId = `imported.${name}`;
    const installed = ImportPaths.installed(name);
    try {
      // The canonical copy: the archive as uploaded, what we derived, and for our own export its §0.2C SKILL.md.
      await memory.writeBytes(`${installed}/bundle.bin`, bytes);
      await memory.writeJson(`${installed}/import.json`, {
        import_id: entry.record.import_id,
        format: entry.format,
        frontmatter,
        bundle: outcome.bundle,
        installed_at: now(),
        schema_version: 1,
      });
      const skillMd = outcome.files.find((file) => /^skill\.md$/i.test(file.path));
      const mapping = skillMd === undefined ? undefined : readFrontmatterMapping(skillMd.bytes.toString("utf8"));
      if (outcome.bundle.format === "elnor_export" && mapping?.ok === true) {
        await memory.writeText(`${installed}/${SKILL_MD}`, `${renderPortableFrontmatter(frontmatter)}${mapping.body}`);
      }
      // The assistant's copy: every file byte for byte, SKILL.md under its canonical name.
      const projected = Object.fromEntries(
        outcome.files.map((file) => [/^skill\.md$/i.test(file.path) ? SKILL_MD : file.path, { bytes: file.bytes, executable: file.executable }]),
      );
      await deps.projector.project(name, projected);
      const at = now();
      const ability: InstalledAbility = {
        ability_id: abilityId,
        skill_name: name,
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
      await deps.abilities.register(ability);
    } catch (error) {
      if (deps.registry.get(abilityId) === undefined) {
        await deps.projector.remove(name).catch(() => undefined);
        await memory.remove(installed).catch(() => undefined);
      }
      throw error;
    }
    await memory.remove(ImportPaths.staged(entry.record.import_id));
    return abilityId;
  };

  const installPrivately = async (entry: ImportCase, retried = false): Action => {
    let queued = await store.move(entry, "install_queued", retried ? "install retried" : "install privately requested");
    try {
      const abilityId = await install(queued, "experimental_private");
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
  };

  return {
    async installPrivate(importId: string, scope: "private" | "workspace"): Action {
      if (scope === "workspace")
        throw new AppError("INSTALL_LANE_DENIED", "Install privately installs for you only; approve the import to add it to the workspace.");
      const entry = await flow.caseOf(importId);
      flow.assertMove(entry, "install_queued");
      return installPrivately(entry);
    },

    async approve(importId: string, note?: string): Action {
      const entry = await flow.caseOf(importId);
      flow.assertMove(entry, "approved");
      // Approval installs into the workspace lane; a failure leaves the import in review, as it was.
      const abilityId = await install(entry, "approved_workspace");
      const approved = await store.move(
        { ...entry, ability_id: abilityId, ...(note === undefined ? {} : { decision_note: note }) },
        "approved",
        "approved for the workspace",
      );
      const receiptId = await store.receipt("skill.import.approved", { import_id: importId, ability_id: abilityId });
      return { import_record: approved.record, receipt_id: receiptId, schema_version: 1 };
    },

    async reject(importId: string, reason: string): Action {
      const entry = await flow.caseOf(importId);
      flow.assertMove(entry, "rejected");
      const rejected = await store.move({ ...entry, decision_note: reason }, "rejected", reason);
      await memory.remove(ImportPaths.staged(importId));
      const receiptId = await store.receipt("skill.import.rejected", { import_id: importId, details: { reason: reason.slice(0, 240) } });
      return { import_record: rejected.record, receipt_id: receiptId, schema_version: 1 };
    },

    async discard(importId: string, reason?: string): Action {
      const entry = await flow.caseOf(importId);
      flow.assertMove(entry, "discarded");
      const discarded = await store.move(entry, "discarded", reason ?? "discarded by the user");
      await memory.remove(ImportPaths.staged(importId));
      if (entry.record.source_ref_kind === "temp_artifact") {
        await memory.remove(ImportPaths.uploadBytes(entry.temp_artifact_ref));
        await memory.remove(ImportPaths.uploadMeta(entry.temp_artifact_ref));
      }
      const receiptId = await store.receipt("skill.import.discarded", { import_id: importId });
      return { import_record: discarded.record, receipt_id: receiptId, schema_version: 1 };
    },

    /** §0C.20: the only way out of a failed state; a retry that fails again counts toward `retry_limit_reached`. */
    async retry(importId: string, kind: SkillImportRetryKind): Action {
      const entry = await flow.caseOf(importId);
      const to = kind === "scan" ? "scanning" : kind === "stage" ? "staging" : "install_queued";
      flow.assertMove(entry, to, kind);
      const counted: ImportCase = { ...entry, record: { ...entry.record, retry_count: entry.record.retry_count + 1 } };
      await store.receipt("skill.import.retried", { import_id: importId, details: { retry_kind: kind, attempt: counted.record.retry_count } });
      let result: { entry: ImportCase; receiptId: string | undefined };
      if (kind === "install") {
        // install_failed → install_queued is the retry edge; installPrivately moves it there.
        const response = await installPrivately(counted, true);
        result = { entry: await flow.caseOf(importId), receiptId: response.receipt_id };
      } else {
        const moved = await store.move(counted, to, `retry of ${kind}`);
        result = kind === "scan" ? await flow.runScan(moved) : await flow.runStage(moved);
      }
      const failedAgain = ["scan_failed", "stage_failed", "install_failed"].includes(result.entry.record.stage_state);
      if (failedAgain) {
        result.entry = { ...result.entry, failed_retries: { ...result.entry.failed_retries, [kind]: result.entry.failed_retries[kind] + 1 } };
        await store.writeCase(result.entry);
      }
      return { import_record: result.entry.record, ...(result.receiptId === undefined ? {} : { receipt_id: result.receiptId }), schema_version: 1 };
    },

    /** §0C.20 trigger test: would lookup pick this import (or installed ability) for this text? */
    async triggerTest(request: SkillTriggerTestRequest): Promise<SkillTriggerTestResponse> {
      const { snapshot } = await deps.abilities.snapshot();
      let candidate: AbilityAvailabilityEntry;
      if (request.import_id !== undefined) {
        const entry = await flow.caseOf(request.import_id);
        if (entry.frontmatter === undefined)
          throw new AppError("INVALID_SKILL_IMPORT_TRANSITION", "This import has no scanned skill to test yet; scan it first.");
        candidate = candidateEntry(`imported.${entry.frontmatter.name}`, entry.frontmatter);
      } else {
        const found = snapshot.abilities.find((ability) => ability.ability_id === request.ability_id);
        if (found === undefined) throw new AppError("ABILITY_NOT_FOUND", "No installed ability with this id.");
        candidate = found;
      }
      const matches = await deps.abilities.lookupWith(candidate, {
        user_query: request.trigger_text.slice(0, 500),
        install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
        include_private_owned_by_user: true,
        ...(request.project_id === undefined ? {} : { project_id: request.project_id.slice(0, 120) }),
        schema_version: 1,
      });
      const mine = matches.find((match) => match.ability_id === candidate.ability_id);
      const top = matches[0];
      const matched = mine !== undefined && top?.ability_id === candidate.ability_id && mine.score > 0;
      const asked = words(request.trigger_text);
      const reasons = candidate.trigger_phrases
        .map((trigger) => ({ trigger, shared: [...words(trigger)].filter((word) => asked.has(word)) }))
        .filter((hit) => hit.shared.length > 0)
        .sort((a, b) => b.shared.length - a.shared.length)
        .slice(0, 5)
        .map((hit) => `shares "${hit.shared.join('", "')}" with the trigger "${hit.trigger}"`.slice(0, 240));
      const rejection: string[] = [];
      if (mine === undefined) rejection.push("no trigger, title or family word of this skill is in the text");
      else if (!matched && top !== undefined)
        rejection.push(
          `"${(snapshot.abilities.find((ability) => ability.ability_id === top.ability_id)?.title ?? top.ability_id).slice(0, 120)}" ranks above it`,
        );
      if (candidate.negative_triggers.some((negative) => request.trigger_text.toLowerCase().includes(negative.toLowerCase())))
        rejection.push("the text contains one of its negative triggers");
      const receiptId = await store.receipt("skill.import.trigger_tested", {
        ...(request.import_id === undefined ? {} : { import_id: request.import_id }),
        ability_id: candidate.ability_id,
        details: { matched, score: mine?.score ?? 0 },
      });
      return {
        matched,
        ...(request.import_id === undefined ? { candidate_ability_id: candidate.ability_id } : { candidate_import_id: request.import_id }),
        ...(mine === undefined ? {} : { score: Math.min(1, Math.max(0, mine.score)) }),
        reasons,
        rejection_reasons: rejection,
        receipt_id: receiptId,
        schema_version: 1,
      };
    },
  };
}

export type ImportDecisions = ReturnType<typeof createImportDecisions>;
