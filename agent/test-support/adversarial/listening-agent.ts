import { Writable } from "node:stream";
import { agentLoggerOptions, buildApp, type AgentApp } from "../../app/app";
import { openMemoryStore, type MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";

export interface ListeningAgent {
  app: AgentApp;
  memory: MemoryStore;
  root: string;
  port: number;
  url: string;
  token: string;
  /** Every log line, raw, as production's logger options write them. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * The agent as `server.ts` builds it, on an existing ELNOR_MEMORY (a prepared copy), listening on a
 * free loopback port so requests go over a real socket. No Chromium: a rehearsal a fuzzer happens
 * to start ends `partial` at once instead of launching a browser.
 */
export async function startListeningAgent(root: string): Promise<ListeningAgent> {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString());
      callback();
    },
  });
  const memory = await openMemoryStore({ root });
  const app = await buildApp({
    memory,
    port: 0,
    logger: { ...(agentLoggerOptions("info") as object), stream },
    chromiumPath: "/nonexistent/chromium-for-fuzzing",
    // The periodic skill-folder check (every 30 s) would rewrite the availability views after an install between a
    // request and the memory read after it; fuzzing runs longer than that under load. The first check is awaited below.
    skillFoldersIntervalMs: 3_600_000,
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  // Issue 32: the first skill-folder check runs once the agent is ready, and on a copied memory (its
  // folders at another path) rewrites the availability views: reading the snapshot waits for it, so a
  // test that compares the memory before and after a request sees only what the request did.
  await app.learning.abilities.snapshot();
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the agent is not listening on a TCP port");
  const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
  return {
    app,
    memory,
    root,
    port: address.port,
    url,
    token,
    logs,
    async close() {
      await app.close();
      await memory.close();
    },
  };
}
