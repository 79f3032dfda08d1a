import { Writable } from "node:stream";
import { agentLoggerOptions, buildApp, type AgentApp } from "../app";
import { openMemoryStore, type MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { makeTempMemoryRoot } from "./temp-memory";

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
  close(): Promise<void>;
}

/** A real agent app on a temp ELNOR_MEMORY, driven through `inject`, with its logs captured. */
export async function startTestAgent(): Promise<TestAgent> {
  const { root, cleanup } = await makeTempMemoryRoot();
  const memory = await openMemoryStore({ root });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString());
      callback();
    },
  });
  // The server's own logger options, pointed at a buffer, so the test sees what production logs.
  const logger = { ...(agentLoggerOptions("trace") as object), stream: sink };
  const app = await buildApp({ memory, port: TEST_PORT, logger });
  await app.ready();
  const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
  return {
    app,
    memory,
    root,
    token,
    logs,
    headers: (extra = {}) => ({ host: `127.0.0.1:${TEST_PORT}`, authorization: `Bearer ${token}`, ...extra }),
    async close() {
      await app.close();
      await memory.close();
      await cleanup();
    },
  };
}
