import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { MemoryPaths } from "../../memory/memory-paths";
import { publicBundle, stageThrough } from "../../test-support/skill-bundles";
import { ImportPaths } from "../../skill-import/import-store";
import { projectRoot, serverScript, startAgentProcess, type AgentProcess } from "../../test-support/agent-process";
import { makeTempMemoryRoot } from "../../test-support/temp-memory";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { createFakeClock, expectError, startTestAgent, type FakeClock, type TestAgent, type TestAgentOptions } from "../../test-support/test-agent";
import type { ExecuteInput, ExecuteResult } from "../contract/executor-contract";

/**
 * Issue #30 retention drills: a run's record, its events and its screenshot follow a TTL (7 days
 * after the run ended, like raw observations, §0C.16D), go at once with their ability, and a purge
 * cut short is finished by the next sweep. Receipts stay. Through the real agent on a temp
 * ELNOR_MEMORY, its own retention timer and a fake clock.
 */
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

let site: RunFixtureSite;
beforeAll(async () => {
  site = await serveRunFixtureSite();
});
afterAll(async () => {
  await site.close();
});

/** An executor without a browser: it keeps a screenshot, reports each checkpoint reached, and may be held. */
function fakeExecutor() {
  const state = { hold: undefined as Promise<void> | undefined };
  const execute = async (input: ExecuteInput): Promise<ExecuteResult> => {
    await writeFile(input.screenshotPath as string, PNG);
    if (state.hold !== undefined) {
      const signal = input.signal;
      await Promise.race([state.hold, new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }))]);
    }
    for (const checkpoint of input.checkpoints) {
      input.onProgress?.({
        kind: "checkpoint",
        checkpoint_id: checkpoint.checkpoint_id,
        goal: checkpoint.goal,
        status: "reached",
        evidence: "the page shows it",
      });
    }
    const at = new Date().toISOString();
    return { overall: "passed", steps: [], started_at: at, completed_at: at };
  };
  return { state, execute };
}

let agent: TestAgent;
let clock: FakeClock;
let executor: ReturnType<typeof fakeExecutor>;
let abilityId: string;

async function boot(options: TestAgentOptions = {}) {
  clock = createFakeClock(new Date());
  executor = fakeExecutor();
  agent = await startTestAgent({ clock, execute: executor.execute, ...options });
  ({ abilityId } = await installContactAbility((method, url, payload) => agent.call(method, url, payload), site));
}
afterEach(async () => {
  await agent?.close();
});

async function startRun(): Promise<string> {
  const started = await agent.call("POST", "/api/runs", {
    ability_id: abilityId,
    inputs: { message: "Hello there", access_code: "code-1234" },
    schema_version: 1,
  });
  expect(started.status).toBe(202);
  return RunResponseSchema.parse(started.body).run.dispatch_id;
}

async function until(dispatchId: string, done: (run: RunRecord) => boolean): Promise<RunRecord> {
  let last: RunRecord | undefined;
  await vi.waitFor(
    async () => {
      last = RunResponseSchema.parse((await agent.call("GET", `/api/runs/${dispatchId}`)).body).run;
      expect(done(last)).toBe(true);
    },
    { timeout: 10_000, interval: 20 },
  );
  return last as RunRecord;
}

const finished = async (dispatchId: string) => {
  await until(dispatchId, (run) => run.state === "succeeded");
  await agent.app.learning.runs.store.settle();
};

/** What is on disk for this run: record, events, screenshot. */
async function runFiles(dispatchId: string): Promise<string[]> {
  const names = await readdir(path.join(agent.root, MemoryPaths.runs)).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith(`${dispatchId}.`)).sort();
}
const allFiles = (dispatchId: string) => [`${dispatchId}.events.jsonl`, `${dispatchId}.json`, `${dispatchId}.png`];

/** The receipts the spec keeps for ever (§0C.16D): checkpoint, learning (`ability.used_later`), capability use. */
async function receiptsOf(dispatchId: string) {
  const lines = async (relative: string) => ((await agent.memory.readText(relative)) ?? "").split("\n").filter((line) => line.includes(dispatchId));
  return {
    checkpoint: (await lines(MemoryPaths.checkpointReceipts)).length,
    learning: (await lines(MemoryPaths.receipts)).length,
    capabilityUse: (await lines(MemoryPaths.capabilityUseReceipts)).length,
    byRoute: ((await agent.call("GET", `/api/dispatches/${dispatchId}/checkpoint-receipts`)).body.receipts as unknown[] | undefined)?.length ?? 0,
  };
}

describe("runs after they end (issue #30, §0C.16D)", () => {
  it("keeps a run 7 days after it ended, then its timer purges record, events and screenshot and keeps every receipt", async () => {
    await boot({ retentionIntervalMs: 25 });
    const dispatchId = await startRun();
    await finished(dispatchId);
    expect(await runFiles(dispatchId)).toEqual(allFiles(dispatchId));
    const receipts = await receiptsOf(dispatchId);
    expect(receipts).toEqual({ checkpoint: 2, learning: 1, capabilityUse: 1, byRoute: 2 });

    // Younger than the TTL: several sweeps later, still all there.
    clock.advance(7 * DAY - MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await runFiles(dispatchId)).toEqual(allFiles(dispatchId));
    expect((await agent.call("GET", `/api/runs/${dispatchId}`)).status).toBe(200);

    clock.advance(2 * MINUTE);
    await vi.waitFor(async () => expect(await runFiles(dispatchId)).toEqual([]), { timeout: 5000, interval: 25 });
    expectError(await agent.call("GET", `/api/runs/${dispatchId}`), 404, "RUN_NOT_FOUND");
    expect((await agent.call("GET", "/api/runs")).body.runs).toEqual([]);
    expect(await receiptsOf(dispatchId)).toEqual(receipts);
  });

  it("never purges a run that is still going, however long it has gone; it is purged 7 days after it ends", async () => {
    await boot({ retentionIntervalMs: 25 });
    let release = () => {};
    executor.state.hold = new Promise<void>((resolve) => (release = resolve));
    const dispatchId = await startRun();
    await until(dispatchId, (run) => run.state === "running");
    await vi.waitFor(async () => expect(await runFiles(dispatchId)).toEqual(allFiles(dispatchId)), { timeout: 5000, interval: 25 });

    clock.advance(30 * DAY);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await runFiles(dispatchId)).toEqual(allFiles(dispatchId));
    expect((await agent.call("GET", `/api/runs/${dispatchId}`)).body.run.state).toBe("running");

    release();
    await finished(dispatchId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await runFiles(dispatchId)).toEqual(allFiles(dispatchId));
    clock.advance(7 * DAY + MINUTE);
    await vi.waitFor(async () => expect(await runFiles(dispatchId)).toEqual([]), { timeout: 5000, interval: 25 });
  });
});

describe("runs of a deleted ability (issue #30)", () => {
  it("DELETE /api/abilities/:abilityId removes the ability and every run's files at once, cancels one still going, and keeps the receipts", async () => {
    await boot();
    const done = await startRun();
    await finished(done);
    let release = () => {};
    executor.state.hold = new Promise<void>((resolve) => (release = resolve));
    const going = await startRun();
    await until(going, (run) => run.state === "running");
    await vi.waitFor(async () => expect(await runFiles(going)).toEqual(allFiles(going)), { timeout: 5000, interval: 25 });
    const kept = await receiptsOf(done);
    const category = (await agent.call("POST", "/api/categories", { title: "Shop", schema_version: 1 })).body.category.category_id as string;
    expect((await agent.call("POST", `/api/categories/${category}/assign`, { item_kind: "skill", item_id: abilityId, schema_version: 1 })).status).toBe(200);
    const skillName = abilityId.replace("learned.", "");
    const projected = path.join(agent.root, "openclaw-workspace", "skills", skillName);
    expect(await readdir(projected)).toContain("SKILL.md");

    const deleted = await agent.call("DELETE", `/api/abilities/${abilityId}`);
    release();

    expect(deleted).toMatchObject({ status: 200, body: { ability_id: abilityId, deleted: true, runs_purged: 2 } });
    expect(await runFiles(done)).toEqual([]);
    expect(await runFiles(going)).toEqual([]);
    expect(await receiptsOf(done)).toEqual(kept);
    // Its files: the projection the assistant reads, the canonical copy, its category filing.
    await expect(readdir(projected)).rejects.toThrow();
    expect(await agent.memory.exists(MemoryPaths.installedSkill(skillName))).toBe(false);
    expect((await agent.call("GET", `/api/categories/${category}/items`)).body.items).toEqual([]);
    // The ability itself is gone: not in availability, no run-spec, a second delete is a 404.
    const snapshot = (await agent.call("GET", "/api/abilities/availability")).body;
    expect(JSON.stringify(snapshot)).not.toContain(abilityId);
    expect((await agent.call("GET", `/api/abilities/${abilityId}/run-spec`)).status).toBe(404);
    expectError(await agent.call("DELETE", `/api/abilities/${abilityId}`), 404, "ABILITY_NOT_FOUND");
    expect(
      ((await agent.memory.readText(MemoryPaths.receipts)) ?? "").split("\n").some((line) => line.includes('"ability.deleted"') && line.includes(abilityId)),
    ).toBe(true);
    // And it stays gone across a restart (the registry's own record of the delete).
    await agent.restart();
    expect(JSON.stringify((await agent.call("GET", "/api/abilities/availability")).body)).not.toContain(abilityId);
  });
});

describe("deleting an imported ability (issue #30)", () => {
  it("removes its kept archive and projection too, and a second import of the same bundle installs again", async () => {
    await boot();
    await agent.call("POST", "/api/skills/import/install-private", { import_id: await stageThrough(agent, publicBundle()), schema_version: 1 });
    const imported = ((await agent.call("GET", "/api/abilities/availability")).body.abilities as Array<{ ability_id: string; source: string }>).find(
      (entry) => entry.source === "imported",
    );
    expect(imported).toBeDefined();
    // The bundle's own name is its skill folder's.
    const skillName = "pdf-form-filler";
    const archive = ImportPaths.installed(skillName);
    expect(await agent.memory.exists(archive)).toBe(true);
    expect(await readdir(path.join(agent.root, "openclaw-workspace", "skills", skillName))).toContain("SKILL.md");

    expect(await agent.call("DELETE", `/api/abilities/${imported?.ability_id}`)).toMatchObject({ status: 200, body: { deleted: true, runs_purged: 0 } });

    expect(await agent.memory.exists(archive)).toBe(false);
    await expect(readdir(path.join(agent.root, "openclaw-workspace", "skills", skillName))).rejects.toThrow();
    expect(JSON.stringify((await agent.call("GET", "/api/abilities/availability")).body)).not.toContain(imported?.ability_id as string);
    // The learned ability beside it is untouched.
    expect(JSON.stringify((await agent.call("GET", "/api/abilities/availability")).body)).toContain(abilityId);
    await agent.call("POST", "/api/skills/import/install-private", { import_id: await stageThrough(agent, publicBundle()), schema_version: 1 });
    expect(JSON.stringify((await agent.call("GET", "/api/abilities/availability")).body)).toContain(imported?.ability_id as string);
  });
});

describe("a purge cut short (issue #30)", () => {
  it("is finished by the next start, whichever file was left: the agent starts, lists runs and reads receipts", async () => {
    await boot();
    const first = await startRun();
    await finished(first);
    const second = await startRun();
    await finished(second);
    const third = await startRun();
    await finished(third);
    clock.advance(8 * DAY);
    const runs = path.join(agent.root, MemoryPaths.runs);
    // Killed after the screenshot and events went, before the record: the record is left.
    await rm(path.join(runs, `${first}.png`));
    await rm(path.join(runs, `${first}.events.jsonl`));
    // A purge in another order (or a record lost) leaves the events and screenshot with no record.
    await rm(path.join(runs, `${second}.json`));
    // Untouched, and as old: the same sweep purges it whole.
    expect(await runFiles(third)).toEqual(allFiles(third));

    await agent.restart();

    // Issue 32: the start-up sweep runs just after the agent is ready, not before it listens.
    await vi.waitFor(async () => expect([...(await runFiles(first)), ...(await runFiles(second)), ...(await runFiles(third))]).toEqual([]), {
      timeout: 10_000,
      interval: 25,
    });
    const listed = await agent.call("GET", "/api/runs");
    expect(listed).toMatchObject({ status: 200, body: { runs: [], total: 0 } });
    expect((await receiptsOf(first)).checkpoint).toBe(2);
    // The agent works: a new run goes and is kept.
    const fresh = await startRun();
    await finished(fresh);
    expect(await runFiles(fresh)).toEqual(allFiles(fresh));
  });

  it("finishes a delete the agent was stopped in the middle of: runs of an ability no longer installed go at the next start", async () => {
    await boot();
    const dispatchId = await startRun();
    await finished(dispatchId);
    // The delete's commit point written, the agent stopped before its runs were purged.
    await agent.app.learning.abilities.remove(abilityId);
    expect(await runFiles(dispatchId)).toEqual(allFiles(dispatchId));

    await agent.restart();

    await vi.waitFor(async () => expect(await runFiles(dispatchId)).toEqual([]), { timeout: 10_000, interval: 25 });
    expect((await receiptsOf(dispatchId)).checkpoint).toBe(2);
  });
});

describe("fault drill: SIGKILL in the middle of a purge (issue #30)", () => {
  it("the agent killed while its start-up sweep purges runs starts again, finishes the purge and serves runs", async () => {
    const { root, cleanup } = await makeTempMemoryRoot("elnor-run-purge-kill-");
    let second: AgentProcess | undefined;
    try {
      // 3000 runs that ended 8 days ago, each with its record, events and screenshot.
      const runs = path.join(root, MemoryPaths.runs);
      await mkdir(runs, { recursive: true });
      const ended = new Date(Date.now() - 8 * DAY).toISOString();
      for (let index = 0; index < 3000; index += 1) {
        const dispatchId = `run-${String(index).padStart(4, "0")}-${randomUUID()}`;
        const record: RunRecord = {
          dispatch_id: dispatchId,
          ability_id: "learned.gone",
          ability_title: "Gone",
          state: "succeeded",
          where: "managed",
          caller: "api",
          input_names: [],
          steps: [],
          checkpoints: [],
          started_at: ended,
          updated_at: ended,
          completed_at: ended,
          schema_version: 1,
        };
        await writeFile(path.join(runs, `${dispatchId}.json`), JSON.stringify(record));
        await writeFile(path.join(runs, `${dispatchId}.events.jsonl`), `${JSON.stringify({ event_id: 1, event: "run.finished", run: record })}\n`);
        await writeFile(path.join(runs, `${dispatchId}.png`), PNG);
      }
      const total = (await readdir(runs)).length;
      expect(total).toBe(9000);

      // The real agent, as `npm start` runs it; killed as soon as its start-up sweep has removed anything.
      const proc = spawn(process.execPath, ["--import", "tsx", serverScript], {
        cwd: projectRoot,
        env: {
          ...process.env,
          ELNOR_MEMORY: root,
          ELNOR_AGENT_PORT: "0",
          OPENCLAW_WORKSPACE: `${root}/openclaw-workspace`,
          OPENCLAW_SKILLS_DIR: `${root}/no-user-skills`,
          ELNOR_BUNDLED_SKILLS_DIRS: "",
        },
        stdio: "ignore",
      });
      const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
      let left = total;
      // Generous: on a loaded machine the agent may take a minute to start.
      const deadline = Date.now() + 150_000;
      while (left === total && Date.now() < deadline && proc.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        left = (await readdir(runs)).length;
      }
      proc.kill("SIGKILL");
      await exited;
      left = (await readdir(runs)).length;
      // Killed part-way: some runs gone, some left, maybe one with its record but not its events.
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(total);

      second = await startAgentProcess(root);
      // The purge is finished by the sweep just after the agent is ready (issue 32: not before it listens).
      await vi.waitFor(async () => expect(await readdir(runs)).toEqual([]), { timeout: 60_000, interval: 50 });
      const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
      const listed = await fetch(`${second.url}/api/runs`, { headers: { authorization: `Bearer ${token}` } });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toMatchObject({ runs: [], total: 0 });
    } finally {
      await second?.stop();
      await cleanup();
    }
  }, 240_000);
});
