import type { AgentConnection } from "../../../shared/common/agent-connection";
import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import { RunResponseSchema, type ConfirmRunStepRequest, type RunRecord } from "../../../shared/execution/run-contract";

export interface RunAnswerClientDeps {
  loadConnection(): Promise<AgentConnection | null>;
  fetch: typeof fetch;
  timeoutMs?: number;
}

/** What became of an answer: sent, refused by the agent with its code (the run moved on), or not delivered. */
export type AnswerOutcome = { kind: "sent" } | { kind: "refused"; code: string } | { kind: "undelivered"; why: string };

/**
 * The person's answer from a notification goes through the same route as the panel's
 * (`POST /api/runs/:dispatchId/confirm`, run-contract.ts), with the pairing token; and a run the
 * worker lost sight of (it slept through the end) is read with `GET /api/runs/:dispatchId`.
 */
export function createRunAnswerClient(deps: RunAnswerClientDeps) {
  const timeoutMs = deps.timeoutMs ?? 5_000;
  const call = async (path: string, body?: unknown): Promise<Response | { why: string }> => {
    const connection = await deps.loadConnection();
    if (connection === null) return { why: "this browser is not paired" };
    try {
      return await deps.fetch(`${connection.agent_url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${connection.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      return { why: `no agent answered at ${connection.agent_url}` };
    }
  };
  return {
    async answer(dispatchId: string, confirmationId: string, decision: ConfirmRunStepRequest["decision"]): Promise<AnswerOutcome> {
      const request: ConfirmRunStepRequest = { confirmation_id: confirmationId, decision, schema_version: 1 };
      const response = await call(`/api/runs/${encodeURIComponent(dispatchId)}/confirm`, request);
      if (!(response instanceof Response)) return { kind: "undelivered", why: response.why };
      if (response.ok) return { kind: "sent" };
      const envelope = ApiErrorResponseSchema.safeParse(await response.json().catch(() => undefined));
      // A 4xx with a code is the agent's word (the run ended, or was answered elsewhere); anything else may be tried again.
      if (response.status < 500 && envelope.success) return { kind: "refused", code: envelope.data.error.code };
      return { kind: "undelivered", why: `the agent answered ${response.status}` };
    },
    /** The run now; null when the agent has no such run, undefined when it could not be asked. */
    async run(dispatchId: string): Promise<RunRecord | null | undefined> {
      const response = await call(`/api/runs/${encodeURIComponent(dispatchId)}`);
      if (!(response instanceof Response)) return undefined;
      if (response.status === 404) return null;
      if (!response.ok) return undefined;
      const parsed = RunResponseSchema.safeParse(await response.json().catch(() => undefined));
      return parsed.success ? parsed.data.run : undefined;
    },
  };
}

export type RunAnswerClient = ReturnType<typeof createRunAnswerClient>;
