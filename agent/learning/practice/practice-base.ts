import { z } from "zod";
import type { PracticeTarget } from "../../../shared/learning/sessions/practice";
import type { AbilityRegistry, InstalledAbility } from "../../abilities/ability-registry";
import { AppError } from "../../errors/app-error";
import type { RunSpecSource } from "../../execution/runs/run-spec";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { ProposalService } from "../proposals/proposal-service";
import type { PracticePlan } from "./practice-driver";
import { StoredCheckpointsSchema, StoredFlowSchema, parseStoredJson } from "../../../shared/execution/stored-skill-files";
import { DraftFiles, INSTALLED_FROM_DRAFT } from "../../../shared/skills/skill-folder";

/** What a practice starts from: the plan it plays, and the files a repaired proposal is made of. */
export interface PracticeBase {
  plan: PracticePlan;
  /** The skill's draft files by name (SKILL.md, capability-manifest.json, trigger-tests.json, …). */
  files: Record<string, string>;
  /** The installed skill practised, when it is one (the proposal then improves it). */
  ability: InstalledAbility | undefined;
  /** The checkpoints as stored (every field the compiler wrote), to write back with repairs. */
  storedCheckpoints: Array<Record<string, unknown> & { checkpoint_id: string }>;
}

const ParametersSchema = z.array(z.object({ name: z.string().min(1).max(80), type_hint: z.string().max(40).default("text") }).passthrough());

export interface PracticeBaseDeps {
  memory: MemoryStore;
  registry: Pick<AbilityRegistry, "get">;
  specs: RunSpecSource;
  proposals: Pick<ProposalService, "draftFiles">;
}

/**
 * Reads what to practise (issue #16): an installed skill — its flow, checkpoints and parameters as a
 * run reads them, its SKILL.md, and the rest of the files of the proposal it was installed from —
 * or a draft proposal's current revision. Coded errors when there is nothing to play.
 */
export async function readPracticeBase(deps: PracticeBaseDeps, target: PracticeTarget): Promise<PracticeBase> {
  if ("ability_id" in target) {
    const { spec, plan } = await deps.specs.resolve(target.ability_id);
    const ability = deps.registry.get(target.ability_id);
    if (plan === undefined || ability === undefined) {
      throw new AppError("ABILITY_NOT_FOUND", `That skill cannot be practised: ${spec.not_runnable_reason ?? "it has no recorded flow"}.`);
    }
    const folder = MemoryPaths.installedSkill(ability.skill_name);
    const source = ability.proposal_id === undefined ? {} : await deps.proposals.draftFiles(ability.proposal_id).catch(() => ({}) as Record<string, string>);
    const installed: Record<string, string> = {};
    for (const [name, file] of INSTALLED_FROM_DRAFT) {
      const text = await deps.memory.readText(`${folder}/${file}`);
      if (text !== undefined) installed[name] = text;
    }
    const files = { ...source, ...installed };
    if (files[DraftFiles.manifest] === undefined || files[DraftFiles.skill] === undefined) {
      throw new AppError(
        "ABILITY_NOT_FOUND",
        "That skill cannot be practised: the files it was installed from are missing; improve it by demonstration instead.",
      );
    }
    return {
      plan: { flow: plan.flow, checkpoints: plan.checkpoints, parameters: plan.parameters },
      files,
      ability,
      storedCheckpoints: parseStoredJson(files[DraftFiles.checkpoints], StoredCheckpointsSchema) ?? [],
    };
  }
  const files = await deps.proposals.draftFiles(target.proposal_id);
  const flow = parseStoredJson(files[DraftFiles.flow], StoredFlowSchema);
  if (flow === undefined) throw new AppError("PROPOSAL_NOT_FOUND", "That proposal has no recorded flow to practise.");
  const stored = parseStoredJson(files[DraftFiles.checkpoints], StoredCheckpointsSchema) ?? [];
  const parameters = (parseStoredJson(files[DraftFiles.parameters], ParametersSchema) ?? []).map(({ name, type_hint }) => ({
    name,
    type_hint: type_hint as PracticePlan["parameters"][number]["type_hint"],
  }));
  const checkpoints = stored.map(({ checkpoint_id, goal, success_condition, step_ids, verification }) => ({
    checkpoint_id,
    goal,
    success_condition,
    step_ids,
    ...(verification === undefined
      ? {}
      : { verification: { by: verification.by, ...(verification.reason === undefined ? {} : { reason: verification.reason }) } }),
  }));
  return { plan: { flow, checkpoints, parameters }, files, ability: undefined, storedCheckpoints: stored };
}
