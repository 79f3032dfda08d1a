import {
  AbilityRunSpecSchema,
  CancelRunRequestSchema,
  ConfirmRunStepRequestSchema,
  RunListResponseSchema,
  RunResponseSchema,
  StartRunRequestSchema,
} from "../../../shared/execution/run-contract";
import { RevokeRunGrantRequestSchema, RunGrantListResponseSchema, RunGrantResponseSchema } from "../../../shared/execution/run-grants";
import { AgentRequestError, failureOf } from "../transport/agent-failure";
import { pageQuery, requestBody, SLOW, type AgentTransport, type EventStreamInit, type Input } from "../transport/agent-transport";
import { abilityPath } from "./abilities";

const run = (id: string) => `/api/runs/${encodeURIComponent(id)}`;

/** Runs of an installed ability (issue #21, shared/execution/run-contract; absent on older agents). */
export function runRoutes({ call, send, openEvents, timeoutMs }: AgentTransport) {
  return {
    runSpec: (abilityId: string) => call("GET", `${abilityPath(abilityId)}/run-spec`, AbilityRunSpecSchema),
    /** Starts a run; the agent answers 202 with the run as it starts. Secret values travel only in this request. */
    startRun: (request: Input<typeof StartRunRequestSchema>) => call("POST", "/api/runs", RunResponseSchema, requestBody(StartRunRequestSchema, request), SLOW),
    run: (dispatchId: string) => call("GET", run(dispatchId), RunResponseSchema),
    listRuns: (abilityId: string, pageNumber = 1, pageSize = 20) =>
      call("GET", `/api/runs?${pageQuery(pageNumber, pageSize)}&ability_id=${encodeURIComponent(abilityId)}`, RunListResponseSchema),
    /** `GET /api/runs/:dispatchId/events`: every frame carries the whole run (read as the session stream is). */
    openRunEvents: (dispatchId: string, init: EventStreamInit) => openEvents(`${run(dispatchId)}/events`, init),
    confirmRun: (dispatchId: string, request: Input<typeof ConfirmRunStepRequestSchema>) =>
      call("POST", `${run(dispatchId)}/confirm`, RunResponseSchema, requestBody(ConfirmRunStepRequestSchema, request)),
    /** Issue #33: an ability's standing grants (absent on older agents: ROUTE_NOT_FOUND). */
    listGrants: (abilityId: string) => call("GET", `${abilityPath(abilityId)}/grants`, RunGrantListResponseSchema),
    revokeGrant: (abilityId: string, grantId: string) =>
      call(
        "POST",
        `${abilityPath(abilityId)}/grants/${encodeURIComponent(grantId)}/revoke`,
        RunGrantResponseSchema,
        requestBody(RevokeRunGrantRequestSchema, { schema_version: 1 }),
      ),
    cancelRun: (dispatchId: string, reason?: string) =>
      call(
        "POST",
        `${run(dispatchId)}/cancel`,
        RunResponseSchema,
        requestBody(CancelRunRequestSchema, { ...(reason === undefined ? {} : { reason }), schema_version: 1 }),
      ),
    /** The screenshot kept with a run where it stopped, as an image (fetched with the token, so never by URL). */
    async runScreenshot(dispatchId: string): Promise<Blob> {
      const response = await send("GET", `${run(dispatchId)}/screenshot`, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) throw await failureOf(response);
      const type = response.headers.get("content-type") ?? "";
      if (!type.startsWith("image/")) throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The screenshot was not an image." });
      return response.blob();
    },
  };
}
