import { StartRunRequestSchema, TERMINAL_RUN_STATES } from "../../../shared/execution/run-contract";
import type { LastScheduledRun, RunSchedule } from "../../../shared/execution/run-schedules";
import type { Clock } from "../../common/clock";
import { isAppError } from "../../errors/app-error";
import type { RunService } from "../runs/run-service";
import { nextDueAfter } from "./next-due";
import { withRunOutcome, type ScheduleService } from "./schedule-service";

/** How often the scheduler looks for due schedules (and skills that changed under them). */
export const DEFAULT_SCHEDULE_TICK_MS = 30_000;

export interface SchedulerDeps {
  schedules: ScheduleService;
  runs: Pick<RunService, "start" | "get">;
  clock: Clock;
  tickMs?: number | undefined;
  logError?: ((fields: Record<string, unknown>, message: string) => void) | undefined;
}

export interface Scheduler {
  /** Runs what is due now (a first tick at once: what came due while the agent was down runs once), then every `tickMs`. */
  start(): void;
  /** Runs every schedule that is due at the clock's now, once; resolves when each was started or skipped. */
  tick(): Promise<void>;
  /** No more ticks; waits for the one under way. Runs already started are the run service's to stop. */
  stop(): Promise<void>;
}

/**
 * Issue #33: the agent runs a schedule when it is due, through the same run service (and so the
 * same executor, checkpoints, confirmations and receipts) as any run, marked `caller: "schedule"`.
 * A due schedule fires once, however many of its slots passed while the agent was down, and its
 * next slot is the first after now; a schedule whose last run is still going skips the slot.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  let timer: NodeJS.Timeout | undefined;
  let under: Promise<void> | undefined;
  let stopped = false;
  const tick = (): Promise<void> => {
    under ??= runDue(deps)
      .catch((error: unknown) => deps.logError?.({ err: error }, "the scheduler could not finish a tick; the next one tries again"))
      .finally(() => {
        under = undefined;
      });
    return under;
  };
  return {
    start() {
      stopped = false;
      void tick();
      timer = setInterval(() => {
        if (!stopped) void tick();
      }, deps.tickMs ?? DEFAULT_SCHEDULE_TICK_MS);
      timer.unref();
    },
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await under;
    },
  };
}

async function runDue({ schedules, runs, clock, logError }: SchedulerDeps): Promise<void> {
  await schedules.reconcile();
  const now = clock.now();
  await keepOutcomes(schedules, runs, now.toISOString());
  for (const schedule of (await schedules.store()).all()) {
    if (schedule.state !== "active" || schedule.next_due_at === undefined || Date.parse(schedule.next_due_at) > now.getTime()) continue;
    const next = new Date(nextDueAfter(schedule.rule, schedule.time_zone, now.getTime(), Date.parse(schedule.anchor_at))).toISOString();
    const last = schedule.last_run;
    // Never two runs of one schedule at once: a slot that comes while the last run is going is skipped.
    if (last?.dispatch_id !== undefined && last.outcome !== "not_started" && !TERMINAL_RUN_STATES.has(last.outcome)) {
      await settle(schedules, schedule.schedule_id, { next_due_at: next, updated_at: now.toISOString() }, "updated");
      continue;
    }
    const fired = await fire(runs, schedule, now.toISOString());
    if (fired.outcome === "not_started") logError?.({ schedule_id: schedule.schedule_id, code: fired.failure_code }, "a scheduled run could not start");
    await settle(schedules, schedule.schedule_id, { last_run: fired, next_due_at: next, updated_at: now.toISOString() }, "fired");
  }
  // A skill changed while a run was being started: the schedule pauses now rather than at the next tick.
  await schedules.reconcile();
}

/**
 * Writes what a tick learned onto the schedule as it is now: the person may have paused or
 * deleted it while its run was starting, and that stays (a paused schedule has no next run).
 */
async function settle(
  schedules: ScheduleService,
  scheduleId: string,
  change: Pick<RunSchedule, "updated_at"> & Partial<Pick<RunSchedule, "last_run" | "next_due_at">>,
  event: "fired" | "updated",
): Promise<void> {
  const latest = (await schedules.store()).get(scheduleId);
  if (latest === undefined) return;
  const { next_due_at: next, ...rest } = change;
  await (await schedules.store()).put({ ...latest, ...rest, ...(latest.state === "active" && next !== undefined ? { next_due_at: next } : {}) }, event);
}

/** Each last run still going is read again; once it is over its outcome is kept with the schedule (a purged run's record is gone). */
async function keepOutcomes(schedules: ScheduleService, runs: Pick<RunService, "get">, at: string): Promise<void> {
  for (const schedule of (await schedules.store()).all()) {
    const last = schedule.last_run;
    if (last?.dispatch_id === undefined || last.outcome === "not_started" || TERMINAL_RUN_STATES.has(last.outcome)) continue;
    const now = (await withRunOutcome(runs, schedule)).last_run;
    if (now !== undefined && (now.outcome !== last.outcome || now.failure_code !== last.failure_code))
      await settle(schedules, schedule.schedule_id, { last_run: now, updated_at: at }, "updated");
  }
}

/** Starts the schedule's run with its inputs; what the run service refused is noted, never thrown. */
async function fire(runs: Pick<RunService, "start">, schedule: RunSchedule, at: string): Promise<LastScheduledRun> {
  try {
    const run = await runs.start(
      StartRunRequestSchema.parse({ ability_id: schedule.ability_id, inputs: schedule.inputs, where: schedule.where, caller: "schedule", schema_version: 1 }),
    );
    return { dispatch_id: run.dispatch_id, at, outcome: run.state };
  } catch (error) {
    return { at, outcome: "not_started", failure_code: isAppError(error) ? error.code : "INTERNAL_ERROR" };
  }
}
