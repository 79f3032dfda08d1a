import type { z } from "zod";
import { AgentRequestError, failureOf } from "./agent-failure";

export interface AgentClientOptions {
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** Where an event stream resumes (`Last-Event-ID`) and how its reader stops it. */
export interface EventStreamInit {
  lastEventId?: string;
  signal: AbortSignal;
}

interface SendInit {
  /** A JSON body; `form` instead sends multipart/form-data. */
  body?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export type Input<S extends z.ZodType> = z.input<S>;

/** Request bodies go through their shared schema too: a bug here is caught before it is sent. */
export const requestBody = <S extends z.ZodType>(schema: S, value: Input<S>): z.infer<S> => schema.parse(value);
export const pageQuery = (pageNumber: number, pageSize: number) => `page=${pageNumber}&page_size=${pageSize}`;
// Compiling a demonstration reads every event and snapshot of the session: give it longer.
export const SLOW = 30_000;
// A validation rehearses the skill in a fresh headless browser.
export const VERY_SLOW = 180_000;

/**
 * The HTTP half of the agent client: bearer header, timeouts, answers parsed with their shared
 * schema, and every failure an `AgentRequestError` (the spec's `ApiErrorEnvelope` when the agent
 * sent one). The route groups in `agent-routes/` say which paths exist.
 */
export function createAgentTransport(options: AgentClientOptions) {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? 5000;

  function headers(body: boolean, extra: Record<string, string> = {}): Record<string, string> {
    const result: Record<string, string> = { ...extra };
    if (options.token !== undefined) result.authorization = `Bearer ${options.token}`;
    if (body) result["content-type"] = "application/json";
    return result;
  }

  async function send(method: string, path: string, init: SendInit): Promise<Response> {
    const body = init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
    try {
      return await doFetch(`${options.baseUrl}${path}`, {
        method,
        headers: headers(init.body !== undefined, init.headers),
        body,
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      });
    } catch {
      throw new AgentRequestError({ kind: "unreachable", message: `No agent answered at ${options.baseUrl}.` });
    }
  }

  /** A response's body checked against its contract; a non-2xx answer becomes its failure. */
  async function answerOf<S extends z.ZodType>(response: Response, schema: S): Promise<z.infer<S>> {
    if (!response.ok) throw await failureOf(response);
    let payload: unknown;
    try {
      payload = await response.json();
    } catch {
      throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The agent's answer was not JSON." });
    }
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The agent's answer did not match the contract." });
    }
    return parsed.data;
  }

  async function call<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown, timeout = timeoutMs): Promise<z.infer<S>> {
    return answerOf(await send(method, path, { body, signal: AbortSignal.timeout(timeout) }), schema);
  }

  /** An SSE stream (sessions, runs), opened with the bearer header; the caller reads and aborts it. */
  async function openEvents(path: string, init: EventStreamInit): Promise<ReadableStream<Uint8Array>> {
    const response = await send("GET", path, {
      headers: { accept: "text/event-stream", ...(init.lastEventId === undefined ? {} : { "last-event-id": init.lastEventId }) },
      signal: init.signal,
    });
    if (!response.ok) throw await failureOf(response);
    if (response.body === null) throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The event stream had no body." });
    return response.body;
  }

  return { timeoutMs, send, answerOf, call, openEvents };
}

export type AgentTransport = ReturnType<typeof createAgentTransport>;
