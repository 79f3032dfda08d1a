import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CapabilityUseReceiptSchema } from "../../../shared/capabilities/capability-use-receipt";
import { AbilityRunSpecSchema, RunEventEnvelopeSchema, RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { LearningReceiptSchema } from "../../../shared/learning/sessions/receipts";
import { MemoryPaths } from "../../memory/memory-paths";
import { publicBundle, stageThrough } from "../../test-support/skill-bundles";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { expectError, startTestAgent, type TestAgent, type TestAgentOptions } from "../../test-support/test-agent";
import type { BrowserProvider, ExecuteInput, ExecuteResult } from "../contract/executor-contract";
import { planExecution } from "../replay/flow-plan";
import { memoryText } from "../../test-support/memory-text";

/**
 * The run service's own rules, through the routes, with an executor that follows the plan it is
 * given without a browser (the executor's behaviour in Chromium is proved in run-chromium.test.ts):
 * it reports each step and checkpoint, asks before the flow's committing step and stops when told.
 */
interface ScriptedExecutor {
  execute: (input: ExecuteInput) => Promise<ExecuteResult>;
  /** Values each execution was given (to prove they reached the executor). */
  seen: Array<Record<string, string>>;
  /** The browser provider and policy each execution was given. */
  given: Array<Pick<ExecuteInput, "browser" | "policy">>;
  /** While set, each execution waits here after its first step. */
  hold: Promise<void> | undefined;
}

function scriptedExecutor(): ScriptedExecutor {
  const scripted: ScriptedExecutor = {
    seen: [],
    given: [],
    hold: undefined,
    async execute(input) {
      scripted.seen.push({ ...input.values });
      scripted.given.push({ browser: input.browser, policy: input.policy });
      const started = new Date().toISOString();
      const steps: ExecuteResult["steps"] = [];
      const points = new Map(
        planExecution(input.flow, input.checkpoints, input.policy)
          .groups.filter((group) => group.consequence !== undefined)
          .map((group) => [group.indexes[0] as number, { step_label: group.label, reason: group.consequence as NonNullable<typeof group.consequence> }]),
      );
      const done = new Set<string>();
      const aborted = () => input.signal?.aborted === true;
      for (const [index, step] of input.flow.steps.entries()) {
        if (aborted()) return { overall: "failed", steps, stopped: "cancelled", started_at: started, completed_at: new Date().toISOString() };
        const stepId = input.flow.step_ids[index] ?? `setup-${index}`;
        const point = points.get(index);
        if (
          point !== undefined &&
          input.confirm !== undefined &&
          !(await input.confirm({ step_id: stepId, step_label: point.step_label, reason: point.reason }))
        ) {
          steps.push({ test_case_id: stepId, label: point.step_label, result: "skipped", details: "declined" });
          return { overall: "failed", steps, stopped: aborted() ? "cancelled" : "declined", started_at: started, completed_at: new Date().toISOString() };
        }
        const label = step.type === "change" ? `Fill with ${step.value}` : `Do ${step.type}`;
        steps.push({ test_case_id: stepId, label, result: "passed", details: "done" });
        input.onProgress?.({ kind: "step", step_id: stepId, label, result: "passed", details: "done" });
        if (scripted.hold !== undefined && index === 0) {
          const signal = input.signal;
          await Promise.race([scripted.hold, new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }))]);
        }
        done.add(stepId);
        for (const checkpoint of input.checkpoints) {
          const last = checkpoint.step_ids.at(-1);
          if (last === stepId) {
            steps.push({ test_case_id: `checkpoint:${checkpoint.checkpoint_id}`, label: checkpoint.goal, result: "passed", details: "seen" });
            input.onProgress?.({
              kind: "checkpoint",
              checkpoint_id: checkpoint.checkpoint_id,
              goal: checkpoint.goal,
              status: "reached",
              evidence: `page shows it (${Object.values(input.values).join(" ")})`,
            });
          }
        }
      }
      return { overall: "passed", steps, started_at: started, completed_at: new Date().toISOString() };
    },
  };
  return scripted;
}

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
  executor = scriptedExecutor();
  agent = await startTestAgent({ execute: executor.execute, ...options });
  ({ abilityId } = await installContactAbility((method, url, payload) => agent.call(method, url, payload), site));
}
afterEach(async () => {
  await agent?.close();
});

const start = (body: Record<string, unknown>) =>
  agent.call("POST", "/api/runs", { ability_id: abilityId, inputs: { message: "Hello there", access_code: "code-1234" }, schema_version: 1, ...body });

async function until(dispatchId: string, done: (run: RunRecord) => boolean, timeoutMs = 10_000): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = RunResponseSchema.parse((await agent.call("GET", `/api/runs/${dispatchId}`)).body).run;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("GET /api/abilities/:abilityId/run-spec", () => {
  it("says what a run needs: inputs with the secret one marked, the site, checkpoints and the step that asks first", async () => {
    await boot();
    const spec = AbilityRunSpecSchema.parse((await agent.call("GET", `/api/abilities/${abilityId}/run-spec`)).body);
    expect(spec).toMatchObject({
      ability_id: abilityId,
      runnable: true,
      sites: [site.host],
      confirmation_steps: ['Click "Send message" (button)'],
      checkpoint_health: "no_data",
    });
    expect(spec.inputs).toEqual([
      { name: "message", label: "Message", type: "text", secret: false, required: true },
      { name: "access_code", label: "Access code", type: "secret", secret: true, required: true },
    ]);
    expect(spec.checkpoints.map((checkpoint) => [checkpoint.checkpoint_id, checkpoint.verified_by])).toEqual([
      ["cp-01", "page"],
      ["cp-02", "page"],
    ]);
  });

  it("reads the proposal's checkpoints and inputs for a skill installed before the install kept them", async () => {
    await boot();
    const before = (await agent.call("GET", `/api/abilities/${abilityId}/run-spec`)).body;
    const tests = path.join(agent.root, MemoryPaths.installedSkill(abilityId.replace("learned.", "")), "tests");
    await rm(path.join(tests, "checkpoints.json"));
    await rm(path.join(tests, "parameters.json"));
    expect((await agent.call("GET", `/api/abilities/${abilityId}/run-spec`)).body).toEqual(before);
  });

  it("says why an ability cannot run: deactivated, quarantined; and 404 for an unknown one", async () => {
    await boot();
    await agent.call("POST", `/api/abilities/${abilityId}/deactivate`);
    expect((await agent.call("GET", `/api/abilities/${abilityId}/run-spec`)).body).toMatchObject({
      runnable: false,
      not_runnable_reason: expect.stringContaining("deactivated"),
    });
    await agent.call("POST", `/api/abilities/${abilityId}/activate`);
    await agent.call("POST", `/api/abilities/${abilityId}/quarantine`, { reason: "site changed" });
    expect((await agent.call("GET", `/api/abilities/${abilityId}/run-spec`)).body).toMatchObject({
      runnable: false,
      not_runnable_reason: expect.stringContaining("quarantined"),
    });
    expectError(await agent.call("GET", "/api/abilities/learned.nothing-here/run-spec"), 404, "ABILITY_NOT_FOUND");
  });

  it("an imported skill has no recorded flow: not runnable, and a start is refused", async () => {
    await boot();
    await agent.call("POST", "/api/skills/import/install-private", { import_id: await stageThrough(agent, publicBundle()), schema_version: 1 });
    const abilities = (await agent.call("GET", "/api/abilities/availability")).body.abilities as Array<{ ability_id: string; source: string }>;
    const imported = abilities.find((entry) => entry.source === "imported")?.ability_id as string;
    expect(imported).toBeDefined();
    const spec = AbilityRunSpecSchema.parse((await agent.call("GET", `/api/abilities/${imported}/run-spec`)).body);
    expect(spec).toMatchObject({ runnable: false, inputs: [], sites: [], confirmation_steps: [] });
    expect(spec.not_runnable_reason).toContain("no recorded flow");
    expectError(await agent.call("POST", "/api/runs", { ability_id: imported, inputs: {}, schema_version: 1 }), 409, "ABILITY_NOT_RUNNABLE");
  });
});

describe("POST /api/runs refuses what it cannot run, and writes nothing", () => {
  it("refuses unknown and missing inputs, a run in the user's tab with no extension, a policy beyond the ability's sites, and an ability that is off", async () => {
    await boot();
    const canary = `CANARY-refused-${crypto.randomUUID()}`;
    const unknown = await start({ inputs: { message: canary, access_code: canary, colour: canary } });
    expectError(unknown, 400, "REQUEST_INVALID");
    expect(JSON.stringify(unknown.body)).toContain("inputs.colour");
    expectError(await start({ inputs: { message: canary } }), 400, "REQUEST_INVALID");
    expectError(await start({ where: "user_tab", inputs: { message: canary, access_code: canary } }), 503, "ADAPTER_UNAVAILABLE");
    const policy = { policy_id: crypto.randomUUID(), mode: "controlled_live_test", allowed_domains: [site.host, "elsewhere.example"], schema_version: 1 };
    expectError(await start({ test_policy: policy }), 400, "TEST_POLICY_VIOLATION");
    await agent.call("POST", `/api/abilities/${abilityId}/deactivate`);
    expectError(await start({}), 409, "ABILITY_NOT_RUNNABLE");
    expect(await agent.memory.list(MemoryPaths.runs).catch(() => [])).toEqual([]);
    expect(executor.seen).toEqual([]);
    // A refused request's values are not in an answer, a file or the log either.
    expect(JSON.stringify(unknown.body)).not.toContain(canary);
    expect(await memoryText(agent.root)).not.toContain(canary);
    expect(agent.logs.join("\n")).not.toContain(canary);
  });

  it("accepts a test policy within the ability's sites and the sites allowed for this run", async () => {
    await boot();
    const policy = { policy_id: crypto.randomUUID(), mode: "controlled_live_test", allowed_domains: [site.host, "elsewhere.example"], schema_version: 1 };
    const started = await start({ test_policy: policy, allowed_sites: ["elsewhere.example"] });
    expect(started.status).toBe(202);
  });
});

describe("where a run acts", () => {
  it("in the user's tab: the run leases the extension's tab for the ability's sites and hands it to the executor", async () => {
    const leases: Array<Record<string, unknown>> = [];
    const provider: BrowserProvider = async () => {
      throw new Error("not used by the scripted executor");
    };
    await boot({ userTab: { connected: () => true, lease: (request) => (leases.push({ ...request }), provider) } });
    const run = RunResponseSchema.parse((await start({ where: "user_tab", tab_id: 7, allowed_sites: ["help.example.com"] })).body).run;
    expect(run.where).toBe("user_tab");
    await until(run.dispatch_id, (candidate) => candidate.state === "needs_confirmation");
    expect(leases).toEqual([{ dispatch_id: run.dispatch_id, allowed_domains: [site.host, "help.example.com"], tab_id: 7, label: run.ability_title }]);
    expect(executor.given[0]?.browser).toBe(provider);
    expect(executor.given[0]?.policy).toMatchObject({
      mode: "live_read_safe_write",
      allowed_domains: [site.host, "help.example.com"],
      max_actions: 200,
      forbid_external_send: true,
    });
  });

  it("in the managed browser by default, and a tab is named only for a run in the user's tab", async () => {
    await boot();
    const run = RunResponseSchema.parse((await start({})).body).run;
    expect(run.where).toBe("managed");
    await until(run.dispatch_id, (candidate) => candidate.state === "needs_confirmation");
    expect(executor.given[0]?.browser).toBeUndefined();
    expectError(await start({ tab_id: 3 }), 400, "REQUEST_INVALID");
  });
});

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

describe("past runs and their events", () => {
  it("lists runs newest first, by page and by ability, and replays a run's events after Last-Event-ID", async () => {
    await boot();
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const run = RunResponseSchema.parse(
        (await start({ test_policy: { policy_id: crypto.randomUUID(), mode: "dry_run_only", allowed_domains: [site.host], schema_version: 1 } })).body,
      ).run;
      await agent.call("POST", `/api/runs/${run.dispatch_id}/cancel`, { schema_version: 1 });
      ids.push(run.dispatch_id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const page1 = (await agent.call("GET", `/api/runs?page=1&page_size=2&ability_id=${abilityId}`)).body;
    expect(page1.total).toBe(3);
    expect(page1.runs.map((run: RunRecord) => run.dispatch_id)).toEqual([ids[2], ids[1]]);
    expect((await agent.call("GET", "/api/runs?ability_id=learned.other")).body.total).toBe(0);

    const all = await agent.app.inject({ method: "GET", url: `/api/runs/${ids[0]}/events`, headers: agent.headers() });
    expect(all.headers["content-type"]).toContain("text/event-stream");
    const frames = all.body.split("\n\n").filter((block) => block.startsWith("id: "));
    const events = frames.map((block) =>
      RunEventEnvelopeSchema.parse(
        JSON.parse(
          block
            .split("\n")
            .find((line) => line.startsWith("data: "))
            ?.slice(6) ?? "{}",
        ),
      ),
    );
    expect(events[0]?.run.state).toBe("starting");
    expect(events.at(-1)).toMatchObject({ event: "run.finished", run: { state: "cancelled" } });
    const after = await agent.app.inject({ method: "GET", url: `/api/runs/${ids[0]}/events`, headers: agent.headers({ "last-event-id": "2" }) });
    const replayed = after.body
      .split("\n\n")
      .filter((block) => block.startsWith("id: "))
      .map((block) => Number(block.slice(4, block.indexOf("\n"))));
    expect(replayed[0]).toBe(3);
    expect(replayed.length).toBe(frames.length - 2);
  });
});

describe("GET /api/runs/:dispatchId/events, live", () => {
  it("sends each change of a running run with the whole run, a keepalive, and closes after run.finished", async () => {
    await boot({ keepaliveMs: 100 });
    const address = await agent.app.listen({ host: "127.0.0.1", port: 0 });
    // Listening, the agent serves its own port only: the rest of this test speaks real HTTP.
    const post = async (url: string, body: unknown) =>
      (
        await fetch(`${address}${url}`, {
          method: "POST",
          headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).json() as Promise<Record<string, unknown>>;
    const run = RunResponseSchema.parse(
      await post("/api/runs", { ability_id: abilityId, inputs: { message: "Hello there", access_code: "code-1234" }, schema_version: 1 }),
    ).run;
    const response = await fetch(`${address}/api/runs/${run.dispatch_id}/events`, { headers: { authorization: `Bearer ${agent.token}` } });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    const read = async (until: (sofar: string) => boolean) => {
      while (!until(text)) {
        const chunk = await reader.read();
        if (chunk.done) return;
        text += new TextDecoder().decode(chunk.value);
      }
    };
    await read((sofar) => sofar.includes("event: run.needs_confirmation"));
    const asked = text
      .split("\n\n")
      .filter((block) => block.includes("event: run.needs_confirmation"))
      .map((block) => RunEventEnvelopeSchema.parse(JSON.parse(block.slice(block.indexOf("data: ") + 6))))[0];
    await read((sofar) => sofar.includes(":keepalive"));
    await post(`/api/runs/${run.dispatch_id}/confirm`, {
      confirmation_id: asked?.run.pending_confirmation?.confirmation_id,
      decision: "confirm",
      schema_version: 1,
    });
    await read(() => false);
    const events = text
      .split("\n\n")
      .filter((block) => block.startsWith("id: "))
      .map((block) => RunEventEnvelopeSchema.parse(JSON.parse(block.slice(block.indexOf("data: ") + 6))));
    expect(events.map((event) => event.event)).toEqual(
      expect.arrayContaining(["run.state", "run.step", "run.checkpoint", "run.needs_confirmation", "run.finished"]),
    );
    expect(events.at(-1)).toMatchObject({ event: "run.finished", run: { state: "succeeded" } });
    const ids = text
      .split("\n\n")
      .filter((block) => block.startsWith("id: "))
      .map((block) => Number(block.slice(4, block.indexOf("\n"))));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
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
