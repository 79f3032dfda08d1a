import type { AgentFailure } from "./transport/agent-failure";
import { assertNever } from "../../shared/common/assert-never";

/** What the side panel says about its agent (issue #2: connected / unreachable / token rejected). */
export type AgentStatus =
  | { kind: "checking" }
  | { kind: "unpaired" }
  | { kind: "connected"; agentUrl: string }
  | { kind: "unreachable"; agentUrl: string }
  | { kind: "token_rejected"; agentUrl: string }
  | { kind: "paired_elsewhere"; agentUrl: string }
  | { kind: "failed"; agentUrl: string; code: string; message: string };

export function statusFromFailure(failure: AgentFailure, agentUrl: string): AgentStatus {
  switch (failure.kind) {
    case "unreachable":
      return { kind: "unreachable", agentUrl };
    case "api":
      if (failure.code === "AUTH_INVALID" || failure.code === "AUTH_REQUIRED") return { kind: "token_rejected", agentUrl };
      if (failure.code === "ORIGIN_NOT_ALLOWED") return { kind: "paired_elsewhere", agentUrl };
      return { kind: "failed", agentUrl, code: failure.code, message: failure.message };
    case "protocol":
      return { kind: "failed", agentUrl, code: "PROTOCOL", message: failure.message };
    default:
      return assertNever(failure);
  }
}

/** One line a person can act on, for each status. */
export function describeAgentStatus(status: AgentStatus): { headline: string; detail: string; tone: "ok" | "warn" | "error" | "idle" } {
  switch (status.kind) {
    case "checking":
      return { headline: "Checking the agent…", detail: "", tone: "idle" };
    case "unpaired":
      return { headline: "Not paired", detail: "Paste the token that `npm start` printed to connect this browser to your agent.", tone: "idle" };
    case "connected":
      return { headline: "Connected", detail: `Paired with the agent at ${status.agentUrl}.`, tone: "ok" };
    case "unreachable":
      return { headline: "Agent unreachable", detail: `Nothing answered at ${status.agentUrl}. Start it with \`npm start\`, then retry.`, tone: "error" };
    case "token_rejected":
      return { headline: "Token rejected", detail: "The agent did not accept this token. Paste the token it printed at start-up.", tone: "error" };
    case "paired_elsewhere":
      return {
        headline: "Paired with another extension",
        detail: "The agent is paired with a different browser extension. Pair this one again with the token.",
        tone: "warn",
      };
    case "failed":
      return { headline: "Agent error", detail: `${status.message} (${status.code})`, tone: "error" };
    default:
      return assertNever(status);
  }
}
