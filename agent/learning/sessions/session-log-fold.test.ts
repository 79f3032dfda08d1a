import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryPaths } from "../../memory/memory-paths";
import { editViewRecords } from "../../test-support/log-view-files";
import { expectError, startTestAgent, type TestAgent } from "../../test-support/test-agent";

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

  it("issue 32: starts on a sessions view holding a session that no longer matches its schema, and refuses only that session, when it is read", async () => {
    agent = await startTestAgent();
    const create = async () =>
      (await agent!.call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" })).body.session.learn_session_id as string;
    const ended = await create();
    await agent.call("POST", `/api/learn/sessions/${ended}/cancel`, { reason: "not needed" });
    const current = await create();
    await agent.call("POST", `/api/learn/sessions/${current}/start`);
    // The restart writes the sessions view up to the log's end; the ended session's record in it is then spoiled (its digest made to match).
    await agent.restart();
    await editViewRecords(path.join(agent.root, MemoryPaths.sessionsCurrent), (id, text) =>
      id === ended ? JSON.stringify({ ...(JSON.parse(text) as object), target_app_whitelist: 42 }) : text,
    );
    await agent.restart();
    // The current session is found from the view's marks (no session parsed), and answers; so does the one-at-a-time rule.
    expect((await agent.call("GET", `/api/learn/sessions/${current}/detail`)).body.state).toBe("armed");
    expectError(await agent.call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" }), 409, "LEARN_SESSION_ALREADY_ACTIVE");
    expectError(await agent.call("GET", `/api/learn/sessions/${ended}/detail`), 500, "MEMORY_RECORD_CORRUPT");
    // The list reads only its page's sessions: the page holding the spoiled one fails, the other answers.
    const pages = await Promise.all([1, 2].map((page) => agent!.call("GET", `/api/learn/sessions?page=${page}&page_size=1`)));
    expect(pages.map((listed) => listed.status).sort()).toEqual([200, 500]);
  });
});
