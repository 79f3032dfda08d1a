import { z } from "zod";
import { RunScheduleSchema, type RunSchedule } from "../../../shared/execution/run-schedules";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";

/** `system/execution/schedules/current.json`: every schedule as it is now. */
const ScheduleViewSchema = z.object({ schedules: z.array(RunScheduleSchema), schema_version: z.literal(1) });

/** What the log says happened to a schedule. */
export const ScheduleLogEventSchema = z.enum(["created", "fired", "paused", "resumed", "deleted", "updated"]);
export type ScheduleLogEvent = z.infer<typeof ScheduleLogEventSchema>;

/**
 * One line of `system/execution/schedules/log.jsonl`: the schedule as it became, with the names of
 * its inputs only. Input values live in the current view alone, so deleting a schedule forgets them.
 */
const ScheduleLogLineSchema = z.object({
  at: z.string().datetime(),
  event: ScheduleLogEventSchema,
  schedule: RunScheduleSchema.omit({ inputs: true }).extend({ input_names: z.array(z.string().max(80)) }),
});

export interface ScheduleStore {
  all(): RunSchedule[];
  get(scheduleId: string): RunSchedule | undefined;
  /** Replaces the schedule in the current view (atomically) and logs what happened, behind every earlier write. */
  put(schedule: RunSchedule, event: ScheduleLogEvent): Promise<void>;
  /** Several schedules in one write of the view (a reconcile that pauses many). */
  putMany(schedules: readonly RunSchedule[], event: ScheduleLogEvent, at: string): Promise<void>;
  remove(schedule: RunSchedule, at: string): Promise<void>;
}

/**
 * Schedules on disk (issue #33), read once at start-up: the current view is the whole list,
 * replaced atomically through the memory store; the log is append-only. Writes are chained so the
 * view on disk is always the one of the last logged change.
 */
export async function openScheduleStore(memory: MemoryStore): Promise<ScheduleStore> {
  const view = await memory.readJson(MemoryPaths.schedulesCurrent, ScheduleViewSchema);
  const schedules = new Map((view?.schedules ?? []).map((schedule) => [schedule.schedule_id, schedule]));
  let chain: Promise<void> = Promise.resolve();

  const commit = (event: ScheduleLogEvent, changed: readonly RunSchedule[], at: string, change: () => void): Promise<void> => {
    const next = chain.then(async () => {
      const before = new Map(schedules);
      change();
      try {
        await memory.writeJson(MemoryPaths.schedulesCurrent, { schedules: [...schedules.values()], schema_version: 1 });
      } catch (error) {
        // Not written: the schedules stay as the view on disk has them.
        schedules.clear();
        for (const [id, kept] of before) schedules.set(id, kept);
        throw error;
      }
      await memory.appendMany(
        MemoryPaths.scheduleLog,
        changed.map(({ inputs, ...rest }) => ScheduleLogLineSchema.parse({ at, event, schedule: { ...rest, input_names: Object.keys(inputs).sort() } })),
      );
    });
    chain = next.catch(() => undefined);
    return next;
  };

  return {
    all: () => [...schedules.values()],
    get: (scheduleId) => schedules.get(scheduleId),
    put: (schedule, event) => {
      const parsed = RunScheduleSchema.parse(schedule);
      return commit(event, [parsed], parsed.updated_at, () => schedules.set(parsed.schedule_id, parsed));
    },
    putMany: (changed, event, at) => {
      if (changed.length === 0) return Promise.resolve();
      const parsed = changed.map((schedule) => RunScheduleSchema.parse(schedule));
      return commit(event, parsed, at, () => {
        for (const schedule of parsed) schedules.set(schedule.schedule_id, schedule);
      });
    },
    remove: (schedule, at) => commit("deleted", [schedule], at, () => schedules.delete(schedule.schedule_id)),
  };
}
