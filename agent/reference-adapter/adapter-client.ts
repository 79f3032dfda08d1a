import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { AGENT_TOKEN_PATH, DEFAULT_MEMORY_UNDER_HOME } from "../../shared/common/agent-address";

/**
 * How the reference adapters find and call the agent: ELNOR_AGENT_URL (default
 * http://127.0.0.1:47630) and ELNOR_TOKEN (default: read from $ELNOR_MEMORY/system/agent/token).
 */
export const ADAPTER_ID = "reference-desktop-cli";

/** The agent's memory folder as the adapters assume it: ELNOR_MEMORY, else the agent's default. */
export function memoryRootOf(env: NodeJS.ProcessEnv = process.env): string {
  return env.ELNOR_MEMORY || path.join(homedir(), DEFAULT_MEMORY_UNDER_HOME);
}

export async function resolveToken(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.ELNOR_TOKEN) return env.ELNOR_TOKEN;
  return (await readFile(path.join(memoryRootOf(env), AGENT_TOKEN_PATH), "utf8")).trim();
}

export type AgentCall = (method: string, route: string, body?: unknown) => Promise<unknown>;

/** One authorized JSON call; a non-2xx answer throws with the agent's error code and message. */
export function agentClient(baseUrl: string, token: string): AgentCall {
  return async (method, route, body) => {
    const response = await fetch(`${baseUrl.replace(/\/$/, "")}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const payload: unknown = await response.json();
    if (!response.ok) {
      const error = (payload as { error?: { code?: string; message?: string } }).error;
      throw new Error(`${method} ${route} → ${response.status} ${error?.code ?? ""}: ${error?.message ?? ""}`);
    }
    return payload;
  };
}

/** "I am here" for each kind (healthy for 90 s, adapter-registry's TTL). */
export async function heartbeat(call: AgentCall, kinds: readonly string[]): Promise<void> {
  for (const kind of kinds) {
    await call("POST", "/api/observation/adapters/heartbeat", { adapter_id: `${ADAPTER_ID}:${kind}`, kind, schema_version: 1 });
  }
}
