import { assertNever } from "../../shared/common/assert-never";
import type { AbilityRunSpec } from "../../shared/execution/run-contract";
import type { RunSchedule, ScheduleRule, Weekday } from "../../shared/execution/run-schedules";
import { describeFailure } from "../common/failure-text";
import { formatTime } from "../common/learn-labels";
import { report, type LearnDeps } from "../common/learn-deps";
import { runFormProblems, runInputValues } from "../runs/run-view";

export type ScheduleKind = ScheduleRule["kind"];

/** Why this skill cannot run on a schedule, in the person's words; undefined when it can. */
export function notSchedulableReason(spec: AbilityRunSpec): string | undefined {
  if (!spec.runnable) return `It cannot run: ${spec.not_runnable_reason ?? "the agent did not say why"}.`;
  const secrets = spec.inputs.filter((input) => input.secret).map((input) => `“${input.label}”`);
  if (secrets.length === 0) return undefined;
  return `${secrets.join(", ")} ${secrets.length === 1 ? "is a secret input" : "are secret inputs"}: secrets are never stored, so this skill cannot run on a schedule. Run it yourself instead.`;
}

/** The person's time zone, as the browser knows it (the agent reads wall-clock schedules in it). */
export const localTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** The "Run on a schedule" form of the open skill. */
export class ScheduleDraft {
  kind = $state<ScheduleKind>("daily");
  time = $state("09:00");
  weekday = $state<Weekday>("monday");
  hours = $state(6);
  where = $state<"managed" | "user_tab">("managed");
  values = $state<Record<string, string>>({});

  rule(): ScheduleRule {
    switch (this.kind) {
      case "daily":
        return { kind: "daily", time: this.time };
      case "weekly":
        return { kind: "weekly", weekday: this.weekday, time: this.time };
      case "every_hours":
        return { kind: "every_hours", hours: Math.trunc(Number(this.hours)) };
      default:
        return assertNever(this.kind);
    }
  }

  /** What must be fixed before the schedule can be added, in words; empty when it can. */
  problems(spec: AbilityRunSpec): string[] {
    // Secret inputs are never offered for a schedule (the agent refuses such a skill and says why).
    const problems = runFormProblems({ ...spec, inputs: spec.inputs.filter((input) => !input.secret) }, this.values);
    if (this.kind !== "every_hours" && !/^([01]\d|2[0-3]):[0-5]\d$/.test(this.time)) problems.push("Choose a time.");
    const hours = Number(this.hours);
    if (this.kind === "every_hours" && !(Number.isInteger(hours) && hours >= 1 && hours <= 168)) problems.push("Every 1 to 168 hours.");
    return problems;
  }
}

/**
 * Issue #33, in Skills: each skill's schedules (read once for all skills, then per change), the
 * form of the one skill whose "Run on a schedule" is open, and Pause / Resume / Delete.
 */
export class SkillSchedulesState {
  schedules = $state.raw<readonly RunSchedule[]>([]);
  status = $state<"idle" | "loading" | "ready" | "error">("idle");
  /** The skill whose schedule section is open. */
  openFor = $state<string | null>(null);
  draft = $state(new ScheduleDraft());
  busy = $state(false);
  error = $state<string | null>(null);
  message = $state<string | null>(null);
  readonly timeZone: string;
  readonly #deps: LearnDeps;

  constructor(deps: LearnDeps, timeZone = localTimeZone()) {
    this.#deps = deps;
    this.timeZone = timeZone;
  }

  of(abilityId: string): RunSchedule[] {
    return this.schedules.filter((schedule) => schedule.ability_id === abilityId);
  }

  /** Reads every schedule once (Skills shows each skill's count); later changes read them again. */
  ensureLoaded(): void {
    if (this.status === "idle") void this.load();
  }

  async load(): Promise<void> {
    this.status = this.status === "ready" ? "ready" : "loading";
    try {
      this.schedules = (await this.#deps.client.listSchedules()).schedules;
      this.status = "ready";
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
      this.status = "error";
    }
  }

  toggle(abilityId: string): void {
    this.error = null;
    this.message = null;
    if (this.openFor === abilityId) {
      this.openFor = null;
      return;
    }
    this.openFor = abilityId;
    this.draft = new ScheduleDraft();
    void this.load();
  }

  async create(spec: AbilityRunSpec): Promise<void> {
    const problems = this.draft.problems(spec);
    if (problems.length > 0) {
      this.error = problems.join(" ");
      return;
    }
    await this.#act(async () => {
      const { schedule } = await this.#deps.client.createSchedule({
        ability_id: spec.ability_id,
        rule: this.draft.rule(),
        time_zone: this.timeZone,
        inputs: runInputValues(spec, this.draft.values),
        where: this.draft.where,
        schema_version: 1,
      });
      this.draft = new ScheduleDraft();
      this.message = `Scheduled: “${spec.title}” runs next ${formatTime(schedule.next_due_at ?? schedule.created_at)}.`;
    });
  }

  pause = (scheduleId: string) => this.#act(() => this.#deps.client.pauseSchedule(scheduleId));
  resume = (scheduleId: string) => this.#act(() => this.#deps.client.resumeSchedule(scheduleId));
  remove = (scheduleId: string) => this.#act(() => this.#deps.client.deleteSchedule(scheduleId));

  /** One change at a time; the list is read again after it, whatever happened. */
  async #act(change: () => Promise<unknown>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.error = null;
    this.message = null;
    try {
      await change();
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      await this.load();
      this.busy = false;
    }
  }
}
