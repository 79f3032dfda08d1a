import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UseAsExampleResponseSchema } from "../../../shared/learning/proposals/skill-example";
import { MemoryPaths } from "../../memory/memory-paths";
import { readyProposal } from "../../test-support/ready-proposal";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { expectError, startTestAgent, type TestAgent } from "../../test-support/test-agent";

/**
 * Use as Example (§0B.6, issue #16) through the route of a real agent: the demonstration a skill was
 * learned from, added as an example to the installed skill (a proposal for its next version) and then
 * to that proposal again (its next revision); refusals write nothing.
 */
let site: RunFixtureSite;
let agent: TestAgent;
let abilityId: string;
let demoSessionId: string;
let proposalId: string;

const use = (body: unknown) => agent.call("POST", "/api/learn/examples", body);
const draft = (id: string, revision: number, file: string) => readFile(path.join(agent.root, MemoryPaths.draftRevision(id, revision), file), "utf8");
const installedMarkdown = () => readFile(path.join(agent.root, MemoryPaths.installedSkill(abilityId.replace(/^learned\./, "")), "SKILL.md"), "utf8");
const sessionCount = async () => ((await agent.call("GET", "/api/learn/sessions?page=1&page_size=100")).body as { total: number }).total;

beforeAll(async () => {
  site = await serveRunFixtureSite();
  agent = await startTestAgent();
  ({ abilityId, sessionId: demoSessionId } = await installContactAbility((method, url, payload) => agent.call(method, url, payload), site));
}, 60_000);
afterAll(async () => {
  await agent?.close();
  await site?.close();
});

describe("Use as Example", () => {
  it("refuses an unknown example, skill or proposal with a coded error, writing nothing", async () => {
    const before = await sessionCount();
    const drafts = await readdir(path.join(agent.root, "system/learning/drafts"));
    expectError(
      await use({
        example: { kind: "learn_session", learn_session_id: randomUUID() },
        target: { ability_id: abilityId },
        trigger_tests: ["write to the shop"],
        schema_version: 1,
      }),
      404,
      "LEARN_SESSION_NOT_FOUND",
    );
    expectError(
      await use({
        example: { kind: "run", dispatch_id: "no-such-run" },
        target: { ability_id: abilityId },
        trigger_tests: ["write to the shop"],
        schema_version: 1,
      }),
      404,
      "RUN_NOT_FOUND",
    );
    expectError(
      await use({
        example: { kind: "learn_session", learn_session_id: demoSessionId },
        target: { ability_id: "learned.nothing-here" },
        trigger_tests: ["write to the shop"],
        schema_version: 1,
      }),
      404,
      "ABILITY_NOT_FOUND",
    );
    expectError(
      await use({
        example: { kind: "learn_session", learn_session_id: demoSessionId },
        target: { proposal_id: randomUUID() },
        trigger_tests: ["write to the shop"],
        schema_version: 1,
      }),
      404,
      "PROPOSAL_NOT_FOUND",
    );
    expectError(
      await use({
        example: { kind: "learn_session", learn_session_id: demoSessionId },
        target: { ability_id: abilityId },
        trigger_tests: [],
        schema_version: 1,
      }),
      400,
      "REQUEST_INVALID",
    );
    expect(await sessionCount()).toBe(before);
    expect(await readdir(path.join(agent.root, "system/learning/drafts"))).toEqual(drafts);
  });

  it("adds a demonstration to an installed skill as a proposal for its next version, with its requests as trigger tests; the installed skill is untouched", async () => {
    const installed = await installedMarkdown();
    const answer = await use({
      example: { kind: "learn_session", learn_session_id: demoSessionId },
      target: { ability_id: abilityId },
      trigger_tests: ["write a note to the shop", "send the shop a message"],
      schema_version: 1,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const added = UseAsExampleResponseSchema.parse(answer.body);
    proposalId = added.proposal_id;
    expect(added.revision).toBe(1);
    expect(added.example.steps).toEqual(expect.arrayContaining(["Click 'Contact us'", "Click 'Send message'"]));

    const detail = (await agent.call("GET", `/api/learn/proposals/${proposalId}/detail`)).body;
    expect(detail.proposal.ability_id).toBe(abilityId);
    expect(detail.proposal.proposal_state).toBe("draft");
    // Its meaning, read from the skill: the review shows its goal and checkpoints.
    expect(detail.interpretation.goal_summary).toBe("Send a message to the shop");
    expect(detail.interpretation.checkpoints).toHaveLength(2);
    expect(detail.skill_delta.proposed_version).not.toBe(detail.skill_delta.installed_version);
    const markdown = await draft(proposalId, 1, "SKILL.md");
    expect(markdown).toContain("## Examples");
    expect(markdown).toContain('- When asked, for example, "write a note to the shop"');
    expect(markdown).toContain('- Asked as: "write a note to the shop"; "send the shop a message"');
    expect(markdown.indexOf("## Examples")).toBeLessThan(markdown.indexOf("## Safety"));
    const tests = JSON.parse(await draft(proposalId, 1, "trigger-tests.json")) as { positive: string[] };
    expect(tests.positive).toEqual(expect.arrayContaining(["write a note to the shop", "send the shop a message"]));
    expect(JSON.parse(await draft(proposalId, 1, "examples.json"))).toHaveLength(1);
    // The flow and checkpoints it runs by are the installed ones.
    expect(await draft(proposalId, 1, "flow.recorder.json")).toContain("#contact-link");
    expect(await installedMarkdown()).toBe(installed);
    // Its session is an improvement seeded with the example, waiting in drafting for a validation.
    const session = (await agent.call("GET", `/api/learn/sessions/${added.learn_session_id}/detail`)).body;
    expect(session).toMatchObject({ entry_mode: "improving_existing_skill", target_skill_id: abilityId, state: "drafting_proposal", proposal_id: proposalId });
    expect((await agent.call("GET", `/api/learn/sessions/${added.learn_session_id}/seed`)).body.seed.source).toEqual({
      kind: "learn_session",
      learn_session_id: demoSessionId,
    });
  });

  it("adds another example to that proposal as its next revision, one Examples section listing both", async () => {
    const answer = await use({
      example: { kind: "learn_session", learn_session_id: demoSessionId },
      target: { proposal_id: proposalId },
      trigger_tests: ["message the shop", "send the shop a message"],
      schema_version: 1,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(UseAsExampleResponseSchema.parse(answer.body).revision).toBe(2);
    const markdown = await draft(proposalId, 2, "SKILL.md");
    expect(markdown.split("## Examples").length).toBe(2);
    expect(markdown.split("- Asked as:").length).toBe(3);
    const tests = JSON.parse(await draft(proposalId, 2, "trigger-tests.json")) as { positive: string[] };
    expect(tests.positive.filter((request) => request === "send the shop a message")).toHaveLength(1);
    expect(tests.positive).toContain("message the shop");
    expect(JSON.parse(await draft(proposalId, 2, "examples.json"))).toHaveLength(2);
    // Revision 1 is kept as it was.
    expect(JSON.parse(await draft(proposalId, 1, "examples.json"))).toHaveLength(1);
  });

  it("refuses a second skill example while that improvement is still open, writing nothing", async () => {
    const before = await sessionCount();
    const drafts = await readdir(path.join(agent.root, "system/learning/drafts"));
    expectError(
      await use({
        example: { kind: "learn_session", learn_session_id: demoSessionId },
        target: { ability_id: abilityId },
        trigger_tests: ["write to the shop"],
        schema_version: 1,
      }),
      409,
      "LEARN_SESSION_ALREADY_ACTIVE",
    );
    expect(await sessionCount()).toBe(before);
    expect(await readdir(path.join(agent.root, "system/learning/drafts"))).toEqual(drafts);
  });

  it("keeps the examples of a proposal under review when it is revised (the revision is compiled afresh from its session)", async () => {
    // Its own agent: the improvement above stays open, and one session is active at a time.
    const fresh = await startTestAgent();
    try {
      const call = (method: "GET" | "POST", url: string, payload?: unknown) => fresh.call(method, url, payload);
      const { sessionId: learnedFrom } = await installContactAbility(call, site);
      const { proposalId: reviewed } = await readyProposal(call);
      const freshDraft = (revision: number, file: string) => readFile(path.join(fresh.root, MemoryPaths.draftRevision(reviewed, revision), file), "utf8");
      const added = await call("POST", "/api/learn/examples", {
        example: { kind: "learn_session", learn_session_id: learnedFrom },
        target: { proposal_id: reviewed },
        trigger_tests: ["grab the invoices for last month"],
        schema_version: 1,
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      const next = UseAsExampleResponseSchema.parse(added.body).revision + 1;
      const revised = await call("POST", `/api/learn/proposals/${reviewed}/revise`, {
        revision_instructions: "Call it by its usual name",
        edited_fields: { title: "Export the invoices of a month" },
      });
      expect(revised.status, JSON.stringify(revised.body)).toBe(200);
      const markdown = await freshDraft(next, "SKILL.md");
      expect(markdown).toContain("Export the invoices of a month");
      expect(markdown).toContain('- Asked as: "grab the invoices for last month"');
      expect(markdown).toContain('- When asked, for example, "grab the invoices for last month"');
      expect((JSON.parse(await freshDraft(next, "trigger-tests.json")) as { positive: string[] }).positive).toContain("grab the invoices for last month");
      expect(JSON.parse(await freshDraft(next, "examples.json"))).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  }, 60_000);
});
