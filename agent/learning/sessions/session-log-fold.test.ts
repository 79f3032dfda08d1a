import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryPaths } from "../../memory/memory-paths";
import { startTestAgent, type TestAgent } from "../../test-support/test-agent";

/** Issue 17: at start the sessions log is folded, and only each session's last version is parsed in full. */
describe("sessions.jsonl fold at start", () => {
  let agent: TestAgent | undefined;
  afterEach(async () => {
    await agent?.close().catch(() => undefined);
    agent = undefined;
  });

  async function sessionWithHistory() {
    agent = await startTestAgent();
    const id = (await agent.call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" })).body.session.learn_session_id as string;
    await agent.call("POST", `/api/learn/sessions/${id}/start`);
    const file = path.join(agent.root, MemoryPaths.sessions);
    const lines = (await readFile(file, "utf8")).trim().split("\n");
    return { id, file, last: JSON.parse(lines.at(-1) as string) as { op: "put"; session: Record<string, unknown> } };
  }

  it("keeps the last version of a session; an older version that no longer matches the schema does not stop the agent", async () => {
    const { id, file, last } = await sessionWithHistory();
    await appendFile(
      file,
      `${JSON.stringify({ op: "put", session: { ...last.session, state: "not-a-state", target_app_whitelist: 42 } })}\n${JSON.stringify(last)}\n`,
    );
    await agent!.restart();
    const detail = await agent!.call("GET", `/api/learn/sessions/${id}/detail`);
    expect(detail.status).toBe(200);
    expect(detail.body.state).toBe(last.session.state);
  });

  it("refuses to start when the version that wins does not match the schema", async () => {
    const { file, last } = await sessionWithHistory();
    await appendFile(file, `${JSON.stringify({ op: "put", session: { ...last.session, state: "not-a-state" } })}\n`);
    const error = await agent!.restart().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as { code?: string } | undefined)?.code).toBe("MEMORY_RECORD_CORRUPT");
  });
});
