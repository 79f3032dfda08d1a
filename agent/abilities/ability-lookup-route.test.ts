import { afterEach, describe, expect, it } from "vitest";
import { AbilityLookupResultSchema } from "../../shared/abilities/lookup-contract";
import { readyProposal } from "../test-support/ready-proposal";
import { startTestAgent, type TestAgent } from "../test-support/test-agent";

// Issue #34: the lookup route's second tier, through the routes a client calls.
let agent: TestAgent;
afterEach(async () => {
  await agent.close();
});

const lanes = ["experimental_private", "approved_workspace", "shared_promoted"];
/** Shares "invoices" with "Export the monthly invoices", too little of the rest to pass the gate. */
const FAR_REQUEST = "print a paper copy of the invoices for the auditor who visits the warehouse next spring";

describe("POST /api/abilities/lookup also_consider (issue #34)", () => {
  it("offers an ability below the gate as low confidence, with why; never a match twice; none for a request sharing nothing; never a quarantined one", async () => {
    agent = await startTestAgent();
    const { proposalId } = await readyProposal(agent.call);
    const abilityId = (await agent.call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).body
      .ability_id as string;

    const far = await agent.call("POST", "/api/abilities/lookup", { user_query: FAR_REQUEST, install_lanes_allowed: lanes, schema_version: 1 });
    expect(far.status).toBe(200);
    expect(AbilityLookupResultSchema.safeParse(far.body).success).toBe(true);
    expect(far.body.matches).toEqual([]);
    expect(far.body.also_consider).toEqual([
      expect.objectContaining({ ability_id: abilityId, confidence: "low", usable_now: true, install_lane: "experimental_private" }),
    ]);
    expect(far.body.also_consider[0].reason).toMatch(/^reads close to "export the monthly invoices" \(similarity 0\.\d\d\)$|^shares the word "invoices"$/);

    // A match is never offered again below the gate.
    const near = await agent.call("POST", "/api/abilities/lookup", {
      user_query: "export the monthly invoices",
      install_lanes_allowed: lanes,
      schema_version: 1,
    });
    expect(near.body.matches.map((match: { ability_id: string }) => match.ability_id)).toEqual([abilityId]);
    expect(near.body.also_consider).toEqual([]);

    // Nothing in common: both tiers empty.
    const nothing = await agent.call("POST", "/api/abilities/lookup", {
      user_query: "what is the tallest volcano on mars",
      install_lanes_allowed: lanes,
      schema_version: 1,
    });
    expect(nothing.body).toMatchObject({ matches: [], also_consider: [] });

    // What a model chooses by comes with the answer (no SKILL.md read per candidate): each candidate's
    // title and description, and with no match and few abilities, every ability a lookup may return.
    const skill = (await agent.call("GET", `/api/abilities/${abilityId}/skill-md`)).body as { description: string };
    expect(skill.description.length).toBeGreaterThan(20);
    const described = { ability_id: abilityId, title: "Export the monthly invoices", description: skill.description };
    expect(far.body.also_consider[0]).toMatchObject(described);
    expect(far.body.all_abilities).toEqual([described]);
    expect(nothing.body.all_abilities).toEqual([described]);
    expect(near.body.all_abilities).toBeUndefined();
    // A hard gate holds in the second tier too.
    await agent.call("POST", `/api/abilities/${abilityId}/quarantine`, { reason: "checking the second tier" });
    // (and in the list of every ability: only those a lookup may return).
    expect(
      (await agent.call("POST", "/api/abilities/lookup", { user_query: FAR_REQUEST, install_lanes_allowed: lanes, schema_version: 1 })).body,
    ).toMatchObject({
      also_consider: [],
      all_abilities: [],
    });

    // The OpenAPI description says what the tier is.
    const openapi = await agent.call("GET", "/api/openapi.json");
    expect(JSON.stringify(openapi.body.paths["/api/abilities/lookup"])).toContain("also_consider");
  });
});
