import {
  CreateRunScheduleRequestSchema,
  DeleteRunScheduleResponseSchema,
  PauseRunScheduleRequestSchema,
  ResumeRunScheduleRequestSchema,
  RunScheduleListResponseSchema,
  RunScheduleResponseSchema,
} from "../../../shared/execution/run-schedules";
import { requestBody, type AgentTransport, type Input } from "../transport/agent-transport";

const schedule = (id: string) => `/api/schedules/${encodeURIComponent(id)}`;

/** The person's schedules (issue #33, shared/execution/run-schedules; absent on older agents). */
export function scheduleRoutes({ call }: AgentTransport) {
  return {
    listSchedules: (abilityId?: string) =>
      call("GET", abilityId === undefined ? "/api/schedules" : `/api/schedules?ability_id=${encodeURIComponent(abilityId)}`, RunScheduleListResponseSchema),
    /** Creates a schedule; its inputs are the non-secret values the person chose for it. */
    createSchedule: (request: Input<typeof CreateRunScheduleRequestSchema>) =>
      call("POST", "/api/schedules", RunScheduleResponseSchema, requestBody(CreateRunScheduleRequestSchema, request)),
    pauseSchedule: (scheduleId: string) =>
      call("POST", `${schedule(scheduleId)}/pause`, RunScheduleResponseSchema, requestBody(PauseRunScheduleRequestSchema, { schema_version: 1 })),
    resumeSchedule: (scheduleId: string) =>
      call("POST", `${schedule(scheduleId)}/resume`, RunScheduleResponseSchema, requestBody(ResumeRunScheduleRequestSchema, { schema_version: 1 })),
    deleteSchedule: (scheduleId: string) => call("DELETE", schedule(scheduleId), DeleteRunScheduleResponseSchema),
  };
}
