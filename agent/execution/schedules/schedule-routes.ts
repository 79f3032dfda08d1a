import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { ABILITY_ID_PATTERN } from "../../../shared/execution/run-contract";
import {
  CreateRunScheduleRequestSchema,
  DeleteRunScheduleResponseSchema,
  PauseRunScheduleRequestSchema,
  ResumeRunScheduleRequestSchema,
  RunScheduleListResponseSchema,
  RunScheduleResponseSchema,
} from "../../../shared/execution/run-schedules";
import type { ScheduleService } from "./schedule-service";

export interface ScheduleRoutesOptions {
  schedules: ScheduleService;
}

const ScheduleParamsSchema = z.object({ scheduleId: z.string().uuid() });
const ScheduleListQuerySchema = z.object({ ability_id: z.string().regex(ABILITY_ID_PATTERN).optional() });

const ONLY_THE_PERSON = "Only the person creates, pauses, resumes or deletes schedules (the side panel's Skills page); an assistant may list them.";

/** Each schedule route's schema and its words in the OpenAPI description. */
const SCHEMAS = {
  create: {
    tags: ["schedules"],
    summary: "Run a skill on a schedule",
    description: `Daily at \`HH:MM\`, weekly on a weekday at \`HH:MM\` (both in \`time_zone\`, an IANA zone, following its daylight-saving changes), or every N hours (counted as they pass). The inputs are checked as a run's are (unknown, missing or badly typed: REQUEST_INVALID) and kept with the schedule; a skill with a secret input cannot be scheduled (ABILITY_NOT_SCHEDULABLE: secrets are never stored), nor one that cannot run (ABILITY_NOT_RUNNABLE). The agent runs it when due through the same run service as \`POST /api/runs\` (\`caller: "schedule"\`), once after it was down however many slots it missed, never twice at once. A schedule whose skill is deleted, deactivated or changes version pauses with \`pause.code\` saying why. ${ONLY_THE_PERSON}`,
    body: CreateRunScheduleRequestSchema,
    response: { 201: RunScheduleResponseSchema },
  },
  list: {
    tags: ["schedules"],
    summary: "The person's schedules",
    description:
      "Every schedule, oldest first (`ability_id` keeps one skill's), each with `state`, `pause` (why it is paused), `next_due_at` and `last_run` (its dispatch id and outcome).",
    querystring: ScheduleListQuerySchema,
    response: { 200: RunScheduleListResponseSchema },
  },
  one: {
    tags: ["schedules"],
    summary: "One schedule",
    description: "SCHEDULE_NOT_FOUND when there is none with that id.",
    params: ScheduleParamsSchema,
    response: { 200: RunScheduleResponseSchema },
  },
  pause: {
    tags: ["schedules"],
    summary: "Pause a schedule",
    description: `It stops running until resumed (\`pause.code\` \`paused_by_person\`); pausing a paused schedule changes nothing. ${ONLY_THE_PERSON}`,
    params: ScheduleParamsSchema,
    body: PauseRunScheduleRequestSchema,
    response: { 200: RunScheduleResponseSchema },
  },
  resume: {
    tags: ["schedules"],
    summary: "Resume a paused schedule",
    description: `Accepts the skill as it is now (a new version included) after checking it again: refused with ABILITY_NOT_FOUND, ABILITY_NOT_RUNNABLE, ABILITY_NOT_SCHEDULABLE or REQUEST_INVALID (its inputs no longer fit), the schedule staying paused. \`every_hours\` counts again from now. ${ONLY_THE_PERSON}`,
    params: ScheduleParamsSchema,
    body: ResumeRunScheduleRequestSchema,
    response: { 200: RunScheduleResponseSchema },
  },
  remove: {
    tags: ["schedules"],
    summary: "Delete a schedule",
    description: `The schedule and its input values are gone; its past runs stay with the skill's runs. ${ONLY_THE_PERSON}`,
    params: ScheduleParamsSchema,
    response: { 200: DeleteRunScheduleResponseSchema },
  },
};

/**
 * Issue #33: the person's schedules as a resource of the local API (routes listed in
 * shared/execution/run-schedules.ts). Bodies are never logged, so input values stay out of the log.
 */
export const scheduleRoutes: FastifyPluginAsyncZod<ScheduleRoutesOptions> = async (app, { schedules }) => {
  app.post("/api/schedules", { schema: SCHEMAS.create }, async (request, reply) => {
    const schedule = await schedules.create(request.body);
    return reply.code(201).send({ schedule, schema_version: 1 as const });
  });

  app.get("/api/schedules", { schema: SCHEMAS.list }, async (request) => ({
    schedules: await schedules.list({ ability_id: request.query.ability_id }),
    schema_version: 1 as const,
  }));

  app.get("/api/schedules/:scheduleId", { schema: SCHEMAS.one }, async (request) => ({
    schedule: await schedules.get(request.params.scheduleId),
    schema_version: 1 as const,
  }));

  app.post("/api/schedules/:scheduleId/pause", { schema: SCHEMAS.pause }, async (request) => ({
    schedule: await schedules.pause(request.params.scheduleId),
    schema_version: 1 as const,
  }));

  app.post("/api/schedules/:scheduleId/resume", { schema: SCHEMAS.resume }, async (request) => ({
    schedule: await schedules.resume(request.params.scheduleId),
    schema_version: 1 as const,
  }));

  app.delete("/api/schedules/:scheduleId", { schema: SCHEMAS.remove }, async (request) => {
    await schedules.delete(request.params.scheduleId);
    return { schedule_id: request.params.scheduleId, deleted: true as const, schema_version: 1 as const };
  });
};
