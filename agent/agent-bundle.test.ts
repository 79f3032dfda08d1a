import { randomUUID } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { AGENT_BUNDLE, AGENT_NODE_FLAGS, buildAgentBundle } from "./agent-bundle";
import { MemoryPaths } from "./memory/memory-paths";
import { projectRoot, startAgentProcess, type AgentProcess } from "./test-support/agent-process";
import { httpAgentCall, readyProposal } from "./test-support/ready-proposal";
import { installContactAbility, serveRunFixtureSite } from "./test-support/run-fixture";
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
    const call = httpAgentCall(started.url, token);
    const { proposalId } = await readyProposal(call, "Export the monthly invoices");
    const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(installed.status).toBe(200);
    const lookup = await call("POST", "/api/abilities/lookup", { user_query: "please export the monthly invoices for me", schema_version: 1 });
    expect(lookup.status).toBe(200);
    expect(lookup.body.matches[0]).toMatchObject({ usable_now: true });
    expect(lookup.body.matches[0].ability_id).toContain("export");
    // The sentence encoder's process starts from the compiled agent too: the meaning was read, not skipped.
    const why = await call("POST", "/api/abilities/explain-match", {
      user_query: "please export the monthly invoices for me",
      ability_id: lookup.body.matches[0].ability_id,
    });
    expect(why.body.match_reasons).toEqual(expect.arrayContaining([expect.stringMatching(/^meaning: the request reads closest to /)]));
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
    socket.on("open", () =>
      socket.send(JSON.stringify({ type: "hello", token, adapter_id: "bundle-test", adapter_kinds: ["browser_dom"], schema_version: 1 })),
    );
    expect(await welcome).toMatchObject({ type: "welcome" });
    socket.close();
    // The banner points at the project's extension folder, as when run from the sources.
    expect(started.output()).toContain(path.join(projectRoot, ".output", "chrome-mv3"));
    expect(await started.stop()).toBe(0);
    agent = undefined;
  }, 90_000);

  // The compiled agent is minified (issue 17): the functions the executor sends into the page must
  // still run there, and puppeteer, loaded by the first run only, must still be found.
  it("runs an installed ability in Chromium, its first run loading puppeteer", async () => {
    const root = await makeTempMemoryRoot("elnor-bundle-run-");
    const site = await serveRunFixtureSite();
    let started: AgentProcess | undefined;
    try {
      started = await startAgentProcess(root.root, { OPENCLAW_WORKSPACE: path.join(root.root, "openclaw-workspace") }, [...AGENT_NODE_FLAGS, bundle]);
      const url = started.url;
      const token = (await readFile(path.join(root.root, MemoryPaths.agentToken), "utf8")).trim();
      const call = httpAgentCall(url, token);
      const { abilityId } = await installContactAbility(call, site);
      const sendsBefore = site.sends();
      const run = await call("POST", "/api/runs", {
        ability_id: abilityId,
        inputs: { message: "Hello from the compiled agent", access_code: "code-4321" },
        schema_version: 1,
      });
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      const dispatchId = run.body.run.dispatch_id as string;
      const until = async (done: (state: Record<string, any>) => boolean) => {
        const deadline = Date.now() + 40_000;
        for (;;) {
          const current = (await call("GET", `/api/runs/${dispatchId}`)).body.run as Record<string, any>;
          if (done(current)) return current;
          if (Date.now() > deadline) throw new Error(`the run never got there: ${JSON.stringify(current)}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const over = (current: Record<string, any>) => current.completed_at !== undefined;
      const asked = await until((current) => current.state === "needs_confirmation" || over(current));
      expect(asked.state, JSON.stringify(asked.failure)).toBe("needs_confirmation");
      const confirmed = await call("POST", `/api/runs/${dispatchId}/confirm`, {
        confirmation_id: asked.pending_confirmation.confirmation_id,
        decision: "confirm",
        schema_version: 1,
      });
      expect(confirmed.status).toBe(200);
      const done = await until(over);
      expect(done.state, JSON.stringify(done.failure)).toBe("succeeded");
      expect((done.checkpoints as Array<{ status: string }>).map((checkpoint) => checkpoint.status)).toEqual(["reached", "reached"]);
      expect(site.sends()).toBe(sendsBefore + 1);
      expect(await started.stop()).toBe(0);
      started = undefined;
    } finally {
      await started?.stop();
      await site.close();
      await root.cleanup();
    }
  }, 90_000);

  it("npm start runs the compiled agent with the same flags", async () => {
    const scripts = (JSON.parse(await readFile(path.join(projectRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toContain(`node ${AGENT_NODE_FLAGS.join(" ")} ${path.relative(projectRoot, AGENT_BUNDLE)}`);
    expect(scripts["build:agent"]).toBe("node --import tsx agent/agent-bundle.ts");
  });
});
