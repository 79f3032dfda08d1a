import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import type { z } from "zod";
import { AGENT_TOKEN_PATH, agentUrlOnPort, DEFAULT_AGENT_PORT, DEFAULT_MEMORY_UNDER_HOME, parseAgentPort } from "../shared/common/agent-address";
import { ApiErrorResponseSchema } from "../shared/common/error-envelope";
import { agentError, ElnorMcpError } from "./mcp-errors";

/** What the MCP server reads from its environment: the same variables the agent reads. */
export interface McpServerConfig {
  agentUrl: string;
  /** `$ELNOR_MEMORY/system/agent/token`: the only file the MCP server reads. */
  tokenFile: string;
  /** How often the enabled ability set is re-read for `list_changed` (ELNOR_MCP_POLL_MS). */
  pollMs: number;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/**
 * ELNOR_AGENT_URL, else `http://127.0.0.1:$ELNOR_AGENT_PORT` (47630); the token from ELNOR_MEMORY's
 * token file. Never a token from the command line or the environment: a process list or a client's
 * config file would show it.
 */
export function readMcpServerConfig(env: NodeJS.ProcessEnv = process.env): McpServerConfig {
  const port = parseAgentPort(env.ELNOR_AGENT_PORT);
  const memoryRoot = path.resolve(env.ELNOR_MEMORY || path.join(homedir(), DEFAULT_MEMORY_UNDER_HOME));
  const agentUrl = (env.ELNOR_AGENT_URL?.trim() || agentUrlOnPort(port === 0 ? DEFAULT_AGENT_PORT : port)).replace(/\/+$/, "");
  let parsed: URL;
  try {
    parsed = new URL(agentUrl);
  } catch {
    throw agentError("AGENT_URL_NOT_LOOPBACK", `ELNOR_AGENT_URL (${agentUrl.slice(0, 120)}) is not a URL.`);
  }
  // The token goes with every request: it must never be sent anywhere but this machine's agent.
  if (parsed.protocol !== "http:" || !LOOPBACK_HOSTS.has(parsed.hostname) || parsed.username !== "" || parsed.password !== "") {
    throw agentError("AGENT_URL_NOT_LOOPBACK", `ELNOR_AGENT_URL must be the local agent (http://127.0.0.1:<port>), not ${parsed.protocol}//${parsed.host}.`);
  }
  const pollMs = Number(env.ELNOR_MCP_POLL_MS ?? 3000);
  return {
    agentUrl: parsed.origin,
    tokenFile: path.join(memoryRoot, AGENT_TOKEN_PATH),
    pollMs: Number.isFinite(pollMs) && pollMs >= 100 ? pollMs : 3000,
  };
}

export interface AgentClient {
  readonly agentUrl: string;
  get<S extends z.ZodType>(route: string, schema: S, signal?: AbortSignal): Promise<z.infer<S>>;
  post<S extends z.ZodType>(route: string, body: unknown, schema: S, signal?: AbortSignal): Promise<z.infer<S>>;
  /**
   * Follows an SSE route: calls `onFrame` with each frame's event name and data until it returns
   * true, the agent closes the stream, or `signal` aborts.
   */
  follow(route: string, onFrame: (event: string, data: string) => boolean | Promise<boolean>, signal: AbortSignal): Promise<void>;
}

/** How long one request may take before the agent counts as not answering. */
const REQUEST_TIMEOUT_MS = 15_000;

type ClientConfig = Pick<McpServerConfig, "agentUrl" | "tokenFile">;

/** The pairing token, read afresh for each request (the agent may have been started since). */
async function readToken(tokenFile: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(tokenFile, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw agentError(
      "AGENT_TOKEN_MISSING",
      code === "ENOENT"
        ? `No pairing token at ${tokenFile}: start the elnor-learn agent once (npm start) with the same ELNOR_MEMORY as this MCP server.`
        : `The pairing token file ${tokenFile} cannot be read (${code ?? "unreadable"}).`,
    );
  }
  const token = text.trim();
  if (!TOKEN_FORMAT.test(token)) throw agentError("AGENT_TOKEN_MISSING", `${tokenFile} does not hold a pairing token; start the agent once to create it.`);
  return token;
}

/** One request with the token; an answer that is not 2xx becomes the coded error it carries. */
async function request(
  config: ClientConfig,
  method: "GET" | "POST",
  route: string,
  body: unknown,
  signal: AbortSignal | undefined,
  accept = "application/json",
): Promise<Response> {
  const token = await readToken(config.tokenFile);
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(`${config.agentUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      // The timeout covers the headers; a followed stream is ended by the caller's signal only.
      signal: signal === undefined ? timeout : AbortSignal.any([signal, ...(accept === "application/json" ? [timeout] : [])]),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    const reason = timeout.aborted ? `did not answer within ${REQUEST_TIMEOUT_MS / 1000} s` : describeNetworkFailure(error);
    throw agentError(
      "AGENT_NOT_RUNNING",
      `The elnor-learn agent at ${config.agentUrl} ${reason}. Start it with \`npm start\` (same ELNOR_MEMORY and ELNOR_AGENT_PORT as this MCP server) and try again.`,
    );
  }
  if (response.ok) return response;
  throw await errorOf(config, response, method, route);
}

async function errorOf(config: ClientConfig, response: Response, method: string, route: string): Promise<Error> {
  const envelope = ApiErrorResponseSchema.safeParse(await response.json().catch(() => undefined));
  if (response.status === 401) {
    return agentError(
      "AGENT_TOKEN_REJECTED",
      `The agent at ${config.agentUrl} refused the pairing token from ${config.tokenFile}${envelope.success ? ` (${envelope.data.error.code})` : ""}: is this MCP server's ELNOR_MEMORY the running agent's?`,
    );
  }
  if (!envelope.success) return agentError("AGENT_ANSWER_INVALID", `The agent answered ${method} ${route} with HTTP ${response.status} and no error envelope.`);
  const { code, message } = envelope.data.error;
  return response.status >= 500 ? agentError(code, message) : new ElnorMcpError(code, message);
}

async function parsed<S extends z.ZodType>(response: Response, route: string, schema: S): Promise<z.infer<S>> {
  const result = schema.safeParse(await response.json().catch(() => undefined));
  if (!result.success)
    throw agentError("AGENT_ANSWER_INVALID", `The agent's answer to ${route} is not what this MCP server expects; are both from the same checkout?`);
  return result.data;
}

/** Reads an SSE body frame by frame until `onFrame` answers true, the stream ends, or `signal` aborts. */
async function readFrames(
  body: ReadableStream<Uint8Array>,
  route: string,
  onFrame: (event: string, data: string) => boolean | Promise<boolean>,
  signal: AbortSignal,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for await (const chunk of body) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      let boundary = buffered.indexOf("\n\n");
      while (boundary >= 0) {
        const frame = parseSseFrame(buffered.slice(0, boundary));
        buffered = buffered.slice(boundary + 2);
        if (frame !== undefined && (await onFrame(frame.event, frame.data))) return;
        boundary = buffered.indexOf("\n\n");
      }
    }
  } catch (error) {
    if (!signal.aborted) throw agentError("AGENT_NOT_RUNNING", `The agent's stream ${route} broke off (${describeNetworkFailure(error)}).`);
  } finally {
    // Leaving early (the caller has what it waited for): close the connection.
    await body.cancel().catch(() => undefined);
  }
}

/** A thin client of the agent's local API: the pairing token, coded errors, parsed answers. */
export function createAgentClient(config: ClientConfig): AgentClient {
  return {
    agentUrl: config.agentUrl,
    async get(route, schema, signal) {
      return parsed(await request(config, "GET", route, undefined, signal), route, schema);
    },
    async post(route, body, schema, signal) {
      return parsed(await request(config, "POST", route, body, signal), route, schema);
    },
    async follow(route, onFrame, signal) {
      const response = await request(config, "GET", route, undefined, signal, "text/event-stream");
      if (response.body === null) return;
      await readFrames(response.body, route, onFrame, signal);
    },
  };
}

/** One SSE frame's `event:` and joined `data:` lines; comments (keepalives) and id-only frames give none. */
export function parseSseFrame(frame: string): { event: string; data: string } | undefined {
  let event = "message";
  const data: string[] = [];
  for (const line of frame.split(/\r?\n/)) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return data.length === 0 ? undefined : { event, data: data.join("\n") };
}

function describeNetworkFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  if (code === "ECONNREFUSED") return "is not running (connection refused)";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "closed the connection";
  return `could not be reached (${code ?? (error instanceof Error ? error.message : "unknown error")})`;
}
