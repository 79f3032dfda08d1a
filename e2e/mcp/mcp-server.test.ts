import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffMemoryTrees, readMemoryTree } from "../../agent/test-support/adversarial/memory-tree";
import { projectRoot, startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { readyProposal, type AgentCall } from "../../agent/test-support/ready-proposal";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchMcp, resultText, type LaunchedMcp } from "../../mcp/test-support/launch-mcp";

/**
 * Issue #19 with a real MCP client (the SDK's Client over stdio, launching the server as an MCP
 * client does) against a real agent process on a temp ELNOR_MEMORY with a learned ability installed.
 */
let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let mcp: LaunchedMcp;
let call: AgentCall;
let abilityId: string;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-mcp-"));
  agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: path.join(root, "openclaw-workspace") });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  call = async (method, url, payload) => {
    const response = await fetch(`${agent.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { "content-type": "application/json" }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const { proposalId } = await readyProposal(call, "Export the monthly invoices");
  abilityId = (await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
  mcp = await launchMcp({ memoryRoot: root, agentUrl: agent.url });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await agent?.stop();
  await cleanup?.();
});

async function findIds(client: LaunchedMcp, request: string): Promise<string[]> {
  const found = await client.client.callTool({ name: "find_abilities", arguments: { request } });
  expect(found.isError, resultText(found)).toBeFalsy();
  return (found.structuredContent as { matches: Array<{ ability_id: string }> }).matches.map((match) => match.ability_id);
}

// Real processes (agent, MCP server, Chromium) on a shared machine: more time than a unit test.
describe("the abilities over MCP (issue #19)", { timeout: 90_000 }, () => {
  it("lists its tools with input schemas and descriptions, and has no tool to confirm a step", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["cancel_run", "describe_ability", "find_abilities", "get_run", "list_schedules", "run_ability"]);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    }
    const run = tools.find((tool) => tool.name === "run_ability")!;
    // Derived from the run contract: the ability id's pattern, the value limit, where it runs.
    expect(run.inputSchema.required).toEqual(["ability_id"]);
    expect(JSON.stringify(run.inputSchema.properties)).toContain("10000");
    expect(JSON.stringify(run.inputSchema.properties)).toContain("user_tab");
    expect(JSON.stringify(run.inputSchema)).not.toContain("caller");
    expect(tools.some((tool) => /confirm/.test(tool.name))).toBe(false);
  });

  it("finds the ability from a request worded differently from its title, with the reasons it matched", async () => {
    const found = await mcp.client.callTool({ name: "find_abilities", arguments: { request: "could you download this month's bills" } });
    expect(found.isError).toBeFalsy();
    const [best] = (found.structuredContent as { matches: Array<{ ability_id: string; title: string; reasons: string[] }> }).matches;
    expect(best).toMatchObject({ ability_id: abilityId, title: "Export the monthly invoices" });
    expect(best!.reasons.join("\n")).toMatch(/"bills" found via .*invoice/);
  });

  // Issue #34: below the gate, the assistant still sees the skill, marked low confidence, with what its model chooses by.
  it("returns a request's low-confidence candidates with each one's title and description, and lists every enabled ability when nothing matches", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.find((tool) => tool.name === "find_abilities")?.description).toMatch(/also_consider.*low.*description/s);
    const found = await mcp.client.callTool({
      name: "find_abilities",
      arguments: { request: "the auditor wants paper copies of the invoices before the warehouse visit next spring" },
    });
    expect(found.isError, resultText(found)).toBeFalsy();
    const answer = found.structuredContent as {
      matches: unknown[];
      also_consider: Array<{ ability_id: string; title: string; description?: string; confidence: string; why: string; score: number }>;
      enabled_abilities?: Array<{ ability_id: string; title: string; description?: string }>;
      next: string;
    };
    const skill = (await call("GET", `/api/abilities/${abilityId}/skill-md`)).body as { description: string };
    expect(skill.description.length).toBeGreaterThan(20);
    expect(answer.matches).toEqual([]);
    expect(answer.also_consider).toEqual([
      expect.objectContaining({ ability_id: abilityId, title: "Export the monthly invoices", description: skill.description, confidence: "low" }),
    ]);
    expect(answer.also_consider[0]!.why).toMatch(/"invoices"|reads close to/);
    expect(answer.enabled_abilities).toEqual([{ ability_id: abilityId, title: "Export the monthly invoices", description: skill.description }]);
    expect(answer.next).toMatch(/descriptions/);
    // A confident match: no list of every ability, and the match is not offered again below the gate.
    const matched = (await mcp.client.callTool({ name: "find_abilities", arguments: { request: "export the monthly invoices" } }))
      .structuredContent as typeof answer;
    expect(matched.matches).toHaveLength(1);
    expect(matched.also_consider).toEqual([]);
    expect(matched.enabled_abilities).toBeUndefined();
  });

  it("serves each enabled ability's SKILL.md as a read-only resource, as installed", async () => {
    const { resources } = await mcp.client.listResources();
    const uri = `elnor-ability://${abilityId}/SKILL.md`;
    expect(resources).toEqual([expect.objectContaining({ uri, mimeType: "text/markdown", name: abilityId })]);
    const read = await mcp.client.readResource({ uri });
    const installed = await readFile(path.join(root, "system/learning/installed", abilityId.replace(/^learned\./, ""), "SKILL.md"), "utf8");
    expect(read.contents).toEqual([{ uri, mimeType: "text/markdown", text: installed }]);
  });

  it("a disabled ability disappears with resources/list_changed: not listed, found, readable or runnable; it comes back when enabled", async () => {
    const seen = mcp.notifications.length;
    await call("POST", `/api/abilities/${abilityId}/deactivate`);
    await mcp.nextListChanged(seen);
    expect((await mcp.client.listResources()).resources).toEqual([]);
    expect(await findIds(mcp, "export the monthly invoices")).toEqual([]);
    await expect(mcp.client.readResource({ uri: `elnor-ability://${abilityId}/SKILL.md` })).rejects.toThrow(/ABILITY_NOT_ENABLED/);
    for (const [name, args] of [
      ["describe_ability", { ability_id: abilityId }],
      ["run_ability", { ability_id: abilityId, inputs: {} }],
    ] as const) {
      const refused = await mcp.client.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(resultText(refused)).toMatch(/^\[ABILITY_NOT_ENABLED\] No enabled ability/);
    }
    // Quarantined while off: still nothing; only the enabled set's changes are announced.
    await call("POST", `/api/abilities/${abilityId}/quarantine`, { reason: "checking MCP least privilege" });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mcp.notifications.length).toBe(seen + 1);
    await call("POST", `/api/abilities/${abilityId}/unquarantine`);
    await call("POST", `/api/abilities/${abilityId}/activate`);
    await mcp.nextListChanged(seen + 1);
    expect((await mcp.client.listResources()).resources.map((resource) => resource.name)).toEqual([abilityId]);
    expect(mcp.notifications.every((method) => method === "notifications/resources/list_changed")).toBe(true);
  });

  it("a newly installed ability appears with resources/list_changed and is found", async () => {
    const seen = mcp.notifications.length;
    const { proposalId } = await readyProposal(call, "Archive old reports");
    const archived = (await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
    await mcp.nextListChanged(seen);
    expect((await mcp.client.listResources()).resources.map((resource) => resource.name).sort()).toEqual([abilityId, archived].sort());
    expect(await findIds(mcp, "put the old reports away in the archive")).toContain(archived);
    await call("POST", `/api/abilities/${archived}/deactivate`);
    await mcp.nextListChanged(seen + 1);
  });

  it("refuses hostile arguments with an MCP error and changes nothing in ELNOR_MEMORY", async () => {
    const secret = "Hunter2-canary-5d1f9a";
    const hostile: Array<[string, Record<string, unknown>, RegExp]> = [
      ["describe_ability", { ability_id: 42 }, /Input validation error/],
      ["describe_ability", { ability_id: "../../system/agent/token" }, /Input validation error/],
      ["describe_ability", { ability_id: "learned.not-installed" }, /ABILITY_NOT_ENABLED/],
      ["describe_ability", { ability_id: abilityId, extra: true }, /Input validation error/],
      ["find_abilities", { request: "x".repeat(501) }, /Input validation error/],
      ["find_abilities", { request: ["export"] }, /Input validation error/],
      ["run_ability", { ability_id: "learned.not-installed", inputs: { password: secret } }, /ABILITY_NOT_ENABLED/],
      ["run_ability", { ability_id: abilityId, inputs: { password: 12345 } }, /Input validation error/],
      ["run_ability", { ability_id: abilityId, inputs: { "bad name!": secret } }, /Input validation error/],
      ["run_ability", { ability_id: abilityId, inputs: { note: "y".repeat(10_001) } }, /Input validation error/],
      ["run_ability", { ability_id: abilityId, caller: "side_panel" }, /Input validation error/],
      ["get_run", { dispatch_id: "../../etc/passwd" }, /Input validation error/],
      ["cancel_run", { dispatch_id: "x".repeat(201) }, /Input validation error/],
      ["confirm_run", { dispatch_id: "anything" }, /not found/],
    ];
    const before = readMemoryTree(root);
    for (const [name, args, expected] of hostile) {
      const refused = await mcp.client.callTool({ name, arguments: args });
      expect(refused.isError, `${name} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      const text = resultText(refused);
      expect(text).toMatch(expected);
      // A refusal never echoes a value back (least of all a secret one).
      expect(text).not.toContain(secret);
      expect(text).not.toContain("y".repeat(100));
    }
    expect(diffMemoryTrees(before, readMemoryTree(root))).toEqual([]);
    expect(agent.output()).not.toContain(secret);
    expect(mcp.stderr()).not.toContain(secret);
  });

  it("says clearly when the token is wrong or missing, and never prints the token", async () => {
    const other = await makeTempMemoryRoot("elnor-mcp-other-");
    try {
      const stranger = await launchMcp({ memoryRoot: other.root, agentUrl: agent.url });
      try {
        const missing = await stranger.client.callTool({ name: "find_abilities", arguments: { request: "export invoices" } });
        expect(missing.isError).toBe(true);
        expect(resultText(missing)).toMatch(/^\[AGENT_TOKEN_MISSING\] No pairing token at .*system\/agent\/token: start the elnor-learn agent/);
        await mkdir(path.join(other.root, "system/agent"), { recursive: true });
        const wrongToken = "A".repeat(43);
        await writeFile(path.join(other.root, "system/agent/token"), `${wrongToken}\n`, { mode: 0o600 });
        const wrong = await stranger.client.callTool({ name: "find_abilities", arguments: { request: "export invoices" } });
        expect(wrong.isError).toBe(true);
        expect(resultText(wrong)).toMatch(/^\[AGENT_TOKEN_REJECTED\] The agent at http:\/\/127\.0\.0\.1:\d+ refused the pairing token .*\(AUTH_INVALID\)/);
        await expect(stranger.client.listResources()).rejects.toThrow(/AGENT_TOKEN_REJECTED/);
        expect(resultText(wrong) + stranger.stderr()).not.toContain(wrongToken);
      } finally {
        await stranger.close();
      }
    } finally {
      await other.cleanup();
    }
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    expect(mcp.stderr()).not.toContain(token);
  });

  it("starts from a checkout with `npm run --silent mcp` as well", async () => {
    const viaNpm = await launchMcp({ memoryRoot: root, agentUrl: agent.url, command: { command: "npm", args: ["run", "--silent", "mcp"], cwd: projectRoot } });
    try {
      expect((await viaNpm.client.listTools()).tools.map((tool) => tool.name)).toContain("find_abilities");
      expect(await findIds(viaNpm, "export the monthly invoices")).toEqual([abilityId]);
    } finally {
      await viaNpm.close();
    }
  });

  it("says clearly when the agent is not running", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const orphan = await launchMcp({ memoryRoot: root, agentUrl: `http://127.0.0.1:${port}` });
    try {
      const down = await orphan.client.callTool({ name: "find_abilities", arguments: { request: "export invoices" } });
      expect(down.isError).toBe(true);
      expect(resultText(down)).toMatch(
        new RegExp(
          `^\\[AGENT_NOT_RUNNING\\] The elnor-learn agent at http://127\\.0\\.0\\.1:${port} is not running \\(connection refused\\)\\. Start it with \`npm start\``,
        ),
      );
      await expect(orphan.client.readResource({ uri: `elnor-ability://${abilityId}/SKILL.md` })).rejects.toThrow(/AGENT_NOT_RUNNING/);
    } finally {
      await orphan.close();
    }
    // The agent this server was talking to stops: the next call says so.
    await agent.stop();
    const stopped = await mcp.client.callTool({ name: "describe_ability", arguments: { ability_id: abilityId } });
    expect(stopped.isError).toBe(true);
    expect(resultText(stopped)).toMatch(/^\[AGENT_NOT_RUNNING\] The elnor-learn agent at http:\/\/127\.0\.0\.1:\d+ is not running \(connection refused\)/);
  });
});
