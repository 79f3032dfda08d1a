import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import { ProposalDetailResponseSchema } from "../../../shared/learning/route-contracts";
import { canonicalJson, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { INSTALL_SAGA_STEPS, type InstallSagaStep } from "../../abilities/ability-service";
import { MemoryPaths } from "../../memory/memory-paths";
import { readyProposal } from "../../test-support/ready-proposal";
import { expectError, startTestAgent, type TestAgent } from "../../test-support/test-agent";
import { parseSkillFrontmatter } from "../../../shared/skills/frontmatter";

const SITE = "http://127.0.0.1:8123";
const SKILL = "export-the-monthly-invoices";
let agent: TestAgent;
let failAt: InstallSagaStep | undefined;

beforeEach(async () => {
  failAt = undefined;
  agent = await startTestAgent({ failInstallAt: () => failAt });
});
afterEach(async () => {
  await agent.close();
});

const call: TestAgent["call"] = (...args) => agent.call(...args);

/** "Export the monthly invoices", installed privately: one click, its outcome answered by the user. */
async function installedSkill(): Promise<string> {
  const { proposalId } = await readyProposal(call);
  const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  expect(installed.status).toBe(200);
  return installed.body.ability_id as string;
}

/** Every file of the installed skill, in ELNOR_MEMORY and in the workspace projection, by path → sha256. */
async function installedFiles(): Promise<Record<string, string>> {
  const roots = [
    path.join(agent.root, MemoryPaths.installedSkill(SKILL)),
    path.join(agent.root, "system/capabilities"),
    path.join(agent.root, "openclaw-workspace/skills", SKILL),
  ];
  const files: Record<string, string> = {};
  for (const root of roots) {
    for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      files[path.relative(agent.root, file)] = createHash("sha256")
        .update(await readFile(file))
        .digest("hex");
    }
  }
  files[MemoryPaths.abilityRegistry] = createHash("sha256")
    .update(await readFile(path.join(agent.root, MemoryPaths.abilityRegistry)))
    .digest("hex");
  return files;
}

function snapshot(title: string, extra: Partial<PageSnapshot> = {}): PageSnapshot {
  return {
    url: `${SITE}/invoices`,
    title,
    headings: [{ level: 1, text: title }],
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: [],
    links: [],
    status_messages: [],
    schema_version: 1,
    ...extra,
  };
}
const sha = (page: PageSnapshot) => createHash("sha256").update(canonicalJson(page)).digest("hex");

/**
 * An improving session (§0C.3: `improving_existing_skill`, `existing_skill`) that shows a better
 * way: pick the month (a masked field), export, then open the downloads page.
 */
async function demonstrateImprovement(targetSkillId: string): Promise<string> {
  const created = await call("POST", "/api/learn/sessions", {
    entry_mode: "improving_existing_skill",
    target_kind: "existing_skill",
    target_skill_id: targetSkillId,
  });
  expect(created.status).toBe(201);
  const id = created.body.session.learn_session_id as string;
  await call("POST", `/api/learn/sessions/${id}/start`);
  const invoices = snapshot("Invoices", { buttons: ["Export", "Download"] });
  const exported = snapshot("Invoices", { buttons: ["Export", "Download"], status_messages: ["Your export is ready"] });
  const downloads = snapshot("Downloads", { url: `${SITE}/downloads` });
  const base = { learn_session_id: id, adapter_kind: "browser_dom", app_family: "browser", redaction_mode: "mask_text", schema_version: 1 };
  const detail = { page_url: `${SITE}/invoices`, page_title: "Invoices" };
  const at = (n: number) => new Date(Date.now() + n).toISOString();
  const events = [
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Month'",
      created_at: at(1),
      browser_detail: {
        ...detail,
        target_name: "Month",
        target_role: "textbox",
        target_tag: "input",
        input_type: "month",
        selectors: [["#month"]],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "short" },
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Export'",
      created_at: at(2),
      caused_state_change: true,
      before_state_ref: `snapshot:${sha(invoices)}`,
      after_state_ref: `snapshot:${sha(exported)}`,
      browser_detail: { ...detail, target_name: "Export", target_role: "button", selectors: [["#export"]], dom_event_kind: "click" },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Download'",
      created_at: at(3),
      caused_state_change: true,
      before_state_ref: `snapshot:${sha(exported)}`,
      after_state_ref: `snapshot:${sha(downloads)}`,
      browser_detail: { ...detail, target_name: "Download", target_role: "button", selectors: [["#download"]], dom_event_kind: "click" },
    },
  ];
  const ack = await call("POST", "/api/observations/events", {
    batch_id: randomUUID(),
    events,
    snapshots: [invoices, exported, downloads].map((page) => ({ sha256: sha(page), learn_session_id: id, snapshot: page })),
    schema_version: 1,
  });
  expect(ack.body.accepted).toHaveLength(3);
  await call("POST", `/api/learn/sessions/${id}/stop`);
  return id;
}

describe("Improving Existing Skill: a delta proposal against the installed skill (§0C.4)", () => {
  it("proposes the installed skill's next version under its name, with the changes to its parameters and checkpoints, leaving the installed files untouched", async () => {
    const abilityId = await installedSkill();
    const before = await installedFiles();
    const installedMarkdown = await agent.memory.readText(`${MemoryPaths.installedSkill(SKILL)}/SKILL.md`);

    const sessionId = await demonstrateImprovement(abilityId);
    const generated = await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`);
    expect(generated.status).toBe(200);
    // The installed skill says what it is for: no question about the goal.
    expect(generated.body.session.state).toBe("ready_for_review");
    const proposalId = generated.body.proposal_id as string;

    const detail = ProposalDetailResponseSchema.parse((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body);
    expect(detail.proposal).toMatchObject({
      proposed_skill_slug: SKILL,
      title: "Export the monthly invoices",
      ability_id: abilityId,
      proposal_state: "ready_for_review",
    });
    const markdown = (await agent.memory.readText(detail.proposal.draft_skill_path)) ?? "";
    expect(parseSkillFrontmatter(markdown)).toMatchObject({ name: SKILL, version: "0.2.0" });

    const delta = detail.skill_delta;
    expect(delta).toMatchObject({
      target_ability_id: abilityId,
      target_skill_name: SKILL,
      installed_title: "Export the monthly invoices",
      installed_version: "0.1.0",
      proposed_version: "0.2.0",
    });
    expect(delta?.parameters).toEqual([{ change: "added", subject: "{{month}}", proposed: "Month (date)" }]);
    expect(delta?.checkpoints).toEqual([
      {
        change: "changed",
        subject: "Checkpoint 1",
        installed: expect.stringContaining("The export file appears in the downloads list"),
        proposed: expect.stringContaining('The page says "Your export is ready"'),
      },
      { change: "added", subject: "Checkpoint 2", proposed: expect.stringContaining('A page titled "Downloads" is shown') },
    ]);
    expect(delta?.checkpoints[0]).toMatchObject({ proposed: expect.stringContaining("{{month}}") });
    // The triggers it was installed with stay as they were.
    expect(delta?.triggers).toEqual([]);
    expect(delta?.unchanged.triggers).toBeGreaterThanOrEqual(1);

    expect(await installedFiles()).toEqual(before);
    expect(await agent.memory.readText(`${MemoryPaths.installedSkill(SKILL)}/SKILL.md`)).toBe(installedMarkdown);
  });

  it("recomputes the delta on revision, validates without counting the installed skill as a collision, and still never touches the installed files", async () => {
    const abilityId = await installedSkill();
    const before = await installedFiles();
    const sessionId = await demonstrateImprovement(abilityId);
    const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
    const installedTriggers = ProposalDetailResponseSchema.parse((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body).proposal
      .trigger_phrases;
    expect(installedTriggers).toContain("can you export the monthly invoices");

    const revised = await call("POST", `/api/learn/proposals/${proposalId}/revise`, {
      revision_instructions: "Fewer, clearer triggers",
      edited_fields: { trigger_phrases: ["export the monthly invoices", "export invoices for a month"], negative_triggers: ["delete invoices"] },
    });
    expect(revised.status).toBe(200);
    const delta = ProposalDetailResponseSchema.parse(revised.body).skill_delta;
    expect(delta?.triggers).toEqual(
      expect.arrayContaining([
        { change: "added", subject: "export invoices for a month", proposed: "export invoices for a month" },
        { change: "removed", subject: "can you export the monthly invoices", installed: "can you export the monthly invoices" },
      ]),
    );
    expect(delta?.negative_triggers).toEqual([{ change: "added", subject: "delete invoices", proposed: "delete invoices" }]);

    const validated = await call("POST", `/api/learn/proposals/${proposalId}/validate`, { selected_tests: ["lint", "trigger"], schema_version: 1 });
    expect(validated.status).toBe(200);
    const runs = await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`);
    const steps = runs.body.steps as Array<{ test_case_id: string; result: string }>;
    expect(steps.find((step) => step.test_case_id === "collision:name")?.result).toBe("passed");
    expect(steps.find((step) => step.test_case_id === "collision:triggers")?.result).toBe("passed");

    expect(await installedFiles()).toEqual(before);
  });

  it("answers ABILITY_NOT_FOUND when the skill to improve is not installed, and writes no proposal", async () => {
    await installedSkill();
    const proposalsBefore = await agent.memory.readText(MemoryPaths.proposals);
    const sessionId = await demonstrateImprovement("no-such-skill");
    const result = await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`);
    expectError(result, 404, "ABILITY_NOT_FOUND");
    expect(ApiErrorResponseSchema.parse(result.body).error.message).toMatch(/not installed/);
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("stopped");
    expect(await agent.memory.readText(MemoryPaths.proposals)).toBe(proposalsBefore);
  });

  it("finds the skill to improve by its name as well as by its ability id", async () => {
    await installedSkill();
    const sessionId = await demonstrateImprovement(SKILL);
    const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
    const detail = ProposalDetailResponseSchema.parse((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body);
    expect(detail.skill_delta?.target_skill_name).toBe(SKILL);
  });

  it("gives a proposal for a new skill no delta", async () => {
    const { proposalId } = await readyProposal(call);
    const detail = await call("GET", `/api/learn/proposals/${proposalId}/detail`);
    expect(detail.body).not.toHaveProperty("skill_delta");
  });

  it("installing the improvement replaces the installed skill with its next version", async () => {
    const abilityId = await installedSkill();
    const sessionId = await demonstrateImprovement(abilityId);
    const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
    const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(installed.status).toBe(200);
    expect(installed.body.ability_id).toBe(abilityId);
    expect(parseSkillFrontmatter((await agent.memory.readText(`${MemoryPaths.installedSkill(SKILL)}/SKILL.md`)) ?? "")?.version).toBe("0.2.0");
    expect(await readFile(path.join(agent.root, "openclaw-workspace/skills", SKILL, "SKILL.md"), "utf8")).toContain("{{month}}");
  });

  it.each(INSTALL_SAGA_STEPS)("when installing the improvement fails at %s, the installed version stays byte for byte and usable", async (step) => {
    const abilityId = await installedSkill();
    const sessionId = await demonstrateImprovement(abilityId);
    const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
    const before = await installedFiles();
    const availability = await agent.memory.readText(MemoryPaths.availabilityCurrent);
    failAt = step;
    const failed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(ApiErrorResponseSchema.parse(failed.body).error.message).toContain("the installed version stays as it was");
    expect(await installedFiles()).toEqual(before);
    expect(await agent.memory.readText(MemoryPaths.availabilityCurrent)).toBe(availability);
    expect((await call("GET", `/api/abilities/${abilityId}/availability`)).body).toMatchObject({ usable_now: true, install_lane: "experimental_private" });
    expect((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.proposal.proposal_state).toBe("quarantined");
  });

  it("refuses to put the original proposal back over an installed improvement", async () => {
    const { proposalId: original } = await readyProposal(call);
    const abilityId = (await call("POST", `/api/learn/proposals/${original}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
    const sessionId = await demonstrateImprovement(abilityId);
    const improvement = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
    expect((await call("POST", `/api/learn/proposals/${improvement}/install`, { install_lane: "experimental_private" })).status).toBe(200);
    const before = await installedFiles();
    const approved = await call("POST", `/api/learn/proposals/${original}/approve`, { schema_version: 1 });
    expectError(approved, 403, "INSTALL_LANE_DENIED");
    expect(ApiErrorResponseSchema.parse(approved.body).error.message).toContain("A newer version");
    expect(await installedFiles()).toEqual(before);
    expect(parseSkillFrontmatter((await agent.memory.readText(`${MemoryPaths.installedSkill(SKILL)}/SKILL.md`)) ?? "")?.version).toBe("0.2.0");
  });

  it("keeps the user's decisions: a deactivated skill stays deactivated; an approved one is replaced only by an approval", async () => {
    const { proposalId: original } = await readyProposal(call);
    const abilityId = (await call("POST", `/api/learn/proposals/${original}/install`, { install_lane: "experimental_private" })).body.ability_id as string;
    await call("POST", `/api/learn/proposals/${original}/approve`, { schema_version: 1 });
    await call("POST", `/api/abilities/${abilityId}/deactivate`);
    const sessionId = await demonstrateImprovement(abilityId);
    const improvement = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
    const before = await installedFiles();
    expectError(await call("POST", `/api/learn/proposals/${improvement}/install`, { install_lane: "experimental_private" }), 403, "INSTALL_LANE_DENIED");
    expect(await installedFiles()).toEqual(before);
    expect((await call("POST", `/api/learn/proposals/${improvement}/approve`, { schema_version: 1 })).status).toBe(200);
    expect((await call("GET", `/api/abilities/${abilityId}/availability`)).body).toMatchObject({
      install_lane: "approved_workspace",
      enabled: false,
      usable_now: false,
    });
  });

  it("runs one install saga at a time: two Approves at once give one approval and one refusal", async () => {
    const { sessionId, proposalId } = await readyProposal(call);
    await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    const answers = await Promise.all([1, 2].map(() => call("POST", `/api/learn/proposals/${proposalId}/approve`, { schema_version: 1 })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(ApiErrorResponseSchema.parse(answers.find((answer) => answer.status === 400)?.body).error.code).toBe("INVALID_LEARN_STATE_TRANSITION");
    const receipts = (await call("GET", `/api/learn/receipts?session_id=${sessionId}&page_size=100`)).body.receipts as Array<{ receipt_kind: string }>;
    expect(receipts.filter((receipt) => receipt.receipt_kind === "learn.install.started")).toHaveLength(2); // the private install, one approval
  });
});
