import { Writable } from "node:stream";
import { expect } from "vitest";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { agentLoggerOptions, buildApp, type AgentApp } from "../app/app";
import type { BuildAppOptions } from "../app/app-options";
import type { Clock } from "../common/clock";
import { openMemoryStore, type MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { makeTempMemoryRoot } from "./temp-memory";

/**
 * Tests inside a feature folder that build the whole agent themselves take `buildApp` from here:
 * agent/app imports every feature, so a feature folder never imports it directly.
 */
export { agentLoggerOptions, buildApp, type AgentApp };

export const TEST_PORT = 47999;
export const PAIRED_EXTENSION_ID = "abcdefghijklmnopabcdefghijklmnop";
export const OTHER_EXTENSION_ID = "ponmlkjihgfedcbaponmlkjihgfedcba";

export interface TestAgent {
  app: AgentApp;
  memory: MemoryStore;
  root: string;
  token: string;
  /** Every log line the agent wrote, as raw text. */
  logs: string[];
  /** Headers a well-behaved local client sends. */
  headers(extra?: Record<string, string>): Record<string, string>;
  /** One request as a well-behaved local client sends it; an empty body (a 304) reads as `{}`. */
  call(
    method: "GET" | "POST" | "PUT" | "DELETE",
    url: string,
    payload?: unknown,
    extraHeaders?: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, any>; headers: Record<string, unknown> }>;
  /** Closes the app and the store and opens both again on the same ELNOR_MEMORY, as a restart would. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** What a test may change about the agent it starts; everything else is production's. */
export type TestAgentOptions = Pick<
  BuildAppOptions,
  | "clock"
  | "chromiumPath"
  | "retentionIntervalMs"
  | "failInstallAt"
  | "refiner"
  | "skillFolders"
  | "skillFoldersIntervalMs"
  | "execute"
  | "userTab"
  | "runConfirmationTimeoutMs"
  | "scheduleTickMs"
  | "keepaliveMs"
>;

/** A clock that stands still until a test moves it, for TTL rules (§0C.16D). */
export interface FakeClock extends Clock {
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function createFakeClock(start: Date | string = "2026-01-05T09:00:00.000Z"): FakeClock {
  let time = new Date(start).getTime();
  return {
    now: () => new Date(time),
    set: (at) => {
      time = new Date(at).getTime();
    },
    advance: (ms) => {
      time += ms;
    },
  };
}

/** A real agent app on a temp ELNOR_MEMORY, driven through `inject`, with its logs captured. */
export async function startTestAgent(options: TestAgentOptions = {}): Promise<TestAgent> {
  const { root, cleanup } = await makeTempMemoryRoot();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString());
      callback();
    },
  });
  // The server's own logger options, pointed at a buffer, so the test sees what production logs.
  const logger = { ...(agentLoggerOptions("trace") as object), stream: sink };
  let memory = await openMemoryStore({ root });
  const boot = async () => {
    const app = await buildApp({ ...options, memory, port: TEST_PORT, logger });
    await app.ready();
    // Issue 32: the first skill-folder check runs once the agent is ready; a test starts from an agent that made it.
    await app.learning.abilities.snapshot();
    return app;
  };
  let app = await boot();
  const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
  const handle: TestAgent = {
    app,
    memory,
    root,
    token,
    logs,
    headers: (extra = {}) => ({ host: `127.0.0.1:${TEST_PORT}`, authorization: `Bearer ${token}`, ...extra }),
    async call(method, url, payload, extraHeaders = {}) {
      const response = await handle.app.inject({
        method,
        url,
        headers: handle.headers(extraHeaders),
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
      return { status: response.statusCode, body: (response.body === "" ? {} : response.json()) as Record<string, any>, headers: response.headers };
    },
    async restart() {
      await app.close();
      await memory.close();
      memory = await openMemoryStore({ root });
      app = await boot();
      handle.app = app;
      handle.memory = memory;
    },
    async close() {
      await app.close();
      await memory.close();
      await cleanup();
    },
  };
  return handle;
}

/** Asserts an answer is the `ApiErrorEnvelope` with this status and code. */
export function expectError(result: { status: number; body: unknown }, status: number, code: string): void {
  expect(result.status).toBe(status);
  expect(ApiErrorResponseSchema.parse(result.body).error.code).toBe(code);
}
