import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AbilityRunSpecSchema, RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { MemoryPaths } from "../../memory/memory-paths";
import { memoryText } from "../../test-support/memory-text";
import { publicBundle, stageThrough } from "../../test-support/skill-bundles";
import { serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { bootScriptedAgent, startRun, untilRun, type ScriptedExecutor } from "../../test-support/scripted-executor";
import { expectError, type TestAgent, type TestAgentOptions } from "../../test-support/test-agent";
import type { BrowserProvider } from "../contract/executor-contract";

/**
 * The run service's own rules, through the routes, with the scripted executor (no browser): what a
 * run needs, what a start is refused for, and where a run acts. A run's course: `run-lifecycle.test.ts`;
 * its events: `run-events-route.test.ts`.
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
