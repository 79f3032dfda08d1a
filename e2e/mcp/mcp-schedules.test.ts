import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import type { AgentCall } from "../../agent/test-support/ready-proposal";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchMcp, resultText, type LaunchedMcp } from "../../mcp/test-support/launch-mcp";

/**
 * Issue #33 over MCP: a real MCP client lists the person's schedules through the MCP server,
 * against a real agent process; no tool creates or changes one.
 */
let root: string;
let cleanup: () => Promise<void>;
let site: RunFixtureSite;
let agent: AgentProcess;
let mcp: LaunchedMcp;
let call: AgentCall;
let abilityId: string;
const CANARY = `CANARY-mcp-schedule-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-mcp-schedules-"));
  site = await serveRunFixtureSite();
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
  ({ abilityId } = await installContactAbility(call, site, { secret: false }));
  mcp = await launchMcp({ memoryRoot: root, agentUrl: agent.url });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await agent?.stop();
  await site?.close();
  await cleanup?.();
});

interface ScheduleView {
  schedule_id: string;
  ability_id: string;
  when: string;
  state: string;
  input_names: string[];
  next_run_at?: string;
  pause_code?: string;
  paused_because?: string;
}

const listed = async (args: Record<string, unknown> = {}) => {
  const result = await mcp.client.callTool({ name: "list_schedules", arguments: args });
  expect(result.isError, resultText(result)).toBeFalsy();
  return { text: resultText(result), ...(result.structuredContent as { schedules: ScheduleView[]; total: number }) };
};

describe("schedules over MCP (issue #33)", { timeout: 90_000 }, () => {
  it("lists the person's schedules read-only, with when they run and their inputs' names but never the values", async () => {
    expect((await listed()).schedules).toEqual([]);
    const created = await call("POST", "/api/schedules", {
      ability_id: abilityId,
      rule: { kind: "weekly", weekday: "friday", time: "17:45" },
      time_zone: "Europe/Berlin",
      inputs: { message: CANARY },
      schema_version: 1,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const all = await listed();
    expect(all.total).toBe(1);
    expect(all.schedules[0]).toMatchObject({
      schedule_id: created.body.schedule.schedule_id,
      ability_id: abilityId,
      when: "Every Friday at 17:45 (Europe/Berlin)",
      state: "active",
      input_names: ["message"],
      next_run_at: created.body.schedule.next_due_at,
    });
    expect(all.text).not.toContain(CANARY);
    expect((await listed({ ability_id: "learned.some-other-skill" })).schedules).toEqual([]);

    const tools = (await mcp.client.listTools()).tools;
    const scheduleTools = tools.filter((tool) => /schedul/i.test(tool.name));
    expect(scheduleTools.map((tool) => tool.name)).toEqual(["list_schedules"]);
    expect(scheduleTools[0]?.annotations?.readOnlyHint).toBe(true);
  });

  it("says when a schedule paused because its skill was deactivated", async () => {
    await call("POST", `/api/abilities/${abilityId}/deactivate`);
    const [paused] = (await listed({ ability_id: abilityId })).schedules;
    expect(paused).toMatchObject({ state: "paused", pause_code: "skill_deactivated" });
    expect(paused?.paused_because).toContain("deactivated");
    expect(paused?.next_run_at).toBeUndefined();
  });
});
