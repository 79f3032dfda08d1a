import type { z } from "zod";
import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import type { AbilityRunSpec, RunInputSpec } from "../../../shared/execution/run-contract";
import { TestPolicySchema } from "../../../shared/learning/sessions/test-policy";
import type { AbilityRegistry, InstalledAbility } from "../../abilities/ability-registry";
import type { AbilityService } from "../../abilities/ability-service";
import { AppError } from "../../errors/app-error";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import { parseSkillFrontmatter } from "../../../shared/skills/frontmatter";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { StoredCheckpointsSchema, StoredFlowSchema, StoredParametersSchema, parseStoredJson } from "../../../shared/execution/stored-skill-files";
import type { ExecutionCheckpoint, ExecutionParameter } from "../contract/executor-contract";
import { planExecution } from "../replay/flow-plan";
import { InstalledFiles } from "../../../shared/skills/skill-folder";

/** What a run hands the executor: the installed skill's flow, checkpoints and parameters. */
export interface RunPlan {
  ability: InstalledAbility;
  flow: RecorderFlow;
  checkpoints: ExecutionCheckpoint[];
  parameters: ExecutionParameter[];
}

export interface RunSpecSource {
  /** The run-spec of an ability, and the plan when it is runnable. ABILITY_NOT_FOUND when no ability has that id. */
  resolve(abilityId: string): Promise<{ spec: AbilityRunSpec; plan: RunPlan | undefined }>;
}

export interface RunSpecDeps {
  memory: MemoryStore;
  registry: Pick<AbilityRegistry, "get">;
  abilities: Pick<AbilityService, "snapshot">;
  /** Skills installed before the install saga kept checkpoints and parameters read them from their proposal's revision. */
  proposals: { draftFiles(proposalId: string): Promise<Record<string, string>> };
}

/** Hosts (with their port) the flow opens: the sites a run may touch without asking. */
export function sitesOf(flow: Pick<RecorderFlow, "steps">): string[] {
  const hosts = new Set<string>();
  for (const step of flow.steps) {
    if (step.type !== "navigate") continue;
    try {
      const url = new URL(step.url);
      if (url.protocol === "http:" || url.protocol === "https:") hosts.add(url.host);
    } catch {
      // A navigate step without a usable URL names no site; the executor reports the step itself.
    }
  }
  return [...hosts];
}

/** The steps the executor will ask the person about before doing them (its own plan decides, so the two never disagree). */
function confirmationStepsOf(flow: RecorderFlow): string[] {
  const policy = TestPolicySchema.parse({ policy_id: "00000000-0000-4000-8000-000000000000", mode: "live_read_safe_write", schema_version: 1 });
  return planExecution(flow, [], policy)
    .groups.filter((group) => group.consequence !== undefined)
    .map((group) => group.label.slice(0, 240));
}

/** Why an ability cannot be run now, in words a person reads; undefined when it can. */
function notRunnableReason(
  entry: AbilityAvailabilityEntry | undefined,
  ability: InstalledAbility | undefined,
  flow: RecorderFlow | undefined,
): string | undefined {
  if (ability === undefined) return "it is one of the assistant's own skills, not installed by this agent: it has no recorded flow to run";
  if (ability.quarantined) return `it is quarantined${ability.quarantine_reason === undefined ? "" : ` (${ability.quarantine_reason})`}; unquarantine it first`;
  if (!ability.enabled) return "it is deactivated; activate it first";
  if (flow === undefined) {
    return ability.source === "imported"
      ? "it was imported as a skill bundle and has no recorded flow: an assistant follows its SKILL.md instead"
      : "its recorded flow is missing or unreadable; improve the skill to record it again";
  }
  if (entry !== undefined && !entry.usable_now) return entry.reason_unusable ?? "it is not usable now";
  return undefined;
}

/** The installed skill's files a run needs, parsed (issue #21). */
interface SkillFiles {
  description: string;
  flow: RecorderFlow | undefined;
  checkpoints: z.infer<typeof StoredCheckpointsSchema>;
  parameters: z.infer<typeof StoredParametersSchema>;
}

async function readSkillFiles(deps: RunSpecDeps, ability: InstalledAbility): Promise<SkillFiles> {
  const folder = MemoryPaths.installedSkill(ability.skill_name);
  const [markdown, flowText, checkpointsText, parametersText] = await Promise.all(
    [InstalledFiles.skill, InstalledFiles.flow, InstalledFiles.checkpoints, InstalledFiles.parameters].map((file) => deps.memory.readText(`${folder}/${file}`)),
  );
  let files = { flow: flowText, checkpoints: checkpointsText, parameters: parametersText };
  // Installed before the saga kept checkpoints and parameters: the proposal revision it came from has them.
  if ((checkpointsText === undefined || parametersText === undefined) && ability.proposal_id !== undefined) {
    const draft = await deps.proposals.draftFiles(ability.proposal_id).catch(() => ({}) as Record<string, string>);
    files = {
      flow: flowText ?? draft["flow.recorder.json"],
      checkpoints: checkpointsText ?? draft["checkpoints.json"],
      parameters: parametersText ?? draft["parameters.json"],
    };
  }
  // Files written by the compiler (agent/learning/compiler): parsed here, at the boundary, before a run trusts them.
  return {
    description: (markdown === undefined ? undefined : parseSkillFrontmatter(markdown)?.description) ?? ability.title,
    flow: parseStoredJson(files.flow, StoredFlowSchema),
    checkpoints: parseStoredJson(files.checkpoints, StoredCheckpointsSchema) ?? [],
    parameters: parseStoredJson(files.parameters, StoredParametersSchema) ?? [],
  };
}

/** The run-spec the Run panel shows: inputs, sites, checkpoints, confirmation steps, and why it cannot run if it cannot. */
function runSpecOf(
  abilityId: string,
  entry: AbilityAvailabilityEntry | undefined,
  ability: InstalledAbility | undefined,
  files: SkillFiles | undefined,
  reason: string | undefined,
): AbilityRunSpec {
  const flow = files?.flow;
  const inputs: RunInputSpec[] = (files?.parameters ?? []).map((parameter) => ({
    name: parameter.name,
    label: (parameter.label || parameter.name).slice(0, 160),
    type: parameter.type_hint,
    secret: parameter.type_hint === "secret",
    // The flow types every input it has into the page: none can be left out.
    required: true,
  }));
  return {
    ability_id: abilityId,
    title: (ability?.title ?? entry?.title ?? abilityId).slice(0, 160),
    description: (files?.description ?? entry?.title ?? "").slice(0, 500),
    runnable: reason === undefined,
    ...(reason === undefined ? {} : { not_runnable_reason: reason.slice(0, 240) }),
    inputs,
    sites: flow === undefined ? [] : sitesOf(flow).map((site) => site.slice(0, 120)),
    checkpoints: (files?.checkpoints ?? []).map((checkpoint) => ({
      checkpoint_id: checkpoint.checkpoint_id,
      goal: checkpoint.goal.slice(0, 240),
      verified_by: checkpoint.verification?.by ?? "page",
    })),
    ...(entry?.checkpoint_health === undefined ? {} : { checkpoint_health: entry.checkpoint_health }),
    confirmation_steps: flow === undefined ? [] : confirmationStepsOf(flow),
    schema_version: 1,
  };
}

/** What the executor is handed for a runnable ability. */
function runPlanOf(ability: InstalledAbility, flow: RecorderFlow, files: SkillFiles): RunPlan {
  return {
    ability,
    flow,
    checkpoints: files.checkpoints.map(({ checkpoint_id, goal, success_condition, step_ids, verification, sign_in }) => ({
      checkpoint_id,
      goal,
      success_condition,
      step_ids,
      ...(verification === undefined
        ? {}
        : { verification: { by: verification.by, ...(verification.reason === undefined ? {} : { reason: verification.reason }) } }),
      ...(sign_in === undefined ? {} : { sign_in }),
    })),
    parameters: files.parameters.map(({ name, type_hint }) => ({ name, type_hint })),
  };
}

/**
 * `GET /api/abilities/:abilityId/run-spec` (issue #21): what the installed skill needs to run —
 * its inputs from `tests/parameters.json`, its checkpoints from `tests/checkpoints.json`, the sites
 * its flow opens, the steps that wait for the person's confirmation — and whether it can run now.
 */
export function createRunSpecSource(deps: RunSpecDeps): RunSpecSource {
  return {
    async resolve(abilityId) {
      const entry = (await deps.abilities.snapshot()).snapshot.abilities.find((candidate) => candidate.ability_id === abilityId);
      const ability = deps.registry.get(abilityId);
      if (entry === undefined && ability === undefined) throw new AppError("ABILITY_NOT_FOUND", `No ability ${abilityId}.`);
      const files = ability === undefined ? undefined : await readSkillFiles(deps, ability);
      const flow = files?.flow;
      const reason = notRunnableReason(entry, ability, flow);
      const spec = runSpecOf(abilityId, entry, ability, files, reason);
      const plan = reason === undefined && ability !== undefined && flow !== undefined && files !== undefined ? runPlanOf(ability, flow, files) : undefined;
      return { spec, plan };
    },
  };
}
