import { agentLoggerOptions, buildApp, type AgentApp } from "../../agent/app/app";
import { openMemoryStore, type MemoryStore } from "../../agent/memory/memory-store";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { httpAgentCall, type AgentCall } from "../../agent/test-support/ready-proposal";
import { createAgentClient, type AgentClient } from "../agent-link/agent-client";
import type { LearnDeps } from "../common/learn-deps";
import type { PanelBrowser } from "../../shared/observation/panel-browser";
import { noBrowser } from "../common/no-browser";

/** A real agent listening on a loopback port, for the panel's state classes to talk to over HTTP. */
export interface ListeningAgent {
  app: AgentApp;
  memory: MemoryStore;
  url: string;
  token: string;
  client: AgentClient;
  /** A plain HTTP call with the token, as any other client of the agent would make it. */
  call: AgentCall;
  /** Learn deps on this agent; `failures` collects what was reported. */
  deps(browser?: PanelBrowser): LearnDeps & { failures: unknown[] };
  /** Stops answering (the port closes); the memory stays open for a restart. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startListeningAgent(options: { keepaliveMs?: number } = {}): Promise<ListeningAgent> {
  const temp = await makeTempMemoryRoot();
  const memory = await openMemoryStore({ root: temp.root });
  const app = await buildApp({ memory, port: 0, logger: agentLoggerOptions("silent"), ...options });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
  const client = createAgentClient({ baseUrl: url, token });
  const call = httpAgentCall(url, token);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // As if the process ended: open streams and keep-alive sockets are cut, not drained.
    const closing = app.close();
    app.server.closeAllConnections();
    await closing;
  };
  return {
    app,
    memory,
    url,
    token,
    client,
    call,
    deps(browser = noBrowser) {
      const failures: unknown[] = [];
      return { client, browser, features: { has: () => true }, onFailure: (error) => failures.push(error), failures };
    },
    stop,
    async close() {
      await stop();
      await memory.close();
      await temp.cleanup();
    },
  };
}

/** Waits until `probe` holds (state classes update asynchronously). */
export async function eventually(probe: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
