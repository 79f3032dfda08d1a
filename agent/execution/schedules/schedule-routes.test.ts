import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunScheduleListResponseSchema, RunScheduleResponseSchema, type RunSchedule } from "../../../shared/execution/run-schedules";
import { MemoryPaths } from "../../memory/memory-paths";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { createFakeClock, expectError, startTestAgent, type FakeClock, type TestAgent } from "../../test-support/test-agent";

/**
 * Issue #33's schedules through the real agent's routes on a temp ELNOR_MEMORY: what a person may
 * schedule, how bad input is refused (and changes nothing), and how a schedule pauses by itself
 * when its skill is deactivated or replaced by a new version. No run fires here: the clock stands
 * still before every schedule's first slot (schedule-chromium.test.ts runs them).
 */
let site: RunFixtureSite;
let agent: TestAgent;
let clock: FakeClock;
let plainId: string;
let secretId: string;
const CANARY = `CANARY-schedule-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  site = await serveRunFixtureSite();
  // Monday 2026-01-05 08:00 UTC.
  clock = createFakeClock("2026-01-05T08:00:00.000Z");
  agent = await startTestAgent({ clock, scheduleTickMs: 60_000 });
  ({ abilityId: plainId } = await installContactAbility(agent.call, site, { secret: false, goal: "Post a note to the shop" }));
  ({ abilityId: secretId } = await installContactAbility(agent.call, site));
}, 60_000);
afterAll(async () => {
  await agent?.close();
  await site?.close();
});

const create = (body: Record<string, unknown>) =>
  agent.call("POST", "/api/schedules", { rule: { kind: "daily", time: "07:30" }, time_zone: "Europe/Berlin", schema_version: 1, ...body });
const scheduleOf = (answer: { body: unknown }): RunSchedule => RunScheduleResponseSchema.parse(answer.body).schedule;
const list = async () => RunScheduleListResponseSchema.parse((await agent.call("GET", "/api/schedules")).body).schedules;
const viewOnDisk = () => readFile(path.join(agent.root, MemoryPaths.schedulesCurrent), "utf8").catch(() => "");

describe("schedules of a skill (issue #33)", () => {
  it("refuses a skill with a secret input with ABILITY_NOT_SCHEDULABLE, naming the input, and writes nothing", async () => {
    const before = await viewOnDisk();
    const refused = await create({ ability_id: secretId, inputs: { message: "Hi" } });
    expectError(refused, 409, "ABILITY_NOT_SCHEDULABLE");
    expect(refused.body.error.message).toContain("Access code");
    expect(refused.body.error.message).toContain("secret");
    expect(await viewOnDisk()).toBe(before);
    expect(await list()).toEqual([]);
  });

  it("refuses bad input with REQUEST_INVALID (unknown zone, bad time, missing or unknown input, unknown skill) and changes nothing", async () => {
    const before = await viewOnDisk();
    expectError(await create({ ability_id: plainId, inputs: { message: "Hi" }, time_zone: "Mars/Olympus" }), 400, "REQUEST_INVALID");
    expectError(await create({ ability_id: plainId, inputs: { message: "Hi" }, rule: { kind: "daily", time: "25:00" } }), 400, "REQUEST_INVALID");
    expectError(await create({ ability_id: plainId, inputs: { message: "Hi" }, rule: { kind: "every_hours", hours: 0 } }), 400, "REQUEST_INVALID");
    expectError(await create({ ability_id: plainId, inputs: {} }), 400, "REQUEST_INVALID");
    expectError(await create({ ability_id: plainId, inputs: { message: "Hi", access_code: "x" } }), 400, "REQUEST_INVALID");
    expectError(await create({ ability_id: "learned.no-such-skill", inputs: {} }), 404, "ABILITY_NOT_FOUND");
    expectError(await agent.call("GET", `/api/schedules/${crypto.randomUUID()}`), 404, "SCHEDULE_NOT_FOUND");
    expect(await viewOnDisk()).toBe(before);
    expect(await list()).toEqual([]);
  });

  it("creates a daily schedule in the person's zone, lists it, pauses, resumes and deletes it; the input value is never logged", async () => {
    const created = await create({ ability_id: plainId, inputs: { message: CANARY } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const schedule = scheduleOf(created);
    // 07:30 in Berlin (UTC+1 in January) is 06:30 UTC; 08:00 UTC has passed it today.
    expect(schedule).toMatchObject({ state: "active", where: "managed", time_zone: "Europe/Berlin", next_due_at: "2026-01-06T06:30:00.000Z" });
    expect((await list()).map((item) => item.schedule_id)).toEqual([schedule.schedule_id]);
    const paused = scheduleOf(await agent.call("POST", `/api/schedules/${schedule.schedule_id}/pause`, { schema_version: 1 }));
    expect(paused).toMatchObject({ state: "paused", pause: { code: "paused_by_person" } });
    expect(paused.next_due_at).toBeUndefined();
    const resumed = scheduleOf(await agent.call("POST", `/api/schedules/${schedule.schedule_id}/resume`, { schema_version: 1 }));
    expect(resumed).toMatchObject({ state: "active", next_due_at: "2026-01-06T06:30:00.000Z" });
    expect(resumed.pause).toBeUndefined();
    const removed = await agent.call("DELETE", `/api/schedules/${schedule.schedule_id}`);
    expect(removed.body).toMatchObject({ deleted: true });
    expectError(await agent.call("GET", `/api/schedules/${schedule.schedule_id}`), 404, "SCHEDULE_NOT_FOUND");
    // The value lived in the current view while the schedule did; the log and the agent's log never had it.
    expect(await viewOnDisk()).not.toContain(CANARY);
    expect(await readFile(path.join(agent.root, MemoryPaths.scheduleLog), "utf8")).not.toContain(CANARY);
    expect(agent.logs.join("\n")).not.toContain(CANARY);
  });

  it("refuses a run claiming to be a schedule's from outside the agent", async () => {
    expectError(
      await agent.call("POST", "/api/runs", { ability_id: plainId, inputs: { message: "Hi" }, caller: "schedule", schema_version: 1 }),
      400,
      "REQUEST_INVALID",
    );
  });

  it("pauses when its skill is deactivated and says why; resuming waits until the skill is active again", async () => {
    const schedule = scheduleOf(await create({ ability_id: plainId, inputs: { message: "Hi" }, rule: { kind: "every_hours", hours: 4 } }));
    expect(schedule.next_due_at).toBe("2026-01-05T12:00:00.000Z");
    await agent.call("POST", `/api/abilities/${plainId}/deactivate`);
    const paused = scheduleOf(await agent.call("GET", `/api/schedules/${schedule.schedule_id}`));
    expect(paused).toMatchObject({ state: "paused", pause: { code: "skill_deactivated" } });
    expect(paused.pause?.message).toContain("deactivated");
    expectError(await agent.call("POST", `/api/schedules/${schedule.schedule_id}/resume`, { schema_version: 1 }), 409, "ABILITY_NOT_RUNNABLE");
    expect(scheduleOf(await agent.call("GET", `/api/schedules/${schedule.schedule_id}`)).state).toBe("paused");
    await agent.call("POST", `/api/abilities/${plainId}/activate`);
    // Activating the skill does not resume the schedule: the person does.
    expect(scheduleOf(await agent.call("GET", `/api/schedules/${schedule.schedule_id}`)).state).toBe("paused");
    clock.advance(60 * 60_000);
    const resumed = scheduleOf(await agent.call("POST", `/api/schedules/${schedule.schedule_id}/resume`, { schema_version: 1 }));
    // every_hours counts again from the resume.
    expect(resumed).toMatchObject({ state: "active", next_due_at: "2026-01-05T13:00:00.000Z" });
    await agent.call("DELETE", `/api/schedules/${schedule.schedule_id}`);
  });

  it("pauses when its skill gets a new version and says which; resuming accepts the new version", async () => {
    const schedule = scheduleOf(await create({ ability_id: plainId, inputs: { message: "Hi" }, rule: { kind: "weekly", weekday: "friday", time: "18:00" } }));
    const improved = await installContactAbility(agent.call, site, { secret: false, goal: "Post a note to the shop", improve: plainId });
    expect(improved.abilityId).toBe(plainId);
    const paused = scheduleOf(await agent.call("GET", `/api/schedules/${schedule.schedule_id}`));
    expect(paused).toMatchObject({ state: "paused", pause: { code: "skill_version_changed" } });
    expect(paused.pause?.message).toContain(schedule.skill_version);
    const resumed = scheduleOf(await agent.call("POST", `/api/schedules/${schedule.schedule_id}/resume`, { schema_version: 1 }));
    expect(resumed.state).toBe("active");
    expect(resumed.skill_version).not.toBe(schedule.skill_version);
    expect(paused.pause?.message).toContain(resumed.skill_version);
  }, 30_000);

  it("pauses when its skill is deleted", async () => {
    const schedule = (await list()).find((item) => item.state === "active");
    expect(schedule).toBeDefined();
    expect((await agent.call("DELETE", `/api/abilities/${plainId}`)).status).toBe(200);
    const paused = scheduleOf(await agent.call("GET", `/api/schedules/${schedule?.schedule_id}`));
    expect(paused).toMatchObject({ state: "paused", pause: { code: "skill_deleted" } });
    expectError(await agent.call("POST", `/api/schedules/${schedule?.schedule_id}/resume`, { schema_version: 1 }), 404, "ABILITY_NOT_FOUND");
  });
});
