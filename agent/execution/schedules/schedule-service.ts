import { randomUUID } from "node:crypto";
import { StartRunRequestSchema, TERMINAL_RUN_STATES, type AbilityRunSpec, type RunInputValuesSchema } from "../../../shared/execution/run-contract";
import type { CreateRunScheduleRequest, RunSchedule, SchedulePause, SchedulePauseCode } from "../../../shared/execution/run-schedules";
import type { z } from "zod";
import type { AbilityRegistry, InstalledAbility } from "../../abilities/ability-registry";
import type { Clock } from "../../common/clock";
import { AppError, isAppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { validateRunRequest } from "../runs/run-request";
import type { RunService } from "../runs/run-service";
import type { RunSpecSource } from "../runs/run-spec";
import { nextDueAfter } from "./next-due";
import { openScheduleStore, type ScheduleStore } from "./schedule-store";

export interface ScheduleServiceDeps {
  memory: MemoryStore;
  clock: Clock;
  registry: Pick<AbilityRegistry, "get">;
  specs: RunSpecSource;
  runs: Pick<RunService, "get">;
}

export interface ScheduleService {
  /** The schedules on disk, read on first use (after start-up, by the scheduler's first tick): never on the way to ready. */
  store(): Promise<ScheduleStore>;
  create(request: CreateRunScheduleRequest): Promise<RunSchedule>;
  /** Every schedule (or one skill's), oldest first, each with its last run's outcome as the run has it now. */
  list(filter: { ability_id?: string | undefined }): Promise<RunSchedule[]>;
  get(scheduleId: string): Promise<RunSchedule>;
  pause(scheduleId: string): Promise<RunSchedule>;
  /** Resumes a paused schedule at the skill as it is now (a new version is accepted); refused while the skill cannot run unattended. */
  resume(scheduleId: string): Promise<RunSchedule>;
  delete(scheduleId: string): Promise<void>;
  /** Pauses every active schedule whose skill was deleted, deactivated or changed version, saying why. */
  reconcile(): Promise<void>;
}

/** The version a schedule is bound to: the SKILL.md's `version`, else the proposal (or import) it was installed from. */
export function skillVersionOf(ability: InstalledAbility): string {
  return ability.skill_version ?? ability.proposal_id ?? ability.import_id ?? "unversioned";
}

/** Why the skill, as it is now, cannot run on a schedule; undefined when it can. */
function unschedulable(spec: AbilityRunSpec): AppError | undefined {
  if (!spec.runnable)
    return new AppError("ABILITY_NOT_RUNNABLE", `"${spec.title}" cannot run: ${spec.not_runnable_reason ?? "it has no recorded flow"}.`.slice(0, 240));
  const secrets = spec.inputs.filter((input) => input.secret);
  if (secrets.length === 0) return undefined;
  return new AppError(
    "ABILITY_NOT_SCHEDULABLE",
    `"${spec.title}" needs a secret input (${secrets.map((input) => input.label).join(", ")}); secrets are never stored, so it cannot run on a schedule. Run it yourself instead.`.slice(
      0,
      400,
    ),
  );
}

/** Checks inputs against the run-spec exactly as a run would (names, required, types); no value is quoted. */
function checkInputs(spec: AbilityRunSpec, abilityId: string, inputs: z.infer<typeof RunInputValuesSchema>, where: RunSchedule["where"]): void {
  validateRunRequest(StartRunRequestSchema.parse({ ability_id: abilityId, inputs, where, caller: "schedule", schema_version: 1 }), spec);
}

function pauseOf(code: SchedulePauseCode, message: string, at: string): SchedulePause {
  return { code, message: message.slice(0, 400), paused_at: at };
}

/** Why an active schedule must pause now that its skill is as the registry says; undefined when it may go on. */
function driftOf(schedule: RunSchedule, ability: InstalledAbility | undefined, at: string): SchedulePause | undefined {
  const title = `“${schedule.ability_title}”`;
  if (ability === undefined)
    return pauseOf(
      "skill_deleted",
      `${title} was deleted, so this schedule cannot run. Delete the schedule (or resume it if the skill is installed again).`,
      at,
    );
  if (ability.quarantined || !ability.enabled)
    return pauseOf(
      "skill_deactivated",
      `${title} was ${ability.quarantined ? "quarantined" : "deactivated"}; ${ability.quarantined ? "unquarantine" : "activate"} it, then resume this schedule.`,
      at,
    );
  const version = skillVersionOf(ability);
  if (version !== schedule.skill_version)
    return pauseOf(
      "skill_version_changed",
      `${title} changed to version ${version} (this schedule was made for ${schedule.skill_version}); check it, then resume to run the new version.`,
      at,
    );
  return undefined;
}

/**
 * The person's schedules (issue #33): made from a skill's run-spec (only a runnable skill with no
 * secret input), kept under ELNOR_MEMORY, paused by the person or by a change of their skill, and
 * resumed only by the person. The scheduler (scheduler.ts) runs them; this service never does.
 */
export function createScheduleService(deps: ScheduleServiceDeps): ScheduleService {
  let opened: Promise<ScheduleStore> | undefined;
  const storeOf = () => (opened ??= openScheduleStore(deps.memory));
  const now = () => deps.clock.now();
  const find = (store: ScheduleStore, scheduleId: string): RunSchedule => {
    const schedule = store.get(scheduleId);
    if (schedule === undefined) throw new AppError("SCHEDULE_NOT_FOUND", `No schedule ${scheduleId.slice(0, 80)}.`);
    return schedule;
  };
  const reconcile = async () => {
    const store = await storeOf();
    const at = now().toISOString();
    const paused: RunSchedule[] = [];
    for (const schedule of store.all()) {
      if (schedule.state !== "active") continue;
      const pause = driftOf(schedule, deps.registry.get(schedule.ability_id), at);
      if (pause === undefined) continue;
      const { next_due_at: _gone, ...rest } = schedule;
      paused.push({ ...rest, state: "paused", pause, updated_at: at });
    }
    await store.putMany(paused, "paused", at);
  };
  const current = async (scheduleId: string) => {
    await reconcile();
    return withRunOutcome(deps.runs, find(await storeOf(), scheduleId));
  };
  return {
    store: storeOf,
    create: async (request) => createSchedule(deps, await storeOf(), request),
    async list({ ability_id }) {
      await reconcile();
      const chosen = (await storeOf()).all().filter((schedule) => ability_id === undefined || schedule.ability_id === ability_id);
      return Promise.all(chosen.sort((a, b) => a.created_at.localeCompare(b.created_at)).map((schedule) => withRunOutcome(deps.runs, schedule)));
    },
    get: current,
    async pause(scheduleId) {
      await reconcile();
      const store = await storeOf();
      const schedule = find(store, scheduleId);
      if (schedule.state === "active") {
        const at = now().toISOString();
        const { next_due_at: _gone, ...rest } = schedule;
        await store.put({ ...rest, state: "paused", pause: pauseOf("paused_by_person", "You paused this schedule.", at), updated_at: at }, "paused");
      }
      return current(scheduleId);
    },
    async resume(scheduleId) {
      await reconcile();
      const store = await storeOf();
      const schedule = find(store, scheduleId);
      if (schedule.state === "paused") await store.put(await resumed(deps, schedule), "resumed");
      return current(scheduleId);
    },
    async delete(scheduleId) {
      const store = await storeOf();
      await store.remove(find(store, scheduleId), now().toISOString());
    },
    reconcile,
  };
}

async function createSchedule(deps: ScheduleServiceDeps, store: ScheduleStore, request: CreateRunScheduleRequest): Promise<RunSchedule> {
  const { spec } = await deps.specs.resolve(request.ability_id);
  const ability = deps.registry.get(request.ability_id);
  const refusal =
    ability === undefined ? new AppError("ABILITY_NOT_RUNNABLE", "Only a skill installed by this agent can run on a schedule.") : unschedulable(spec);
  if (refusal !== undefined || ability === undefined) throw refusal;
  checkInputs(spec, request.ability_id, request.inputs, request.where);
  const at = deps.clock.now();
  const schedule: RunSchedule = {
    schedule_id: randomUUID(),
    ability_id: spec.ability_id,
    ability_title: spec.title,
    skill_version: skillVersionOf(ability),
    rule: request.rule,
    time_zone: request.time_zone,
    inputs: request.inputs,
    where: request.where,
    state: "active",
    next_due_at: new Date(nextDueAfter(request.rule, request.time_zone, at.getTime(), at.getTime())).toISOString(),
    anchor_at: at.toISOString(),
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
    schema_version: 1,
  };
  await store.put(schedule, "created");
  return schedule;
}

/** The schedule active again at its skill as it is now, or the reason it cannot be (the schedule stays paused). */
async function resumed(deps: ScheduleServiceDeps, schedule: RunSchedule): Promise<RunSchedule> {
  const ability = deps.registry.get(schedule.ability_id);
  if (ability === undefined) throw new AppError("ABILITY_NOT_FOUND", `“${schedule.ability_title}” is not installed any more; delete this schedule.`);
  const { spec } = await deps.specs.resolve(schedule.ability_id);
  const refusal = unschedulable(spec);
  if (refusal !== undefined) throw refusal;
  checkInputs(spec, schedule.ability_id, schedule.inputs, schedule.where);
  const at = deps.clock.now();
  const { pause: _resumed, ...rest } = schedule;
  return {
    ...rest,
    state: "active",
    skill_version: skillVersionOf(ability),
    ability_title: spec.title,
    anchor_at: at.toISOString(),
    next_due_at: new Date(nextDueAfter(schedule.rule, schedule.time_zone, at.getTime(), at.getTime())).toISOString(),
    updated_at: at.toISOString(),
  };
}

/** The last run's outcome as the run has it now (its record is the truth; a purged run keeps what the schedule noted). */
export async function withRunOutcome(runs: Pick<RunService, "get">, schedule: RunSchedule): Promise<RunSchedule> {
  const last = schedule.last_run;
  if (last?.dispatch_id === undefined || (last.outcome !== "not_started" && TERMINAL_RUN_STATES.has(last.outcome))) return schedule;
  try {
    const run = await runs.get(last.dispatch_id);
    const { failure_code: _old, ...kept } = last;
    return { ...schedule, last_run: { ...kept, outcome: run.state, ...(run.failure === undefined ? {} : { failure_code: run.failure.code.slice(0, 80) }) } };
  } catch (error) {
    if (isAppError(error) && error.code === "RUN_NOT_FOUND") return schedule;
    throw error;
  }
}
