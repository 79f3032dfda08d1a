import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import type { BoundarySourceHeader } from "../../../shared/learning/sessions/session-requests";
import type { AgentConnection } from "../../../shared/common/agent-connection";
import type { CaptureControlReply } from "../../../shared/observation/panel-messages";
import type { ControlRoute } from "./capture-control-plan";

export interface SessionControlClientDeps {
  loadConnection(): Promise<AgentConnection | null>;
  fetch: typeof fetch;
  timeoutMs?: number;
}

/** Bodies the routes need; the others take none. */
function bodyFor(route: ControlRoute): unknown {
  switch (route) {
    case "mark-step":
      // A keyboard mark has no words of its own; the user can name the step when reviewing.
      return { step_label: "Step marked with the keyboard", step_kind_hint: "action" };
    case "cancel":
      return { reason: "Stopped from the page before anything was recorded" };
    default:
      return undefined;
  }
}

/**
 * Calls the agent's session routes for controls made outside the side panel, saying who made
 * them (`x-boundary-source`: `hotkey` for keyboard commands, `user_click` for the in-page
 * indicator) so the boundary is recorded with its real source (§0C.22 WorkflowBoundary.source).
 */
export function createSessionControlClient(deps: SessionControlClientDeps) {
  const timeoutMs = deps.timeoutMs ?? 5_000;
  return {
    async call(sessionId: string, route: ControlRoute, source: BoundarySourceHeader): Promise<CaptureControlReply> {
      const connection = await deps.loadConnection();
      if (connection === null) return { ok: false, code: "NOT_PAIRED", message: "The extension is not paired with the agent." };
      const body = bodyFor(route);
      const headers: Record<string, string> = { authorization: `Bearer ${connection.token}`, "x-boundary-source": source };
      if (body !== undefined) headers["content-type"] = "application/json";
      let response: Response;
      try {
        response = await deps.fetch(`${connection.agent_url}/api/learn/sessions/${encodeURIComponent(sessionId)}/${route}`, {
          method: "POST",
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch {
        return { ok: false, code: "AGENT_UNREACHABLE", message: `No agent answered at ${connection.agent_url}.` };
      }
      if (response.ok) return { ok: true };
      const envelope = ApiErrorResponseSchema.safeParse(await response.json().catch(() => undefined));
      return envelope.success
        ? { ok: false, code: envelope.data.error.code, message: envelope.data.error.message.slice(0, 400) }
        : { ok: false, code: "AGENT_PROTOCOL", message: `The agent answered ${response.status} without an error envelope.` };
    },
  };
}

export type SessionControlClient = ReturnType<typeof createSessionControlClient>;
