import { z } from "zod";
import { assertNever } from "../common/assert-never";
import { ABILITY_ID_PATTERN, DISPATCH_ID_PATTERN, RunInputValuesSchema, RunStateSchema, RunWhereSchema } from "./run-contract";

/**
 * Issue #33 "Runs on a schedule": the person asks the agent to run one of their skills when it is
 * due — daily at a time, weekly on a day at a time, or every N hours — in their own time zone,
 * with the non-secret inputs they chose. The agent runs it through the same run service and
 * executor as any run (same checkpoints, receipts, confirmations), catches up once after it was
 * down, and pauses a schedule whose skill changed version or was deactivated or deleted.
 *
 * Routes (behind the pairing token, documented in the OpenAPI description):
 * - `POST   /api/schedules`                      create ({@link CreateRunScheduleRequest}) → 201 {@link RunScheduleResponse}
 * - `GET    /api/schedules`                      every schedule, or one skill's (`ability_id`) ({@link RunScheduleListResponse})
 * - `GET    /api/schedules/:scheduleId`          one schedule ({@link RunScheduleResponse})
 * - `POST   /api/schedules/:scheduleId/pause`    the person pauses it ({@link PauseRunScheduleRequest})
 * - `POST   /api/schedules/:scheduleId/resume`   the person resumes it, accepting the skill as it is now
 * - `DELETE /api/schedules/:scheduleId`          gone, with its input values
 *
 * Only the person creates or changes schedules; the MCP server lists them and nothing else.
 */

/** A wall-clock time, 24-hour `HH:MM`. */
export const ScheduleTimeSchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "a time as HH:MM (24-hour), for example 07:30");

export const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export const WeekdaySchema = z.enum(WEEKDAYS);
export type Weekday = z.infer<typeof WeekdaySchema>;

/**
 * Zones already found known. A pure memo, not state: building an `Intl.DateTimeFormat` costs about
 * half a millisecond, and every schedule read at start-up names a zone (most the same one).
 */
const knownZones = new Set<string>();

/** True when the runtime knows this IANA time zone (`Europe/Berlin`, `America/New_York`, `UTC`). */
export function isKnownTimeZone(zone: string): boolean {
  if (knownZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    return false;
  }
  if (knownZones.size < 1_000) knownZones.add(zone);
  return true;
}

/** The person's IANA time zone: wall-clock rules (daily, weekly) follow its daylight-saving changes. */
export const TimeZoneSchema = z.string().min(1).max(64).refine(isKnownTimeZone, "an IANA time zone, for example Europe/Berlin");

/**
 * When a schedule is due. `daily`/`weekly` are wall-clock times in the schedule's time zone (a time
 * a spring-forward skips runs when the clock shows it an hour later; a time a fall-back repeats
 * runs once, the first time). `every_hours` counts hours as they pass from when the schedule was
 * created or last resumed, whatever the wall clock does.
 */
export const ScheduleRuleSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("daily"), time: ScheduleTimeSchema }).strict(),
  z.object({ kind: z.literal("weekly"), weekday: WeekdaySchema, time: ScheduleTimeSchema }).strict(),
  z.object({ kind: z.literal("every_hours"), hours: z.number().int().min(1).max(168) }).strict(),
]);
export type ScheduleRule = z.infer<typeof ScheduleRuleSchema>;

/** Why a schedule does not run: the person paused it, or its skill is not the one it was made for any more. */
export const SchedulePauseCodeSchema = z.enum(["paused_by_person", "skill_version_changed", "skill_deactivated", "skill_deleted", "skill_not_schedulable"]);
export type SchedulePauseCode = z.infer<typeof SchedulePauseCodeSchema>;

export const SchedulePauseSchema = z.object({
  code: SchedulePauseCodeSchema,
  /** In the person's words: what happened and how to resume. */
  message: z.string().max(400),
  paused_at: z.string().datetime(),
});
export type SchedulePause = z.infer<typeof SchedulePauseSchema>;

/**
 * The schedule's last run. `not_started`: it was due but the run could not start (`failure_code`
 * says why: three runs going, no extension for `user_tab`…); otherwise the run's own state, read
 * from the run when a schedule is returned.
 */
export const ScheduledRunOutcomeSchema = z.union([RunStateSchema, z.literal("not_started")]);
export type ScheduledRunOutcome = z.infer<typeof ScheduledRunOutcomeSchema>;

export const LastScheduledRunSchema = z.object({
  dispatch_id: z.string().regex(DISPATCH_ID_PATTERN).optional(),
  /** When the schedule fired. */
  at: z.string().datetime(),
  outcome: ScheduledRunOutcomeSchema,
  failure_code: z.string().max(80).optional(),
});
export type LastScheduledRun = z.infer<typeof LastScheduledRunSchema>;

/**
 * A schedule as `system/execution/schedules/current.json` keeps it and every route returns it.
 * `inputs` are the non-secret values the person chose for it (never a secret: a skill with a
 * secret input cannot be scheduled); they are never logged, and go when the schedule is deleted.
 */
export const RunScheduleSchema = z.object({
  schedule_id: z.string().uuid(),
  ability_id: z.string().regex(ABILITY_ID_PATTERN),
  ability_title: z.string().max(160),
  /** The skill's version the person scheduled (its SKILL.md `version`, else the proposal it was installed from). */
  skill_version: z.string().max(80),
  rule: ScheduleRuleSchema,
  time_zone: TimeZoneSchema,
  inputs: RunInputValuesSchema,
  where: RunWhereSchema,
  state: z.enum(["active", "paused"]),
  pause: SchedulePauseSchema.optional(),
  /** When an active schedule runs next; absent while paused. */
  next_due_at: z.string().datetime().optional(),
  last_run: LastScheduledRunSchema.optional(),
  /** Where `every_hours` counts from: its creation or its last resume. */
  anchor_at: z.string().datetime(),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
export type RunSchedule = z.infer<typeof RunScheduleSchema>;

/** `POST /api/schedules` */
export const CreateRunScheduleRequestSchema = z
  .object({
    ability_id: z.string().regex(ABILITY_ID_PATTERN),
    rule: ScheduleRuleSchema,
    time_zone: TimeZoneSchema,
    inputs: RunInputValuesSchema.default({}),
    where: RunWhereSchema.default("managed"),
    schema_version: z.literal(1),
  })
  .strict();
export type CreateRunScheduleRequest = z.infer<typeof CreateRunScheduleRequestSchema>;

/** `POST /api/schedules/:scheduleId/pause` */
export const PauseRunScheduleRequestSchema = z.object({ schema_version: z.literal(1) }).strict();
/** `POST /api/schedules/:scheduleId/resume` */
export const ResumeRunScheduleRequestSchema = z.object({ schema_version: z.literal(1) }).strict();

export const RunScheduleResponseSchema = z.object({ schedule: RunScheduleSchema, schema_version: z.literal(1) });
export type RunScheduleResponse = z.infer<typeof RunScheduleResponseSchema>;

export const RunScheduleListResponseSchema = z.object({ schedules: z.array(RunScheduleSchema), schema_version: z.literal(1) });
export type RunScheduleListResponse = z.infer<typeof RunScheduleListResponseSchema>;

/** `DELETE /api/schedules/:scheduleId` */
export const DeleteRunScheduleResponseSchema = z.object({ schedule_id: z.string().uuid(), deleted: z.literal(true), schema_version: z.literal(1) });

/** When a schedule runs, in words a person reads (the panel and the MCP server both say it so). */
export function scheduleRuleText(rule: ScheduleRule, timeZone: string): string {
  switch (rule.kind) {
    case "daily":
      return `Daily at ${rule.time} (${timeZone})`;
    case "weekly":
      return `Every ${rule.weekday.charAt(0).toUpperCase()}${rule.weekday.slice(1)} at ${rule.time} (${timeZone})`;
    case "every_hours":
      return rule.hours === 1 ? "Every hour" : `Every ${rule.hours} hours`;
    default:
      return assertNever(rule);
  }
}
