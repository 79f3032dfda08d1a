import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readyProposal } from "../../agent/test-support/ready-proposal";
import { SessionSetupState } from "./session-setup.svelte";
import { eventually, startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

let agent: ListeningAgent;
beforeEach(async () => {
  agent = await startListeningAgent();
});
afterEach(async () => {
  await agent.close();
});

describe("the Improving Existing Skill picker (issue #16)", () => {
  it("offers the installed skills once the agent's features are read, even when the set-up opened before", async () => {
    const { proposalId } = await readyProposal(agent.call, "Export the monthly invoices");
    const installed = await agent.call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(installed.status).toBe(200);
    const known = new Set<string>();
    const setup = new SessionSetupState(
      { ...agent.deps(), features: { has: (feature) => known.has(feature) } },
      { onCreated: () => {}, onShowActive: () => {} },
    );
    // Opened right after pairing: the agent's description is not read yet, so no list.
    await setup.begin("improving_existing_skill");
    expect(setup.skillChoices).toEqual([]);
    known.add("availability");
    setup.refreshSkillChoices();
    await eventually(() => setup.skillChoices.length === 1, "the installed skill to be offered");
    expect(setup.skillChoices[0]).toMatchObject({ id: installed.body.ability_id, title: expect.stringMatching(/invoices/i) });
  });

  it("leaves a Demonstrating set-up alone", async () => {
    const setup = new SessionSetupState(agent.deps(), { onCreated: () => {}, onShowActive: () => {} });
    await setup.begin("demonstrating_skill");
    setup.refreshSkillChoices();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(setup.skillChoices).toEqual([]);
  });
});
