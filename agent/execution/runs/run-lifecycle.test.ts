import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CapabilityUseReceiptSchema } from "../../../shared/capabilities/capability-use-receipt";
import { RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { LearningReceiptSchema } from "../../../shared/learning/sessions/receipts";
import { MemoryPaths } from "../../memory/memory-paths";
import { memoryText } from "../../test-support/memory-text";
import { serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { bootScriptedAgent, startRun, untilRun, type ScriptedExecutor } from "../../test-support/scripted-executor";
import { expectError, type TestAgent, type TestAgentOptions } from "../../test-support/test-agent";

/**
 * A run through the routes from start to finish, with the scripted executor (no browser): the
 * confirmation asked, declined, timed out or cancelled, the receipts it writes, the values nowhere,
 * and a run the agent stopped in the middle of.
 */
let site: RunFixtureSite;
beforeAll(async () => {
  site = await serveRunFixtureSite();
});
afterAll(async () => {
  await site.close();
});

let agent: TestAgent;
let executor: ScriptedExecutor;
let abilityId: string;
async function boot(options: TestAgentOptions = {}) {
  ({ agent, executor, abilityId } = await bootScriptedAgent(site, options));
}
afterEach(async () => {
  await agent?.close();
});

const start = (body: Record<string, unknown>) => startRun(agent, abilityId, body);
const until = (dispatchId: string, done: (run: RunRecord) => boolean, timeoutMs?: number) => untilRun(agent, dispatchId, done, timeoutMs);

describe("a run, start to finish", () => {
  it("starts with 202, asks before the committing step, proves every checkpoint, and writes its receipts — the values nowhere", async () => {
    await boot();
    const canary = `CANARY-${crypto.randomUUID()}`;
    const started = await start({ inputs: { message: "Hello there", access_code: canary } });
    expect(started.status).toBe(202);
    const run = RunResponseSchema.parse(started.body).run;
    expect(run).toMatchObject({ state: "starting", ability_id: abilityId, input_names: ["access_code", "message"], where: "managed", caller: "api" });

    const waiting = await until(run.dispatch_id, (candidate) => candidate.state === "needs_confirmation");
    expect(waiting.pending_confirmation).toMatchObject({ step_label: 'Click "Send message" (button)', reason: "committing_submit" });
    expectError(
      await agent.call("POST", `/api/runs/${run.dispatch_id}/confirm`, { confirmation_id: crypto.randomUUID(), decision: "confirm", schema_version: 1 }),
      409,
      "RUN_CONFIRMATION_MISMATCH",
    );
    const confirmed = await agent.call("POST", `/api/runs/${run.dispatch_id}/confirm`, {
      confirmation_id: waiting.pending_confirmation?.confirmation_id,
      decision: "confirm",
      schema_version: 1,
    });
    expect(confirmed.status).toBe(200);

    const finished = await until(run.dispatch_id, (candidate) => candidate.state === "succeeded");
    expect(finished.checkpoints.map((checkpoint) => [checkpoint.checkpoint_id, checkpoint.status])).toEqual([
      ["cp-01", "reached"],
      ["cp-02", "reached"],
    ]);
    expect(finished.pending_confirmation).toBeUndefined();
    expect(executor.seen).toEqual([{ message: "Hello there", access_code: canary }]);

    const receipts = (await agent.call("GET", `/api/dispatches/${run.dispatch_id}/checkpoint-receipts`)).body.receipts as Array<{
      ability_id: string;
      status: string;
    }>;
    expect(receipts.map((receipt) => [receipt.ability_id, receipt.status])).toEqual([
      [abilityId, "reached"],
      [abilityId, "reached"],
    ]);
    const usedLater = (await agent.memory.readJsonl(MemoryPaths.receipts, LearningReceiptSchema)).filter(
      (receipt) => receipt.receipt_kind === "ability.used_later",
    );
    expect(usedLater).toEqual([expect.objectContaining({ ability_id: abilityId, details: { dispatch_id: run.dispatch_id } })]);
    const uses = await agent.memory.readJsonl(MemoryPaths.capabilityUseReceipts, CapabilityUseReceiptSchema);
    expect(uses).toEqual([
      expect.objectContaining({ dispatch_id: run.dispatch_id, result: "success", approval_mode: "ask_first", route_trace_id: `api:${run.dispatch_id}` }),
    ]);
    expect((await agent.call("GET", `/api/abilities/${abilityId}/availability`)).body.checkpoint_health).toBe("moderate");

    // The values were used and forgotten: not in any file of ELNOR_MEMORY, not in the log.
    await agent.app.learning.runs.store.settle();
    expect(await memoryText(agent.root)).not.toContain(canary);
    expect(agent.logs.join("\n")).not.toContain(canary);
    expect(agent.logs.join("\n")).not.toContain("Hello there");
  });

  it("a declined step is not done: the run ends cancelled with CONFIRMATION_DECLINED and a denied receipt", async () => {
    await boot();
    const run = RunResponseSchema.parse((await start({ caller: "side_panel" })).body).run;
    const waiting = await until(run.dispatch_id, (candidate) => candidate.state === "needs_confirmation");
    await agent.call("POST", `/api/runs/${run.dispatch_id}/confirm`, {
      confirmation_id: waiting.pending_confirmation?.confirmation_id,
      decision: "decline",
      schema_version: 1,
    });
    const over = await until(run.dispatch_id, (candidate) => candidate.state === "cancelled");
    expect(over.failure?.code).toBe("CONFIRMATION_DECLINED");
    expect(over.steps.map((step) => step.label)).not.toContain('Click "Send message" (button)');
    const uses = await agent.memory.readJsonl(MemoryPaths.capabilityUseReceipts, CapabilityUseReceiptSchema);
    expect(uses).toEqual([expect.objectContaining({ result: "denied", approval_mode: "manual_click", route_trace_id: `side_panel:${run.dispatch_id}` })]);
    expectError(
      await agent.call("POST", `/api/runs/${run.dispatch_id}/confirm`, {
        confirmation_id: waiting.pending_confirmation?.confirmation_id,
        decision: "confirm",
        schema_version: 1,
      }),
      409,
      "RUN_NOT_ACTIVE",
    );
  });

  it("a confirmation nobody answers is declined when its time is up", async () => {
    await boot({ runConfirmationTimeoutMs: 300 });
    const run = RunResponseSchema.parse((await start({})).body).run;
    const over = await until(run.dispatch_id, (candidate) => candidate.state === "cancelled");
    expect(over.failure?.code).toBe("CONFIRMATION_TIMED_OUT");
  });

  it("refuses a run beyond the three going at once, and takes one again once a run is over", async () => {
    await boot();
    const going = [];
    for (let index = 0; index < 3; index += 1) going.push(RunResponseSchema.parse((await start({})).body).run.dispatch_id);
    expectError(await start({}), 429, "RUN_LIMIT_REACHED");
    await agent.call("POST", `/api/runs/${going[0]}/cancel`, { schema_version: 1 });
    expect((await start({})).status).toBe(202);
  });

  it("cancel stops a run at once; a second cancel says it is over", async () => {
    await boot();
    const run = RunResponseSchema.parse((await start({})).body).run;
    await until(run.dispatch_id, (candidate) => candidate.state === "needs_confirmation");
    const cancelled = await agent.call("POST", `/api/runs/${run.dispatch_id}/cancel`, { schema_version: 1 });
    expect(RunResponseSchema.parse(cancelled.body).run).toMatchObject({ state: "cancelled", failure: { code: "RUN_CANCELLED" } });
    expectError(await agent.call("POST", `/api/runs/${run.dispatch_id}/cancel`, { schema_version: 1 }), 409, "RUN_NOT_ACTIVE");
    expect((await agent.memory.readJsonl(MemoryPaths.capabilityUseReceipts, CapabilityUseReceiptSchema)).map((receipt) => receipt.result)).toEqual([
      "cancelled",
    ]);
    expectError(await agent.call("GET", "/api/runs/run-unknown"), 404, "RUN_NOT_FOUND");
  });
});

describe("a run the agent stopped in the middle of", () => {
  it("is marked interrupted when the agent closes, and stays so after the restart", async () => {
    await boot();
    executor.hold = new Promise(() => undefined);
    const run = RunResponseSchema.parse((await start({})).body).run;
    await until(run.dispatch_id, (candidate) => candidate.state === "running" && candidate.steps.length > 0);
    await agent.restart();
    const after = RunResponseSchema.parse((await agent.call("GET", `/api/runs/${run.dispatch_id}`)).body).run;
    expect(after).toMatchObject({ state: "interrupted", failure: { code: "AGENT_STOPPED" } });
  });
});
