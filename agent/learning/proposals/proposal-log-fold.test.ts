import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryPaths } from "../../memory/memory-paths";
import { readyProposal } from "../../test-support/ready-proposal";
import { startTestAgent, type TestAgent } from "../../test-support/test-agent";

/** Issue 17: at start the proposals log is folded by id, and only each proposal's last version is parsed in full. */
describe("proposals.jsonl fold at start", () => {
  let agent: TestAgent | undefined;
  afterEach(async () => {
    await agent?.close().catch(() => undefined);
    agent = undefined;
  });

  async function proposalWithHistory() {
    agent = await startTestAgent();
    const { proposalId } = await readyProposal(agent.call);
    const file = path.join(agent.root, MemoryPaths.proposals);
    const lines = (await readFile(file, "utf8")).trim().split("\n");
    const last = JSON.parse(lines.at(-1) as string) as { proposal: Record<string, unknown>; revision: number };
    expect(last.proposal.proposal_id).toBe(proposalId);
    return { proposalId, file, last };
  }

  it("keeps the last version of a proposal; an older version that no longer matches the schema does not stop the agent", async () => {
    const { proposalId, file, last } = await proposalWithHistory();
    await appendFile(file, `${JSON.stringify({ ...last, proposal: { ...last.proposal, title: 42 }, revision: "x" })}\n${JSON.stringify(last)}\n`);
    await agent!.restart();
    const detail = await agent!.call("GET", `/api/learn/proposals/${proposalId}/detail`);
    expect(detail.status).toBe(200);
    expect(detail.body.proposal.title).toBe(last.proposal.title);
  });

  it("refuses to start when the version that wins does not match the schema", async () => {
    const { file, last } = await proposalWithHistory();
    await appendFile(file, `${JSON.stringify({ ...last, proposal: { ...last.proposal, title: 42 } })}\n`);
    const error = await agent!.restart().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as { code?: string } | undefined)?.code).toBe("MEMORY_RECORD_CORRUPT");
  });

  it("an archived proposal's tombstone still removes it, and a line that is neither a proposal nor a tombstone stops the agent", async () => {
    const { proposalId, file } = await proposalWithHistory();
    await appendFile(file, `${JSON.stringify({ archived_proposal_id: proposalId, archived_at: new Date().toISOString() })}\n`);
    await agent!.restart();
    expect((await agent!.call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.error?.code).toBe("PROPOSAL_NOT_FOUND");
    await appendFile(file, `${JSON.stringify({ something: "else" })}\n`);
    const error = await agent!.restart().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as { code?: string } | undefined)?.code).toBe("MEMORY_RECORD_CORRUPT");
  });

  it("issue 32: finds a session's first live proposal through the log's index, at start and as proposals are added and archived", async () => {
    agent = await startTestAgent();
    const { sessionId, proposalId } = await readyProposal(agent.call);
    const file = path.join(agent.root, MemoryPaths.proposals);
    const last = JSON.parse((await readFile(file, "utf8")).trim().split("\n").at(-1) as string) as { proposal: Record<string, unknown> };
    const ofSession = () => agent!.app.learning.proposals.ofSession(sessionId)?.proposal_id;
    expect(ofSession()).toBe(proposalId);
    // A second proposal of the same session, written after the first: the first is still the one named.
    const second = crypto.randomUUID();
    await appendFile(file, `${JSON.stringify({ ...last, proposal: { ...last.proposal, proposal_id: second } })}\n`);
    await agent.restart();
    expect(ofSession()).toBe(proposalId);
    expect(agent.app.learning.proposals.ofSession(crypto.randomUUID())).toBeUndefined();
    // The first archived (its tombstone written now): the second is the session's live proposal, and after a restart too.
    await agent.app.learning.proposals.archive(proposalId);
    expect(ofSession()).toBe(second);
    await agent.restart();
    expect(ofSession()).toBe(second);
  });
});
