import { randomUUID } from "node:crypto";
import { rename } from "node:fs/promises";
import path from "node:path";
import { agentLoggerOptions, buildApp } from "../../agent/app/app";
import { openScheduleStore } from "../../agent/execution/schedules/schedule-store";
import { openMemoryStore, type MemoryStore } from "../../agent/memory/memory-store";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { installContactAbility, serveRunFixtureSite } from "../../agent/test-support/run-fixture";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import type { RunSchedule } from "../../shared/execution/run-schedules";
import type { BenchResult } from "../bench-result";

/**
 * Issue #33: start-up must not become slow with schedules. The agent (built in-process, as the
 * tests build it) goes from nothing to ready on an ELNOR_MEMORY holding SCHEDULES schedules, against
 * the same memory without them; the schedules' view is read by the scheduler's first tick, after
 * ready, which is reported on its own. Median of ROUNDS, alternating.
 */
const SCHEDULES = 1_000;
const ROUNDS = 7;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Build → ready, then the first scheduler tick, which reads the schedules (none due) off the way to ready. */
async function readyMs(root: string): Promise<{ ms: number; tickMs: number }> {
  const memory = await openMemoryStore({ root });
  const started = performance.now();
  // The timer's first tick waits an hour: the one measured below is the first.
  const app = await buildApp({ memory, port: 47999, logger: agentLoggerOptions("silent"), scheduleTickMs: 3_600_000 });
  app.learning.scheduler.start = () => undefined;
  await app.ready();
  const ms = performance.now() - started;
  const ticked = performance.now();
  await app.learning.scheduler.tick();
  const tickMs = performance.now() - ticked;
  await app.close();
  await memory.close();
  return { ms, tickMs };
}

async function seed(memory: MemoryStore, abilityId: string, skillVersion: string, at: string): Promise<void> {
  const store = await openScheduleStore(memory);
  const schedules: RunSchedule[] = Array.from({ length: SCHEDULES }, (_, index) => ({
    schedule_id: randomUUID(),
    ability_id: abilityId,
    ability_title: "Send a message to the shop",
    skill_version: skillVersion,
    rule: index % 2 === 0 ? { kind: "daily", time: "07:30" } : { kind: "weekly", weekday: "friday", time: "18:00" },
    time_zone: "Europe/Berlin",
    inputs: { message: `Bench message ${index}` },
    where: "managed",
    state: "active",
    // Far ahead: nothing is due while the bench runs.
    next_due_at: "2099-01-01T06:30:00.000Z",
    anchor_at: at,
    created_at: at,
    updated_at: at,
    schema_version: 1,
  }));
  await store.putMany(schedules, "created", at);
}

export async function benchSchedules(): Promise<BenchResult[]> {
  const { root, cleanup } = await makeTempMemoryRoot("elnor-bench-schedules-");
  const site = await serveRunFixtureSite();
  try {
    // One installed skill without a secret input, through the agent's own routes.
    const memory = await openMemoryStore({ root });
    const app = await buildApp({ memory, port: 47999, logger: agentLoggerOptions("silent") });
    await app.ready();
    const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
    const call = async (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) => {
      const response = await app.inject({
        method,
        url,
        headers: { host: "127.0.0.1:47999", authorization: `Bearer ${token}` },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
      return { status: response.statusCode, body: response.json() as Record<string, any> };
    };
    const { abilityId } = await installContactAbility(call, site, { secret: false });
    const version = await skillVersionOf(call, abilityId);
    await app.close();
    await seed(memory, abilityId, version, new Date().toISOString());
    await memory.close();

    const view = path.join(root, MemoryPaths.schedulesCurrent);
    const aside = `${view}.aside`;
    const withSchedules: Array<{ ms: number; tickMs: number }> = [];
    const without: number[] = [];
    // One start of each first, unmeasured: the modules' first compilation is no one's cost.
    await readyMs(root);
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternating which goes first, so neither always follows the other's close.
      const order = round % 2 === 0 ? ["with", "without"] : ["without", "with"];
      for (const which of order) {
        if (which === "without") await rename(view, aside);
        const run = await readyMs(root);
        if (which === "without") {
          without.push(run.ms);
          await rename(aside, view);
        } else withSchedules.push(run);
      }
    }
    const ready = median(withSchedules.map((run) => run.ms));
    const baseline = median(without);
    const tick = median(withSchedules.map((run) => run.tickMs));
    return [
      {
        name: `agent ready with ${SCHEDULES} schedules (in-process build → ready), median of ${ROUNDS}`,
        value: ready,
        unit: "ms",
        baselineName: "same ELNOR_MEMORY without schedules",
        baseline,
        target: "≤ 1.2× baseline (the view is not read on the way to ready)",
        pass: ready <= baseline * 1.2,
      },
      {
        name: `first scheduler tick after ready over ${SCHEDULES} schedules, none due (reads and checks the view, skill check, scan)`,
        value: tick,
        unit: "ms",
        target: "reported (off the way to ready)",
        pass: true,
      },
    ];
  } finally {
    await site.close();
    await cleanup();
  }
}

/** The version a schedule of this skill is bound to, as a schedule made through the API records it. */
async function skillVersionOf(
  call: (method: "POST" | "DELETE", url: string, payload?: unknown) => Promise<{ body: Record<string, any> }>,
  abilityId: string,
): Promise<string> {
  const created = await call("POST", "/api/schedules", {
    ability_id: abilityId,
    rule: { kind: "every_hours", hours: 1 },
    time_zone: "UTC",
    inputs: { message: "probe" },
    schema_version: 1,
  });
  await call("DELETE", `/api/schedules/${created.body.schedule.schedule_id as string}`);
  return created.body.schedule.skill_version as string;
}
