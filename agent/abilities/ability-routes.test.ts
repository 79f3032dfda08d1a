import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { validate as validateAgentSkill } from "skills-ref";
import { afterEach, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { MemoryPaths } from "../memory/memory-paths";
import { readyProposal as readyProposalThrough } from "../test-support/ready-proposal";
import { createFakeClock, expectError, startTestAgent, type TestAgent } from "../test-support/test-agent";
import { publicBundle, PUBLIC_DESCRIPTION, stageThrough } from "../test-support/skill-bundles";
import { INSTALL_SAGA_STEPS, type InstallSagaStep } from "./ability-service";

let agent: TestAgent;
let failAt: InstallSagaStep | undefined;

afterEach(async () => {
  failAt = undefined;
  await agent.close();
});

async function boot(options: Parameters<typeof startTestAgent>[0] = {}) {
  agent = await startTestAgent({ failInstallAt: () => failAt, ...options });
}

const call: TestAgent["call"] = (...args) => agent.call(...args);

const workspace = () => `${agent.memory.root}/openclaw-workspace`;

const readyProposal = (goal?: string) => readyProposalThrough(call, goal);

describe("install saga and later use", () => {
  it("R11.2-28/29: install materializes, projects read-only, rebuilds the bridge and makes the ability usable now", async () => {
    await boot();
    const { sessionId, proposalId } = await readyProposal();
    const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(installed.status).toBe(200);
    const abilityId = installed.body.ability_id as string;
    expect(installed.body.proposal).toMatchObject({ proposal_state: "installed_private", install_lane: "experimental_private", ability_id: abilityId });
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("installed_private");

    const skill = "export-the-monthly-invoices";
    expect(await agent.memory.readText(`${MemoryPaths.installedSkill(skill)}/SKILL.md`)).toContain("## Checkpoints");
    const projected = path.join(workspace(), "skills", skill, "SKILL.md");
    // The assistant's copy is a valid Agent Skills bundle (reference validator); ELNOR_MEMORY keeps §0.2C.
    expect(await validateAgentSkill(path.dirname(projected))).toEqual([]);
    expect(await readFile(projected, "utf8")).toContain("\nname: export-the-monthly-invoices\n");
    expect(await agent.memory.readText(`${MemoryPaths.installedSkill(skill)}/SKILL.md`)).toContain('\nname: "export-the-monthly-invoices"\n');
    expect((await stat(projected)).mode & 0o222).toBe(0);
    const bridge = JSON.parse((await agent.memory.readText(MemoryPaths.bridgeEntriesCurrent)) ?? "{}");
    expect(bridge.entries).toEqual([expect.objectContaining({ capability_id: `learned.${skill}`, routing_eligible: true, health_status: "healthy" })]);
    const availability = await call("GET", "/api/abilities/availability");
    expect(availability.body.abilities).toEqual([
      expect.objectContaining({ ability_id: abilityId, usable_now: true, install_lane: "experimental_private", source: "learned" }),
    ]);
    const receipts = (await call("GET", `/api/learn/receipts?page_size=100`)).body.receipts as Array<{ receipt_kind: string }>;
    expect(receipts.map((receipt) => receipt.receipt_kind)).toEqual(
      expect.arrayContaining(["learn.install.started", "bridge.rebuild.completed", "ability.snapshot.updated", "learn.install.completed"]),
    );
  });

  it("R11.2-30/31/32/33: lookup finds a paraphrase; deactivate makes it unusable; quarantine hides it; approve then promote-shared changes the lane", async () => {
    await boot();
    const { proposalId } = await readyProposal();
    const abilityId = (await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
    const lookup = await call("POST", "/api/abilities/lookup", { user_query: "please export the monthly invoices for me", schema_version: 1 });
    expect(lookup.body.matches[0]).toMatchObject({ ability_id: abilityId, usable_now: true });
    expect(lookup.body.matches[0].score).toBeGreaterThanOrEqual(0.15);
    const explained = await call("POST", "/api/abilities/explain-match", { user_query: "export the monthly invoices", ability_id: abilityId });
    expect(explained.body).toMatchObject({ matched: true });
    expect(explained.body.match_reasons.join(" ")).toContain("trigger");
    // Both scorers: the wording matcher's verdict (the score lookup returns), then the §0C.11C baseline's.
    expect(explained.body.match_reasons.some((reason: string) => reason.startsWith("wording:"))).toBe(true);
    expect(explained.body.match_reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^§0C\.11C baseline: score 0\.\d\d, would match$/),
        expect.stringMatching(/^§0C\.11C baseline: trigger_phrase_match/),
      ]),
    );
    // Worded differently, the ability is still found, and explain-match says through which words.
    const reworded = { user_query: "download the monthly bills", install_lanes_allowed: ["experimental_private"], schema_version: 1 };
    expect((await call("POST", "/api/abilities/lookup", reworded)).body.matches[0]).toMatchObject({ ability_id: abilityId });
    const why = await call("POST", "/api/abilities/explain-match", { user_query: reworded.user_query, ability_id: abilityId });
    expect(why.body.matched).toBe(true);
    expect(why.body.match_reasons.join(" ")).toMatch(/"bills" found via related word "invoice"/);
    // Typed with slips: found, and explain-match says first what it read (ninth round).
    const slipped = { user_query: "exprot the montly invoicse", install_lanes_allowed: ["experimental_private"], schema_version: 1 };
    expect((await call("POST", "/api/abilities/lookup", slipped)).body.matches[0]).toMatchObject({ ability_id: abilityId });
    const read = await call("POST", "/api/abilities/explain-match", { user_query: slipped.user_query, ability_id: abilityId });
    expect(read.body.matched).toBe(true);
    expect(read.body.match_reasons[0]).toBe(
      'spelling: read "exprot" as "export", "montly" as "monthly", "invoicse" as "invoice" (as typed, neither an ability\'s word nor a dictionary word)',
    );
    const unrelated = await call("POST", "/api/abilities/explain-match", { user_query: "tell me a joke", ability_id: abilityId });
    expect(unrelated.body.matched).toBe(false);
    expect(unrelated.body.rejection_reasons.join(" ")).toMatch(/covers \d+ % of the request, below \d+ %/);

    expect((await call("POST", `/api/abilities/${abilityId}/deactivate`)).body).toEqual({ ability_id: abilityId, enabled: false });
    const single = await call("GET", `/api/abilities/${abilityId}/availability`);
    expect(single.body).toMatchObject({ usable_now: false, reason_unusable: "deactivated by the user" });
    await call("POST", `/api/abilities/${abilityId}/activate`);

    expectError(await call("POST", `/api/abilities/${abilityId}/promote-shared`), 403, "INSTALL_LANE_DENIED");
    expect((await call("POST", `/api/learn/proposals/${proposalId}/approve`, { schema_version: 1 })).body.proposal).toMatchObject({
      proposal_state: "approved",
      install_lane: "approved_workspace",
    });
    expect((await call("POST", `/api/abilities/${abilityId}/promote-shared`)).body).toEqual({ ability_id: abilityId, install_lane: "shared_promoted" });
    expect((await call("GET", `/api/abilities/${abilityId}/availability`)).body.install_lane).toBe("shared_promoted");

    expect((await call("POST", `/api/abilities/${abilityId}/quarantine`, { reason: "misbehaved" })).body).toMatchObject({ quarantined: true });
    const after = await call("POST", "/api/abilities/lookup", {
      user_query: "please export the monthly invoices for me",
      install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
      schema_version: 1,
    });
    expect(after.body.matches).toEqual([]);
    const history = (await agent.memory.readText(MemoryPaths.activationHistory)) ?? "";
    expect(
      history
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).action),
    ).toEqual(["deactivate", "activate", "promote_shared", "quarantine"]);
  });

  it("R11.2-12: approve moves a proposal ready for review to approved, in the workspace lane", async () => {
    await boot();
    const { sessionId, proposalId } = await readyProposal();
    expectError(
      await call("POST", `/api/learn/proposals/${proposalId}/approve`, { approval_scope: "shared_promoted", schema_version: 1 }),
      403,
      "INSTALL_LANE_DENIED",
    );
    const approved = await call("POST", `/api/learn/proposals/${proposalId}/approve`, { schema_version: 1 });
    expect(approved.body.proposal).toMatchObject({ proposal_state: "approved", install_lane: "approved_workspace" });
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("approved");
  });

  it("refuses the workspace lane through install and a second skill with the same name", async () => {
    await boot();
    const first = await readyProposal();
    expectError(await call("POST", `/api/learn/proposals/${first.proposalId}/install`, { install_lane: "approved_workspace" }), 403, "INSTALL_LANE_DENIED");
    await call("POST", `/api/learn/proposals/${first.proposalId}/install`, { install_lane: "experimental_private" });
    await call("POST", `/api/learn/proposals/${first.proposalId}/approve`, { schema_version: 1 });
    const second = await readyProposal();
    expectError(await call("POST", `/api/learn/proposals/${second.proposalId}/install`, { install_lane: "experimental_private" }), 403, "INSTALL_LANE_DENIED");
  });

  it.each(INSTALL_SAGA_STEPS)(
    "R11.2-36: when %s fails, the proposal is quarantined, nothing is projected, and the previous bridge and snapshot stay",
    async (step) => {
      await boot();
      const kept = await readyProposal("Archive old reports");
      await call("POST", `/api/learn/proposals/${kept.proposalId}/install`, { install_lane: "experimental_private" });
      await call("POST", `/api/learn/proposals/${kept.proposalId}/approve`, { schema_version: 1 });
      const bridgeBefore = await agent.memory.readText(MemoryPaths.bridgeEntriesCurrent);
      const availabilityBefore = await agent.memory.readText(MemoryPaths.availabilityCurrent);

      const { sessionId, proposalId } = await readyProposal();
      failAt = step;
      const failed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("quarantined");
      expect((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.proposal.proposal_state).toBe("quarantined");
      await expect(stat(path.join(workspace(), "skills", "export-the-monthly-invoices"))).rejects.toMatchObject({ code: "ENOENT" });
      expect(await agent.memory.exists(MemoryPaths.installedSkill("export-the-monthly-invoices"))).toBe(false);
      expect(await agent.memory.readText(MemoryPaths.bridgeEntriesCurrent)).toBe(bridgeBefore);
      expect(await agent.memory.readText(MemoryPaths.availabilityCurrent)).toBe(availabilityBefore);
      const lookup = await call("POST", "/api/abilities/lookup", { user_query: "export the monthly invoices", schema_version: 1 });
      expect(lookup.body.matches.map((match: { ability_id: string }) => match.ability_id)).not.toContain("learned.export-the-monthly-invoices");
      const receipts = (await call("GET", `/api/learn/receipts?session_id=${sessionId}`)).body.receipts as Array<{
        receipt_kind: string;
        details?: { failed_step?: string };
      }>;
      expect(receipts.find((receipt) => receipt.receipt_kind === "learn.install.failed")?.details?.failed_step).toBe(step);
    },
  );

  it("answers ABILITY_NOT_FOUND for an unknown ability and refuses path tricks in its id", async () => {
    await boot();
    expectError(await call("POST", "/api/abilities/learned.nothing/deactivate"), 404, "ABILITY_NOT_FOUND");
    expectError(await call("GET", "/api/abilities/..%2F..%2Fetc/availability"), 400, "REQUEST_INVALID");
  });
});

describe("checkpoint receipts (§0C.9B)", () => {
  it("R11.2-18/21: verify-checkpoint appends receipts, readable per dispatch; health follows them; a dispatch leaves a used_later receipt", async () => {
    await boot();
    const { proposalId } = await readyProposal();
    const abilityId = (await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
    expect((await call("GET", `/api/abilities/${abilityId}/availability`)).body.checkpoint_health).toBe("no_data");
    for (let i = 0; i < 3; i += 1) {
      const verified = await call("POST", "/api/bridge/verify-checkpoint", {
        dispatch_id: "dispatch-1",
        ability_id: abilityId,
        checkpoint_id: "cp-01",
        status: "reached",
        evidence: "The export file is listed",
        schema_version: 1,
      });
      expect(verified.status).toBe(200);
    }
    expect((await agent.memory.readText(MemoryPaths.checkpointReceipts))?.trim().split("\n")).toHaveLength(3);
    const byDispatch = await call("GET", "/api/dispatches/dispatch-1/checkpoint-receipts");
    expect(byDispatch.body).toMatchObject({
      total: 3,
      receipts: [expect.objectContaining({ status: "reached", checkpoint_id: "cp-01" }), expect.anything(), expect.anything()],
    });
    expect((await call("GET", `/api/abilities/${abilityId}/availability`)).body.checkpoint_health).toBe("strong");
    await call("POST", "/api/bridge/verify-checkpoint", {
      dispatch_id: "dispatch-2",
      ability_id: abilityId,
      checkpoint_id: "cp-01",
      status: "failed",
      evidence: "No file appeared",
      reason: "timeout",
      schema_version: 1,
    });
    await call("POST", "/api/bridge/verify-checkpoint", {
      dispatch_id: "dispatch-2",
      ability_id: abilityId,
      checkpoint_id: "cp-01",
      status: "failed",
      evidence: "No file appeared",
      schema_version: 1,
    });
    expect((await call("GET", `/api/abilities/${abilityId}/availability`)).body.checkpoint_health).toBe("weak");
    const usedLater = ((await call("GET", "/api/learn/receipts?page_size=100")).body.receipts as Array<{ receipt_kind: string }>).filter(
      (receipt) => receipt.receipt_kind === "ability.used_later",
    );
    expect(usedLater).toHaveLength(2);
  });

  it("needs a session or a dispatch, and a known ability", async () => {
    await boot();
    expectError(
      await call("POST", "/api/bridge/verify-checkpoint", { checkpoint_id: "cp-01", status: "reached", evidence: "x", schema_version: 1 }),
      400,
      "REQUEST_INVALID",
    );
    expectError(
      await call("POST", "/api/bridge/verify-checkpoint", {
        dispatch_id: "d",
        ability_id: "learned.none",
        checkpoint_id: "cp-01",
        status: "reached",
        evidence: "x",
        schema_version: 1,
      }),
      404,
      "ABILITY_NOT_FOUND",
    );
  });
});

describe("approving an ability that is already installed privately", () => {
  it.each(INSTALL_SAGA_STEPS)("when %s fails, the private ability, its proposal and session stay as they were, and a retry approves it", async (step) => {
    await boot();
    const { sessionId, proposalId } = await readyProposal();
    const abilityId = (await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
    const files = [
      MemoryPaths.bridgeEntriesCurrent,
      MemoryPaths.availabilityCurrent,
      MemoryPaths.catalogCurrent,
      `${MemoryPaths.installedSkill("export-the-monthly-invoices")}/SKILL.md`,
    ];
    const before = await Promise.all(files.map((file) => agent.memory.readText(file)));
    const projected = await readFile(path.join(workspace(), "skills", "export-the-monthly-invoices", "SKILL.md"), "utf8");

    failAt = step;
    const failed = await call("POST", `/api/learn/proposals/${proposalId}/approve`, { schema_version: 1 });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(ApiErrorResponseSchema.parse(failed.body).error.message).toContain("stays installed for you only");
    expect(await Promise.all(files.map((file) => agent.memory.readText(file)))).toEqual(before);
    expect(await readFile(path.join(workspace(), "skills", "export-the-monthly-invoices", "SKILL.md"), "utf8")).toBe(projected);
    expect((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.proposal).toMatchObject({
      proposal_state: "installed_private",
      install_lane: "experimental_private",
    });
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("installed_private");
    expect((await call("GET", `/api/abilities/${abilityId}/availability`)).body).toMatchObject({ install_lane: "experimental_private", usable_now: true });
    const receipts = (await call("GET", "/api/learn/receipts?page_size=100")).body.receipts as Array<{ receipt_kind: string }>;
    expect(receipts.map((receipt) => receipt.receipt_kind)).toContain("learn.install.failed");

    failAt = undefined;
    expect((await call("POST", `/api/learn/proposals/${proposalId}/approve`, { schema_version: 1 })).body.proposal).toMatchObject({
      proposal_state: "approved",
      install_lane: "approved_workspace",
    });
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("approved");
    expect((await call("GET", `/api/abilities/${abilityId}/availability`)).body).toMatchObject({ install_lane: "approved_workspace", usable_now: true });
  });
});

describe("R11.2-35: the availability snapshot as something a page can follow", () => {
  it("tags each snapshot: unchanged → 304 without a body; every trigger, even within one clock tick, → a new tag and a fresh lookup", async () => {
    // A clock that never moves: every snapshot carries the same snapshot_as_of.
    await boot({ clock: createFakeClock() });
    const { proposalId } = await readyProposal();
    const abilityId = (await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
    const first = await call("GET", "/api/abilities/availability");
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^"[\w-]+"$/);
    const unchanged = await call("GET", "/api/abilities/availability", undefined, { "if-none-match": tag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toEqual({});
    const query = { user_query: "please export the monthly invoices for me", schema_version: 1 };
    expect((await call("POST", "/api/abilities/lookup", query)).body.matches[0]).toMatchObject({ ability_id: abilityId, usable_now: true });

    await call("POST", `/api/abilities/${abilityId}/deactivate`);
    const changed = await call("GET", "/api/abilities/availability", undefined, { "if-none-match": tag });
    expect(changed.status).toBe(200);
    expect(changed.body.snapshot_as_of).toBe(first.body.snapshot_as_of);
    expect(changed.headers.etag).not.toBe(tag);
    expect(changed.body.abilities).toEqual([expect.objectContaining({ ability_id: abilityId, usable_now: false })]);
    // The lookup follows the new snapshot too, though its timestamp did not move: a disabled
    // ability stays out of lookups (issue #15), and explain-match says why.
    expect((await call("POST", "/api/abilities/lookup", query)).body.matches).toEqual([]);
    const explained = await call("POST", "/api/abilities/explain-match", { user_query: query.user_query, ability_id: abilityId });
    expect(explained.body).toMatchObject({ matched: false, rejection_reasons: ["disabled by the user"] });
  });
});

describe("an installed ability's SKILL.md (issue #19, read by the MCP server)", () => {
  it("serves the installed SKILL.md with its description and When to use lines, and nothing for an unknown id", async () => {
    await boot();
    const { proposalId } = await readyProposal();
    const abilityId = (await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
    const served = await call("GET", `/api/abilities/${abilityId}/skill-md`);
    expect(served.status).toBe(200);
    const stored = await agent.memory.readText(`${MemoryPaths.installedSkill("export-the-monthly-invoices")}/SKILL.md`);
    expect(served.body).toMatchObject({ ability_id: abilityId, skill_name: "export-the-monthly-invoices", markdown: stored, schema_version: 1 });
    expect(served.body.description).toEqual(expect.stringContaining("xport"));
    expect((served.body.when_to_use as string[]).length).toBeGreaterThan(0);
    expectError(await call("GET", "/api/abilities/learned.nothing-here/skill-md"), 404, "ABILITY_NOT_FOUND");
  });

  it("serves an imported bundle's own SKILL.md, byte for byte as published", async () => {
    await boot();
    const importId = await stageThrough(agent, publicBundle());
    expect((await call("POST", "/api/skills/import/install-private", { import_id: importId, schema_version: 1 })).status).toBe(200);
    const served = await call("GET", "/api/abilities/imported.pdf-form-filler/skill-md");
    expect(served.status).toBe(200);
    expect(served.body.markdown).toBe(await readFile(path.join(workspace(), "skills", "pdf-form-filler", "SKILL.md"), "utf8"));
    expect(served.body.markdown).toContain("# PDF form filler");
    expect(served.body.description).toBe(PUBLIC_DESCRIPTION.trim());
  });
});
