import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readyProposal, type AgentCall } from "../../agent/test-support/ready-proposal";
import { createAgentClient } from "../agent-link/agent-client";
import { SkillsCatalogState } from "./skills-catalog.svelte";
import { eventually, startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

let agent: ListeningAgent;
let skills: SkillsCatalogState | undefined;

beforeEach(async () => {
  agent = await startListeningAgent();
});
afterEach(async () => {
  skills?.destroy();
  skills = undefined;
  await agent.close();
});

/** Another client of the same agent (the assistant runtime, a second panel, a script). */
const otherClient: AgentCall = (...args) => agent.call(...args);

async function installElsewhere(goal: string): Promise<{ abilityId: string; proposalId: string }> {
  const { proposalId } = await readyProposal(otherClient, goal);
  const installed = await otherClient("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  expect(installed.status).toBe(200);
  return { abilityId: installed.body.ability_id as string, proposalId };
}

describe("Skills follows the availability snapshot while it is open (R11.2-35)", () => {
  it("shows an ability another client installed, then its promotion, without being reloaded, and marks it new", async () => {
    skills = new SkillsCatalogState(agent.deps());
    await skills.load();
    expect(skills.status).toBe("ready");
    expect(skills.abilities).toEqual([]);
    skills.watch(40);

    const { abilityId, proposalId } = await installElsewhere("Export the monthly invoices");
    await eventually(() => skills?.abilities.some((ability) => ability.ability_id === abilityId) === true, "the installed ability to appear");
    expect(skills.arrived.has(abilityId)).toBe(true);
    expect(skills.shown.map((ability) => ability.install_lane)).toEqual(["experimental_private"]);

    // Approve, then promote: each is an ability.snapshot.updated the page must follow.
    expect((await otherClient("POST", `/api/learn/proposals/${proposalId}/approve`, { schema_version: 1 })).status).toBe(200);
    expect((await otherClient("POST", `/api/abilities/${abilityId}/promote-shared`)).status).toBe(200);
    await eventually(() => skills?.abilities[0]?.install_lane === "shared_promoted", "the promotion to show");
  });

  it("asks with the snapshot's tag and keeps the list when nothing changed", async () => {
    const { abilityId } = await installElsewhere("Archive old reports");
    // The panel's client over a fetch that notes the status of each availability answer.
    const answers: number[] = [];
    const notingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).endsWith("/api/abilities/availability")) answers.push(response.status);
      return response;
    };
    skills = new SkillsCatalogState({ ...agent.deps(), client: createAgentClient({ baseUrl: agent.url, token: agent.token, fetch: notingFetch }) });
    await skills.load();
    expect(answers).toEqual([200]);
    answers.length = 0;
    const before = skills.abilities;
    skills.watch(30);
    await eventually(() => answers.length >= 3, "three polls");
    skills.unwatch();
    expect(answers.every((status) => status === 304)).toBe(true);
    // Same array: nothing was re-rendered, and an ability present at the first load is not "new".
    expect(skills.abilities).toBe(before);
    expect(skills.arrived.has(abilityId)).toBe(false);
  });

  it("keeps the list when the agent stops answering, and reports the failure", async () => {
    await installElsewhere("Archive old reports");
    const deps = agent.deps();
    skills = new SkillsCatalogState(deps);
    await skills.load();
    skills.watch(30);
    await agent.stop();
    await eventually(() => deps.failures.length > 0, "the failure to be reported");
    expect(skills.status).toBe("ready");
    expect(skills.abilities).toHaveLength(1);
  });
});

describe("Skills search (issue #15)", () => {
  it("finds a skill asked for in other words, through the agent's lookup, and shows every skill again when cleared", async () => {
    const invoices = await installElsewhere("Export the monthly invoices");
    const reports = await installElsewhere("Archive old reports");
    skills = new SkillsCatalogState(agent.deps());
    await skills.load();
    expect(skills.shown).toHaveLength(2);

    skills.search = "download the monthly bills";
    await skills.runSearch();
    expect(skills.shown.map((ability) => ability.ability_id)).toEqual([invoices.abilityId]);

    skills.search = "tell me a joke";
    await skills.runSearch();
    expect(skills.shown).toEqual([]);

    skills.search = "  ";
    await skills.runSearch();
    expect(skills.shown.map((ability) => ability.ability_id).sort()).toEqual([invoices.abilityId, reports.abilityId].sort());
  }, 60_000);
});
