import { afterEach, describe, expect, it } from "vitest";
import { AbilityAvailabilitySnapshotSchema } from "../../shared/abilities/availability";
import { MemoryPaths } from "../memory/memory-paths";
import { publicBundle, stageThrough } from "../test-support/skill-bundles";
import { readyProposal } from "../test-support/ready-proposal";
import { createFakeClock, startTestAgent, type FakeClock, type TestAgent } from "../test-support/test-agent";
import { InstalledAbilitySchema } from "./ability-registry";

let agent: TestAgent;
let clock: FakeClock;

afterEach(async () => {
  await agent.close();
});

/** No Chromium: the rehearsal is skipped with its reason, so a full validation is only partly checked. */
async function boot() {
  clock = createFakeClock("2026-11-24T10:00:00.000Z");
  agent = await startTestAgent({ clock, chromiumPath: "/nonexistent/chromium" });
}
const call: TestAgent["call"] = (...args) => agent.call(...args);

async function validate(proposalId: string, selected: string[] = []) {
  const answer = await call("POST", `/api/learn/proposals/${proposalId}/validate`, { test_values: {}, selected_tests: selected, schema_version: 1 });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.validation_run as { validation_run_id: string; overall_result: string; completed_at: string };
}

async function install(proposalId: string): Promise<string> {
  const answer = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.ability_id as string;
}

/** What the agent keeps and serves about one ability: the registry line, the snapshot file, both routes. */
async function recordsOf(abilityId: string) {
  const registry = (await agent.memory.readJsonl(MemoryPaths.abilityRegistry, InstalledAbilitySchema)).filter((line) => line.ability_id === abilityId).at(-1);
  const file = await agent.memory.readJson(MemoryPaths.availabilityCurrent, AbilityAvailabilitySnapshotSchema);
  const one = (await call("GET", `/api/abilities/${abilityId}/availability`)).body;
  const listed = ((await call("GET", "/api/abilities/availability")).body.abilities as Array<Record<string, unknown>>).find(
    (entry) => entry.ability_id === abilityId,
  );
  return { registry, file: file?.abilities.find((entry) => entry.ability_id === abilityId), one, listed };
}

describe("§0C.11A last_validated_at: when the installed content was last validated, and how that ended", () => {
  it("install records the run of the installed revision (its end, not the install's time) everywhere it is read, and after a restart", async () => {
    await boot();
    const { proposalId } = await readyProposal(call);
    clock.set("2026-11-24T10:05:00.000Z");
    const run = await validate(proposalId);
    // Without a browser the rehearsal could not run: the honest verdict is "partly checked".
    expect(run.overall_result).toBe("partial");
    clock.set("2026-11-24T11:30:00.000Z");
    const abilityId = await install(proposalId);

    const expected = { last_validated_at: "2026-11-24T10:05:00.000Z", last_validation_result: "partial", skill_version: "0.1.0" };
    const records = await recordsOf(abilityId);
    expect(records.registry).toMatchObject({ ...expected, last_validation_run_id: run.validation_run_id });
    expect(records.file).toMatchObject(expected);
    expect(records.one).toMatchObject(expected);
    expect(records.listed).toMatchObject(expected);

    await agent.restart();
    expect((await recordsOf(abilityId)).one).toMatchObject(expected);
    // Approving the same content for the workspace, and a lifecycle change, keep what its validation said.
    expect((await call("POST", `/api/learn/proposals/${proposalId}/approve`, { approval_scope: "approved_workspace", schema_version: 1 })).status).toBe(200);
    expect((await recordsOf(abilityId)).listed).toMatchObject({ ...expected, install_lane: "approved_workspace" });
    expect((await call("POST", `/api/abilities/${abilityId}/deactivate`)).status).toBe(200);
    expect((await recordsOf(abilityId)).listed).toMatchObject(expected);
  });

  it("the latest validation of the revision wins: a later lint-only run that passed replaces the partial one", async () => {
    await boot();
    const { proposalId } = await readyProposal(call);
    expect((await validate(proposalId)).overall_result).toBe("partial");
    clock.set("2026-11-24T10:20:00.000Z");
    const second = await validate(proposalId, ["lint", "trigger"]);
    expect(second.overall_result).toBe("passed");
    const abilityId = await install(proposalId);
    expect((await recordsOf(abilityId)).one).toMatchObject({ last_validated_at: "2026-11-24T10:20:00.000Z", last_validation_result: "passed" });
  });

  it("says nothing was validated when nothing was: an install straight from review, and a proposal revised after its validation", async () => {
    await boot();
    const unvalidated = await install((await readyProposal(call, "Export the monthly invoices")).proposalId);
    const plain = await recordsOf(unvalidated);
    expect(plain.one).toMatchObject({ skill_version: "0.1.0" });
    for (const record of [plain.registry, plain.file, plain.one, plain.listed]) {
      expect(record).not.toHaveProperty("last_validated_at");
      expect(record).not.toHaveProperty("last_validation_result");
    }

    const { proposalId } = await readyProposal(call, "Archive the old reports");
    await validate(proposalId);
    const revised = await call("POST", `/api/learn/proposals/${proposalId}/revise`, {
      revision_instructions: "Say it differently",
      edited_fields: { title: "Archive last year's reports" },
    });
    expect(revised.status, JSON.stringify(revised.body)).toBe(200);
    expect(revised.body.proposal.proposal_state).toBe("ready_for_review");
    const abilityId = await install(proposalId);
    const after = await recordsOf(abilityId);
    expect(after.one).toMatchObject({ title: "Archive last year's reports" });
    expect(after.one).not.toHaveProperty("last_validated_at");
    expect(after.listed).not.toHaveProperty("last_validation_result");

    // An imported bundle is scanned, not validated here: its version, and no validation.
    const importId = await stageThrough(agent, publicBundle());
    expect((await call("POST", "/api/skills/import/install-private", { import_id: importId, schema_version: 1 })).status).toBe(200);
    const imported = await recordsOf("imported.pdf-form-filler");
    expect(imported.listed).toMatchObject({ source: "imported", skill_version: expect.any(String) });
    expect(imported.listed).not.toHaveProperty("last_validated_at");
  });
});
