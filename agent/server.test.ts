import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectRoot, runAgentExpectingFailure, startAgentProcess, type AgentProcess } from "./test-support/agent-process";
import { makeTempMemoryRoot } from "./test-support/temp-memory";

let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess | undefined;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot());
});
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await cleanup();
});

describe("agent server process", () => {
  it("listens on 127.0.0.1, prints how to pair, and answers over real HTTP", async () => {
    agent = await startAgentProcess(root);
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    expect(agent.output()).toContain(token);
    expect(agent.output()).toContain("Load unpacked");
    const health = await fetch(`${agent.url}/api/health`);
    expect(health.status).toBe(200);
    const guarded = await fetch(`${agent.url}/api/learn/runtime/current`);
    expect(guarded.status).toBe(401);
    const authorised = await fetch(`${agent.url}/api/learn/runtime/current`, { headers: { authorization: `Bearer ${token}` } });
    expect(authorised.status).toBe(404);
    expect(((await authorised.json()) as { error: { code: string } }).error.code).toBe("LEARN_SESSION_NOT_FOUND");
  });

  it("keeps its token across restarts so a paired extension stays paired", async () => {
    agent = await startAgentProcess(root);
    const first = await readFile(path.join(root, "system/agent/token"), "utf8");
    expect(await agent.stop()).toBe(0);
    agent = await startAgentProcess(root);
    expect(await readFile(path.join(root, "system/agent/token"), "utf8")).toBe(first);
  });

  it("refuses to start a second agent on the same ELNOR_MEMORY, with a clear message", async () => {
    agent = await startAgentProcess(root);
    const second = await runAgentExpectingFailure(root);
    expect(second.code).toBe(1);
    expect(second.output).toContain("MEMORY_LOCKED");
    expect(second.output).toMatch(/Another elnor-learn agent \(pid \d+\) is using ELNOR_MEMORY/);
    // The first agent is untouched by the attempt.
    expect((await fetch(`${agent.url}/api/health`)).status).toBe(200);
  });

  it("closes gracefully on SIGTERM and releases the lock", async () => {
    agent = await startAgentProcess(root);
    expect(await agent.stop()).toBe(0);
    agent = undefined;
    await expect(readFile(path.join(root, "system/agent/lock"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("npm start", () => {
  it("runs the agent entry that these tests start, compiled (issue 17: agent/agent-bundle.ts compiles agent/server.ts)", async () => {
    const pkg = JSON.parse(await readFile(path.join(projectRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toMatch(/^wxt build && npm run build:agent && node [^&]*\.output\/agent-server\.mjs$/);
    expect(await readFile(path.join(projectRoot, "agent", "agent-bundle.ts"), "utf8")).toContain('entryPoints: [path.join(projectRoot, "agent", "server.ts")]');
  });
});
