import { randomUUID } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { AGENT_BUNDLE, AGENT_NODE_FLAGS, buildAgentBundle } from "./agent-bundle";
import { MemoryPaths } from "./memory/memory-paths";
import { projectRoot, startAgentProcess, type AgentProcess } from "./test-support/agent-process";
import { readyProposal, type AgentCall } from "./test-support/ready-proposal";
import { makeTempMemoryRoot } from "./test-support/temp-memory";

// The compiled agent `npm start` runs (issue 17): built for this test next to where npm start writes
// it (its packages resolve from the project's node_modules), then driven through a whole learn →
// install → lookup over HTTP.
const bundle = path.join(path.dirname(AGENT_BUNDLE), `agent-server.test-${randomUUID()}.mjs`);
let memory: { root: string; cleanup: () => Promise<void> };
let agent: AgentProcess | undefined;

beforeAll(async () => {
  memory = await makeTempMemoryRoot("elnor-bundle-");
  await buildAgentBundle(bundle);
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await memory.cleanup();
  await rm(bundle, { force: true });
  await rm(`${bundle}.map`, { force: true });
});

describe("the compiled agent (npm start)", () => {
  it("runs with the flags npm start gives it, learns, installs and finds an ability", async () => {
    const started = await startAgentProcess(memory.root, { OPENCLAW_WORKSPACE: path.join(memory.root, "openclaw-workspace") }, [...AGENT_NODE_FLAGS, bundle]);
    agent = started;
    const token = (await readFile(path.join(memory.root, MemoryPaths.agentToken), "utf8")).trim();
    const call: AgentCall = async (method, url, payload) => {
      const response = await fetch(`${started.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { "content-type": "application/json" }) },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    const { proposalId } = await readyProposal(call, "Export the monthly invoices");
    const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(installed.status).toBe(200);
    const lookup = await call("POST", "/api/abilities/lookup", { user_query: "please export the monthly invoices for me", schema_version: 1 });
    expect(lookup.status).toBe(200);
    expect(lookup.body.matches[0]).toMatchObject({ usable_now: true });
    expect(lookup.body.matches[0].ability_id).toContain("export");
    // The packages compiled in answer as they do from node_modules: the OpenAPI document (swagger)
    // and the extension's WebSocket (ws).
    const openapi = await call("GET", "/api/openapi.json");
    expect(openapi.status).toBe(200);
    expect(Object.keys(openapi.body.paths as object)).toContain("/api/abilities/lookup");
    const socket = new WebSocket(`${started.url.replace("http", "ws")}/api/observations/stream`);
    const welcome = new Promise<Record<string, unknown>>((resolve, reject) => {
      socket.on("message", (data) => resolve(JSON.parse(data.toString()) as Record<string, unknown>));
      socket.on("error", reject);
    });
    socket.on("open", () => socket.send(JSON.stringify({ type: "hello", token, adapter_id: "bundle-test", adapter_kinds: ["browser_dom"], schema_version: 1 })));
    expect(await welcome).toMatchObject({ type: "welcome" });
    socket.close();
    // The banner points at the project's extension folder, as when run from the sources.
    expect(started.output()).toContain(path.join(projectRoot, ".output", "chrome-mv3"));
    expect(await started.stop()).toBe(0);
    agent = undefined;
  }, 90_000);

  it("npm start runs the compiled agent with the same flags", async () => {
    const scripts = (JSON.parse(await readFile(path.join(projectRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toContain(`node ${AGENT_NODE_FLAGS.join(" ")} ${path.relative(projectRoot, AGENT_BUNDLE)}`);
    expect(scripts["build:agent"]).toBe("node --import tsx agent/agent-bundle.ts");
  });
});
