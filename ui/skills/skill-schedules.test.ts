import { render } from "svelte/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbilityRunSpecSchema } from "../../shared/execution/run-contract";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import SkillSchedules from "./SkillSchedules.svelte";
import { SkillSchedulesState } from "./skill-schedules.svelte";
import { startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

/** Issue #33's panel state against a real agent: schedules made, refused with the agent's own reason, paused, resumed, deleted. */
let agent: ListeningAgent;
let site: RunFixtureSite;
let plainId: string;
let secretId: string;

beforeAll(async () => {
  agent = await startListeningAgent();
  site = await serveRunFixtureSite();
  ({ abilityId: plainId } = await installContactAbility(agent.call, site, { secret: false, goal: "Post a note to the shop" }));
  ({ abilityId: secretId } = await installContactAbility(agent.call, site));
}, 60_000);
afterAll(async () => {
  await agent?.close();
  await site?.close();
});

const specOf = async (abilityId: string) => AbilityRunSpecSchema.parse((await agent.call("GET", `/api/abilities/${abilityId}/run-spec`)).body);

describe("Run on a schedule in Skills (issue #33), against a real agent", () => {
  it("adds an every-N-hours schedule with the skill's input, then pauses, resumes and deletes it", async () => {
    const state = new SkillSchedulesState(agent.deps(), "Europe/Berlin");
    const spec = await specOf(plainId);
    state.toggle(plainId);
    state.draft.kind = "every_hours";
    state.draft.hours = 3;
    // Missing input: said in the panel, nothing sent.
    await state.create(spec);
    expect(state.error).toContain("Fill in");
    expect(state.of(plainId)).toEqual([]);
    state.draft.values = { message: "Every three hours" };
    await state.create(spec);
    expect(state.error).toBeNull();
    const [schedule] = state.of(plainId);
    expect(schedule).toMatchObject({
      rule: { kind: "every_hours", hours: 3 },
      time_zone: "Europe/Berlin",
      inputs: { message: "Every three hours" },
      state: "active",
    });
    const html = render(SkillSchedules, { props: { schedules: state, abilityId: plainId, entry: { status: "ready", spec } } }).body;
    expect(html).toContain("Every 3 hours");
    expect(html).toContain("Next run:");
    await state.pause(schedule?.schedule_id as string);
    expect(state.of(plainId)[0]).toMatchObject({ state: "paused", pause: { code: "paused_by_person" } });
    await state.resume(schedule?.schedule_id as string);
    expect(state.of(plainId)[0]?.state).toBe("active");
    await state.remove(schedule?.schedule_id as string);
    expect(state.of(plainId)).toEqual([]);
  });

  it("shows the form disabled with why for a skill with a secret input, and the agent refuses it the same way", async () => {
    const state = new SkillSchedulesState(agent.deps(), "UTC");
    const spec = await specOf(secretId);
    state.toggle(secretId);
    const html = render(SkillSchedules, { props: { schedules: state, abilityId: secretId, entry: { status: "ready", spec } } }).body;
    expect(html).toContain("“Access code” is a secret input");
    expect(html).toMatch(/<fieldset[^>]*disabled/);
    state.draft.values = { message: "Hi" };
    await state.create(spec);
    expect(state.error).toContain("secret");
    expect(state.of(secretId)).toEqual([]);
  });
});
