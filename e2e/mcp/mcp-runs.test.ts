import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffMemoryTrees, readMemoryTree } from "../../agent/test-support/adversarial/memory-tree";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import type { AgentCall } from "../../agent/test-support/ready-proposal";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchMcp, resultText, type LaunchedMcp } from "../../mcp/test-support/launch-mcp";
import { memoryText } from "../../agent/test-support/memory-text";

/**
 * Issue #19's runs: a real MCP client runs an ability through the MCP server, against a real agent
 * whose executor acts in the managed headless Chromium on a fixture shop. The shop's "Send message"
 * is a committing step: it waits for the person (the HTTP confirm route stands in for the side panel).
 */
let root: string;
let cleanup: () => Promise<void>;
let site: RunFixtureSite;
let agent: AgentProcess;
let mcp: LaunchedMcp;
let call: AgentCall;
let abilityId: string;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-mcp-runs-"));
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
  ({ abilityId } = await installContactAbility(call, site));
  mcp = await launchMcp({ memoryRoot: root, agentUrl: agent.url });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await agent?.stop();
  await site?.close();
  await cleanup?.();
});

interface RunView {
  dispatch_id: string;
  state: string;
  checkpoints_proved: string;
  checkpoints: Array<{ checkpoint_id: string; status: string; evidence?: string }>;
  waiting_for_confirmation?: { step: string; reason: string };
  message: string;
}

// Real processes (agent, MCP server, Chromium) on a shared machine: more time than a unit test.
describe("running an ability over MCP (issue #19 on issue #21's runs)", { timeout: 90_000 }, () => {
  it("describes the ability: what and when, its inputs with the secret one marked, its site, checkpoints and the step that asks first", async () => {
    const described = await mcp.client.callTool({ name: "describe_ability", arguments: { ability_id: abilityId } });
    expect(described.isError, resultText(described)).toBeFalsy();
    expect(described.structuredContent).toMatchObject({
      ability_id: abilityId,
      inputs: [
        { name: "message", type: "text", secret: false, required: true },
        { name: "access_code", type: "secret", secret: true, required: true },
      ],
      sites: [site.host],
      confirmation_steps: [expect.stringContaining('"Send message"')],
      checkpoint_health: "no_data",
      runnable: true,
      instructions_resource: `elnor-ability://${abilityId}/SKILL.md`,
    });
    const view = described.structuredContent as { what_it_does: string; when_to_use: string[]; checkpoints: unknown[] };
    expect(view.what_it_does.length).toBeGreaterThan(10);
    expect(view.when_to_use.length).toBeGreaterThan(0);
    expect(view.checkpoints).toHaveLength(2);
  });

  it("runs it in the managed browser: pauses for the person before sending, nothing is sent until they confirm, then every checkpoint is proved; the secret is in no file, log or receipt", async () => {
    const secret = `CANARY-${crypto.randomUUID()}`;
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const started = await mcp.client.callTool(
      { name: "run_ability", arguments: { ability_id: abilityId, inputs: { message: "Hello from an assistant", access_code: secret } } },
      undefined,
      { onprogress: (update) => progress.push(update), timeout: 60_000, resetTimeoutOnProgress: true },
    );
    expect(started.isError, resultText(started)).toBeFalsy();
    const paused = started.structuredContent as unknown as RunView;
    expect(paused).toMatchObject({
      state: "needs_confirmation",
      waiting_for_confirmation: { step: expect.stringContaining('"Send message"'), reason: "committing_submit" },
    });
    expect(paused.message).toMatch(
      /Only the person can confirm or decline it, in the elnor-learn side panel \(or the browser notification it shows them when the panel is closed\); you cannot confirm it/,
    );
    // Not the assistant's to answer: the confirmation's id is not in what it sees.
    expect(JSON.stringify(started)).not.toContain("confirmation_id");
    expect(site.sends()).toBe(0);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.map((update) => update.progress)).toEqual([...progress.keys()].map((index) => index + 1));

    // The person answers in the side panel (here: the same HTTP route the panel calls).
    const pending = (await call("GET", `/api/runs/${paused.dispatch_id}`)).body.run.pending_confirmation as { confirmation_id: string };
    expect(site.sends()).toBe(0);
    expect(
      (await call("POST", `/api/runs/${paused.dispatch_id}/confirm`, { confirmation_id: pending.confirmation_id, decision: "confirm", schema_version: 1 }))
        .status,
    ).toBe(200);

    const done = await mcp.client.callTool({ name: "get_run", arguments: { dispatch_id: paused.dispatch_id, wait_seconds: 40 } }, undefined, {
      timeout: 60_000,
    });
    expect(done.isError, resultText(done)).toBeFalsy();
    const finished = done.structuredContent as unknown as RunView;
    expect(finished.state).toBe("succeeded");
    expect(finished.checkpoints.length).toBe(2);
    expect(finished.checkpoints.every((checkpoint) => checkpoint.status === "reached")).toBe(true);
    expect(finished.checkpoints_proved).toBe("2 of 2");
    expect(finished.message).toMatch(/^Done: every step ran and 2 of 2 checkpoints were proved/);
    expect(site.sends()).toBe(1);
    // The value was used on the page, and is nowhere else.
    expect(site.requests.some((request) => request.path === "/send" && request.body.includes(encodeURIComponent(secret)))).toBe(true);
    expect((await call("GET", `/api/runs/${paused.dispatch_id}`)).body.run).toMatchObject({ caller: "mcp", state: "succeeded" });
    const uses = (await memoryText(path.join(root, "system")))
      .split("\n")
      .filter((line) => line.includes(paused.dispatch_id) && line.includes("route_trace_id"));
    expect(uses.join("\n")).toContain(`"route_trace_id":"mcp:${paused.dispatch_id}"`);
    expect(await memoryText(root)).not.toContain(secret);
    expect(agent.output()).not.toContain(secret);
    expect(mcp.stderr()).not.toContain(secret);
    expect(JSON.stringify([started, done, progress])).not.toContain(secret);
    const receipts = await call("GET", `/api/dispatches/${paused.dispatch_id}/checkpoint-receipts`);
    expect(receipts.body.receipts).toHaveLength(2);
    expect(JSON.stringify(receipts.body)).not.toContain(secret);
  });

  it("cancels a run waiting for the person: it ends cancelled and nothing is sent", async () => {
    const sendsBefore = site.sends();
    const started = await mcp.client.callTool(
      { name: "run_ability", arguments: { ability_id: abilityId, inputs: { message: "Please cancel me", access_code: "not-a-real-code" } } },
      undefined,
      { timeout: 60_000 },
    );
    const paused = started.structuredContent as unknown as RunView;
    expect(paused.state).toBe("needs_confirmation");
    const cancelled = await mcp.client.callTool({
      name: "cancel_run",
      arguments: { dispatch_id: paused.dispatch_id, reason: "the person changed their mind" },
    });
    expect(cancelled.isError, resultText(cancelled)).toBeFalsy();
    expect(cancelled.structuredContent).toMatchObject({ dispatch_id: paused.dispatch_id, state: "cancelled" });
    expect((await call("GET", `/api/runs/${paused.dispatch_id}`)).body.run.state).toBe("cancelled");
    expect(site.sends()).toBe(sendsBefore);
  });

  it("reads and cancels only runs started through MCP, and refuses inputs the ability does not declare, changing nothing", async () => {
    const panelRun = await call("POST", "/api/runs", {
      ability_id: abilityId,
      inputs: { message: "From the panel", access_code: "panel-code" },
      caller: "side_panel",
      schema_version: 1,
    });
    expect(panelRun.status).toBe(202);
    const dispatchId = panelRun.body.run.dispatch_id as string;
    for (const name of ["get_run", "cancel_run"]) {
      const refused = await mcp.client.callTool({ name, arguments: { dispatch_id: dispatchId } });
      expect(refused.isError, name).toBe(true);
      expect(resultText(refused)).toMatch(/^\[RUN_NOT_FOUND\] No run .* started through MCP/);
    }
    await call("POST", `/api/runs/${dispatchId}/cancel`, { schema_version: 1 });
    await new Promise((resolve) => setTimeout(resolve, 500));

    const secret = `CANARY-${crypto.randomUUID()}`;
    const before = readMemoryTree(root);
    const unknownInput = await mcp.client.callTool({
      name: "run_ability",
      arguments: { ability_id: abilityId, inputs: { message: "x", access_code: secret, card_number: secret } },
    });
    expect(unknownInput.isError).toBe(true);
    expect(resultText(unknownInput)).toMatch(/^\[RUN_INPUTS_INVALID\] learned\.[a-z0-9-]+ has no input "card_number"\. Its inputs: message, access_code\./);
    const missing = await mcp.client.callTool({ name: "run_ability", arguments: { ability_id: abilityId, inputs: { message: "no code" } } });
    expect(resultText(missing)).toMatch(/^\[RUN_INPUTS_INVALID\] missing required input "access_code"/);
    // In the person's own Chrome only through the extension: none is connected to this agent.
    const noTab = await mcp.client.callTool({
      name: "run_ability",
      arguments: { ability_id: abilityId, inputs: { message: "x", access_code: secret }, where: "user_tab" },
    });
    expect(resultText(noTab)).toMatch(/^\[ADAPTER_UNAVAILABLE\]/);
    const unknownRun = await mcp.client.callTool({ name: "get_run", arguments: { dispatch_id: "run-that-never-was" } });
    expect(resultText(unknownRun)).toMatch(/^\[RUN_NOT_FOUND\]/);
    expect(JSON.stringify([unknownInput, missing, noTab])).not.toContain(secret);
    expect(diffMemoryTrees(before, readMemoryTree(root))).toEqual([]);
  });
});
