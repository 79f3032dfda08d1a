import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";

/**
 * Why a call to the agent failed: it could not be reached at all, it answered with a coded
 * `ApiErrorEnvelope`, or it answered with something that is not our contract.
 */
export type AgentFailure =
  | { kind: "unreachable"; message: string }
  | { kind: "api"; status: number; code: string; message: string; activeSessionId?: string }
  | { kind: "protocol"; status: number; message: string };

export class AgentRequestError extends Error {
  readonly failure: AgentFailure;
  constructor(failure: AgentFailure) {
    super(failure.message);
    this.name = "AgentRequestError";
    this.failure = failure;
  }
}

/** A route this agent does not have yet (partial deployment, R11.2): the UI says "not available yet". */
export function isRouteMissing(error: unknown): boolean {
  return error instanceof AgentRequestError && error.failure.kind === "api" && error.failure.code === "ROUTE_NOT_FOUND";
}

/** A non-2xx answer as its failure: the envelope's code and message, or a protocol failure without one. */
export async function failureOf(response: Response): Promise<AgentRequestError> {
  let payload: unknown;
  try {
    payload = await response.json();
  } catch {
    return new AgentRequestError({ kind: "protocol", status: response.status, message: `The agent answered ${response.status} without an error envelope.` });
  }
  const envelope = ApiErrorResponseSchema.safeParse(payload);
  if (!envelope.success) {
    return new AgentRequestError({ kind: "protocol", status: response.status, message: `The agent answered ${response.status} without an error envelope.` });
  }
  return new AgentRequestError({
    kind: "api",
    status: response.status,
    code: envelope.data.error.code,
    message: envelope.data.error.message,
    ...(envelope.data.active_session_id === undefined ? {} : { activeSessionId: envelope.data.active_session_id }),
  });
}
