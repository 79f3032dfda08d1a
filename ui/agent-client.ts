import type { z } from "zod";
import { AgentHealthResponseSchema } from "../shared/common/agent-health";
import { ApiErrorResponseSchema } from "../shared/common/error-envelope";
import { PairingResponseSchema } from "../shared/common/pairing";

/**
 * Why a call to the agent failed: it could not be reached at all, it answered with a coded
 * `ApiErrorEnvelope`, or it answered with something that is not our contract.
 */
export type AgentFailure =
  | { kind: "unreachable"; message: string }
  | { kind: "api"; status: number; code: string; message: string }
  | { kind: "protocol"; status: number; message: string };

export class AgentRequestError extends Error {
  readonly failure: AgentFailure;
  constructor(failure: AgentFailure) {
    super(failure.message);
    this.name = "AgentRequestError";
    this.failure = failure;
  }
}

export interface AgentClientOptions {
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** The one typed client the side panel uses to talk to the agent (DESIGN §3). */
export function createAgentClient(options: AgentClientOptions) {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? 5000;

  async function call<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    const headers: Record<string, string> = {};
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await doFetch(`${options.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new AgentRequestError({ kind: "unreachable", message: `No agent answered at ${options.baseUrl}.` });
    }
    let payload: unknown;
    try {
      payload = await response.json();
    } catch {
      throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The agent's answer was not JSON." });
    }
    if (!response.ok) {
      const envelope = ApiErrorResponseSchema.safeParse(payload);
      if (!envelope.success) {
        throw new AgentRequestError({ kind: "protocol", status: response.status, message: `The agent answered ${response.status} without an error envelope.` });
      }
      throw new AgentRequestError({
        kind: "api",
        status: response.status,
        code: envelope.data.error.code,
        message: envelope.data.error.message,
      });
    }
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The agent's answer did not match the contract." });
    }
    return parsed.data;
  }

  return {
    health: () => call("GET", "/api/health", AgentHealthResponseSchema),
    pair: (extensionId: string) =>
      call("POST", "/api/pairing", PairingResponseSchema, { extension_id: extensionId, schema_version: 1 }),
    pairingStatus: () => call("GET", "/api/pairing", PairingResponseSchema),
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;
