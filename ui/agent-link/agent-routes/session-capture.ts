import { ObservationScopeRuntimeSchema } from "../../../shared/learning/sessions/observation-scope-runtime";
import { LearnCheckpointReceiptsResponseSchema } from "../../../shared/learning/read-models";
import { SessionActionResponseSchema, TrimRequestSchema } from "../../../shared/learning/route-contracts";
import { ExcludeEventsRequestSchema, SessionObservationsResponseSchema } from "../../../shared/learning/sessions/session-requests";
import { SetRedactionRequestSchema } from "../../../shared/observation/capture-protocol";
import { pageQuery, requestBody, type AgentTransport, type Input } from "../transport/agent-transport";
import { sessionPath as session } from "./sessions";

/** `exclude-events` answers the exclusions only (the observations response, trimmed to them). */
const ExcludeEventsResponseSchema = SessionObservationsResponseSchema.pick({ excluded_event_ids: true, schema_version: true });

/** What a session captured and how the person shapes it: observations, scope, masking, trims, exclusions. */
export function sessionCaptureRoutes({ call }: AgentTransport) {
  return {
    /** The captured events, masked as they were in the page, oldest first, after `after` (an event id). */
    observations: (id: string, after?: string) =>
      call("GET", `${session(id)}/observations${after === undefined ? "" : `?after=${encodeURIComponent(after)}`}`, SessionObservationsResponseSchema),
    excludeEvents: (id: string, request: Input<typeof ExcludeEventsRequestSchema>) =>
      call("POST", `${session(id)}/exclude-events`, ExcludeEventsResponseSchema, requestBody(ExcludeEventsRequestSchema, request)),
    trim: (id: string, request: Input<typeof TrimRequestSchema>) =>
      call("POST", `${session(id)}/trim`, SessionActionResponseSchema, requestBody(TrimRequestSchema, request)),
    observationScope: (id: string) => call("GET", `${session(id)}/observation-scope`, ObservationScopeRuntimeSchema),
    setRedaction: (id: string, request: Input<typeof SetRedactionRequestSchema>) =>
      call("PUT", `${session(id)}/redaction`, ObservationScopeRuntimeSchema, requestBody(SetRedactionRequestSchema, request)),
    checkpointReceipts: (id: string) => call("GET", `${session(id)}/checkpoint-receipts?${pageQuery(1, 100)}`, LearnCheckpointReceiptsResponseSchema),
  };
}
