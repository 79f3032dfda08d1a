import { AgentRequestError } from "../agent-link/transport/agent-failure";

/**
 * What the panel says when an agent call failed: the agent's own coded message (4xx say what to
 * fix, §0C.16B), with a next step for the codes a person can act on.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof AgentRequestError)) return error instanceof Error ? error.message : "Something went wrong.";
  const failure = error.failure;
  switch (failure.kind) {
    case "unreachable":
      return "The agent is unreachable. Start it with `npm start`; the panel retries on its own.";
    case "protocol":
      return `The agent answered in an unexpected way (${failure.message}). Is the agent up to date?`;
    case "api":
      switch (failure.code) {
        case "ADAPTER_UNAVAILABLE":
          return `${failure.message} Alternatively, turn off Watch My Actions and mark the steps yourself.`;
        case "LEARN_SESSION_ALREADY_ACTIVE":
          return "Another learning session is still open. Finish or cancel it under Active Capability Learning first.";
        case "CAPTURE_ALREADY_STOPPED":
          return "Capture has already stopped for this session. Refresh to see where it is.";
        case "ROUTE_NOT_FOUND":
          return "Not available yet on this agent.";
        case "AUTH_INVALID":
        case "AUTH_REQUIRED":
          return "The agent no longer accepts this browser's token. Pair again.";
        default:
          return `${failure.message} (${failure.code})`;
      }
    default:
      return "Something went wrong.";
  }
}

/** The agent's error code, if the failure has one. */
export function failureCode(error: unknown): string | undefined {
  return error instanceof AgentRequestError && error.failure.kind === "api" ? error.failure.code : undefined;
}
