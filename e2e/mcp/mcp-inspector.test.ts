import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot, startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { httpAgentCall, readyProposal } from "../../agent/test-support/ready-proposal";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchMcp } from "../../mcp/test-support/launch-mcp";

/**
 * A second MCP client nobody here wrote: the MCP Inspector's CLI mode, given the README's own
 * `mcpServers` snippet (the path filled in, ELNOR_MEMORY and the agent's test port set), lists the
 * same tools as the SDK's Client and finds an installed ability.
 *
 * `@modelcontextprotocol/inspector-cli` is the package that `@modelcontextprotocol/inspector --cli`
 * runs; the `inspector` package itself declares Node >= 22.7.5 (and its web UI), so it cannot be a
 * dependency of a project that must work on Node 20.
 */
const execFileAsync = promisify(execFile);
const INSPECTOR_CLI = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/inspector-cli/build/cli.js", import.meta.url));

let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let configFile: string;

/** The README's configuration snippet, as a user would paste it. */
async function readmeSnippet(): Promise<{ mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> }> {
  const readme = await readFile(path.join(projectRoot, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Use your abilities from an MCP client"));
  const json = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (json === undefined) throw new Error("the README's MCP section has no json snippet");
  return JSON.parse(json);
}

async function inspector(...args: string[]): Promise<any> {
  const { stdout } = await execFileAsync(process.execPath, [INSPECTOR_CLI, "--cli", "--config", configFile, "--server", "elnor-learn", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    // Its index.js tests for "../package.json" from the working folder but imports it from its own:
    // run it from its build folder, where both name its package.json.
    cwd: path.dirname(INSPECTOR_CLI),
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-mcp-inspector-"));
  agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: path.join(root, "openclaw-workspace") });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  const call = httpAgentCall(agent.url, token);
  const { proposalId } = await readyProposal(call, "Export the monthly invoices");
  await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });

  const snippet = await readmeSnippet();
  const server = snippet.mcpServers["elnor-learn"]!;
  server.args = server.args.map((arg) => arg.replace("/path/to/elnor-learn", projectRoot));
  server.env = { ...server.env, ELNOR_MEMORY: root, ELNOR_AGENT_URL: agent.url };
  configFile = path.join(root, "mcp-client-config.json");
  await writeFile(configFile, JSON.stringify(snippet, null, 2));
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await cleanup?.();
});

// Each Inspector call starts node, which starts the MCP server (through tsx), which calls the agent:
// seconds each on a loaded machine, and the first lookup reads WordNet.
describe("the MCP Inspector's CLI mode, with the README's snippet (issue #19)", { timeout: 90_000 }, () => {
  it("lists the same tools, with the same input schemas, as the SDK's Client", async () => {
    const listed = (await inspector("--method", "tools/list")) as { tools: Array<{ name: string; inputSchema: unknown; description: string }> };
    const sdk = await launchMcp({ memoryRoot: root, agentUrl: agent.url });
    try {
      const { tools } = await sdk.client.listTools();
      expect(listed.tools.map((tool) => tool.name).sort()).toEqual([
        "cancel_run",
        "describe_ability",
        "find_abilities",
        "get_run",
        "list_schedules",
        "run_ability",
      ]);
      const byName = (list: Array<{ name: string; inputSchema: unknown; description?: string }>) =>
        Object.fromEntries(list.map((tool) => [tool.name, [tool.inputSchema, tool.description]]));
      expect(byName(listed.tools)).toEqual(byName(tools));
    } finally {
      await sdk.close();
    }
  });

  it("finds the installed ability and lists its SKILL.md resource", async () => {
    const found = await inspector("--method", "tools/call", "--tool-name", "find_abilities", "--tool-arg", "request=please export the invoices of this month");
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent.matches[0].ability_id).toBe("learned.export-the-monthly-invoices");
    const resources = await inspector("--method", "resources/list");
    expect(resources.resources.map((resource: { uri: string }) => resource.uri)).toEqual(["elnor-ability://learned.export-the-monthly-invoices/SKILL.md"]);
  });
});
