import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunListResponseSchema, RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { RunScheduleResponseSchema, type RunSchedule } from "../../../shared/execution/run-schedules";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { createFakeClock, startTestAgent, type FakeClock, type TestAgent } from "../../test-support/test-agent";

/**
 * Issue #33: a schedule fires on a fake clock and its run goes through the real agent's run
 * service and executor in Debian's Chromium, against a fixture shop that counts what was really
 * sent; it survives a restart of the agent with exactly one catch-up run, and never runs twice at once.
 */

let site: RunFixtureSite;
let agent: TestAgent;
let clock: FakeClock;
let abilityId: string;

beforeAll(async () => {
  site = await serveRunFixtureSite();
  // Monday 2026-01-05 08:00 UTC (09:00 in Berlin).
  clock = createFakeClock("2026-01-05T08:00:00.000Z");
  // The scheduler's timer ticks often; the fake clock alone decides what is due.
  agent = await startTestAgent({ clock, scheduleTickMs: 100 });
  ({ abilityId } = await installContactAbility(agent.call, site, { secret: false }));
}, 60_000);
afterAll(async () => {
  await agent?.close();
  await site?.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const scheduleNow = async (id: string): Promise<RunSchedule> =>
  RunScheduleResponseSchema.parse((await agent.call("GET", `/api/schedules/${id}`)).body).schedule;
const runsOfAbility = async (): Promise<RunRecord[]> =>
  RunListResponseSchema.parse((await agent.call("GET", `/api/runs?ability_id=${abilityId}&page_size=100`)).body).runs;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`never got there: ${JSON.stringify(value)}`);
    await pause(100);
  }
}

const runNow = async (dispatchId: string) => RunResponseSchema.parse((await agent.call("GET", `/api/runs/${dispatchId}`)).body).run;

/** The person answers the run's "Send message" question, and the run ends. */
async function confirmAndFinish(dispatchId: string): Promise<RunRecord> {
  const asked = await until(
    () => runNow(dispatchId),
    (run) => run.state === "needs_confirmation" || run.completed_at !== undefined,
  );
  expect(asked.state, JSON.stringify(asked.failure)).toBe("needs_confirmation");
  const answer = await agent.call("POST", `/api/runs/${dispatchId}/confirm`, {
    confirmation_id: asked.pending_confirmation?.confirmation_id,
    decision: "confirm",
    schema_version: 1,
  });
  expect(answer.status).toBe(200);
  return until(
    () => runNow(dispatchId),
    (run) => run.completed_at !== undefined,
  );
}

describe("runs on a schedule in the managed Chromium (issue #33)", () => {
  it("fires when due, runs like any run with its checkpoints and receipts, survives a restart with exactly one catch-up run, and never runs twice at once", async () => {
    const created = await agent.call("POST", "/api/schedules", {
      ability_id: abilityId,
      rule: { kind: "daily", time: "10:00" },
      time_zone: "Europe/Berlin",
      inputs: { message: "Scheduled hello" },
      schema_version: 1,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const scheduleId = RunScheduleResponseSchema.parse(created.body).schedule.schedule_id;

    // Not due yet: several ticks pass and nothing runs.
    await pause(500);
    expect(await runsOfAbility()).toEqual([]);

    // 10:00 in Berlin is 09:00 UTC.
    clock.set("2026-01-05T09:00:30.000Z");
    const fired = await until(
      () => scheduleNow(scheduleId),
      (schedule) => schedule.last_run?.dispatch_id !== undefined,
    );
    const first = fired.last_run?.dispatch_id as string;
    const done = await confirmAndFinish(first);
    expect(done, JSON.stringify(done.failure)).toMatchObject({ state: "succeeded", caller: "schedule", input_names: ["message"] });
    expect(done.checkpoints.every((checkpoint) => checkpoint.status === "reached")).toBe(true);
    // The shop's own count: the message was really sent, once, with the schedule's input.
    expect(site.sends()).toBe(1);
    expect(site.requests.some((request) => request.path === "/send" && request.body.includes("Scheduled+hello"))).toBe(true);
    const receipts = (await agent.call("GET", `/api/dispatches/${first}/checkpoint-receipts`)).body.receipts as Array<{ status: string }>;
    expect(receipts.map((receipt) => receipt.status)).toEqual(["reached", "reached"]);
    expect(await scheduleNow(scheduleId)).toMatchObject({ last_run: { dispatch_id: first, outcome: "succeeded" }, next_due_at: "2026-01-06T09:00:00.000Z" });
    // The outcome is kept with the schedule itself (the run's record is purged after 7 days).
    await until(
      async () => (await agent.app.learning.schedules.store()).get(scheduleId)?.last_run?.outcome,
      (outcome) => outcome === "succeeded",
    );

    // The agent is down for three days (three slots missed), then starts again: one catch-up run.
    await agent.app.learning.runs.store.settle();
    clock.set("2026-01-08T12:00:00.000Z");
    await agent.restart();
    const caughtUp = await until(
      () => scheduleNow(scheduleId),
      (schedule) => schedule.last_run?.dispatch_id !== first,
    );
    const second = caughtUp.last_run?.dispatch_id as string;
    expect(caughtUp.next_due_at).toBe("2026-01-09T09:00:00.000Z");
    await until(
      () => runNow(second),
      (run) => run.state === "needs_confirmation",
    );

    // While that run waits for the person, its next slot comes: it is skipped, not run alongside.
    clock.set("2026-01-09T09:00:10.000Z");
    await until(
      () => scheduleNow(scheduleId),
      (schedule) => schedule.next_due_at === "2026-01-10T09:00:00.000Z",
    );
    expect((await scheduleNow(scheduleId)).last_run?.dispatch_id).toBe(second);

    const secondDone = await confirmAndFinish(second);
    expect(secondDone.state, JSON.stringify(secondDone.failure)).toBe("succeeded");
    await pause(500);
    expect((await runsOfAbility()).map((run) => run.dispatch_id).sort()).toEqual([first, second].sort());
    expect(site.sends()).toBe(2);
  }, 120_000);

  it("a due schedule whose skill was deactivated does not run: it pauses and says why", async () => {
    const created = await agent.call("POST", "/api/schedules", {
      ability_id: abilityId,
      rule: { kind: "every_hours", hours: 1 },
      time_zone: "UTC",
      inputs: { message: "Hourly hello" },
      schema_version: 1,
    });
    const scheduleId = RunScheduleResponseSchema.parse(created.body).schedule.schedule_id;
    const runsBefore = (await runsOfAbility()).length;
    await agent.call("POST", `/api/abilities/${abilityId}/deactivate`);
    clock.advance(2 * 3_600_000);
    await agent.app.learning.scheduler.tick();
    const paused = await scheduleNow(scheduleId);
    expect(paused).toMatchObject({ state: "paused", pause: { code: "skill_deactivated" } });
    expect(paused.last_run).toBeUndefined();
    await pause(300);
    expect((await runsOfAbility()).length).toBe(runsBefore);
  });
});
