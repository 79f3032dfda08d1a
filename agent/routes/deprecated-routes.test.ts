import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { LearnSessionSchema } from "../../shared/learning/sessions/learn-session";
import { MemoryPaths } from "../memory/memory-paths";
import { TEST_PORT, startTestAgent, type TestAgent } from "../test-support/test-agent";

let agent: TestAgent;

beforeEach(async () => {
  agent = await startTestAgent();
});
afterEach(async () => {
  await agent.close();
});

type Method = "GET" | "POST" | "DELETE";
type Json = Record<string, unknown>;

async function call(method: Method, url: string, payload?: unknown) {
  return agent.app.inject({ method, url, headers: agent.headers(), ...(payload === undefined ? {} : { payload: payload as Json }) });
}

/** A 308 to `location`, with the empty body: the client re-sends method and body there. */
function expectRedirect(response: Awaited<ReturnType<typeof call>>, location: string) {
  expect(response.statusCode).toBe(308);
  expect(response.headers.location).toBe(location);
  expect(response.json()).toEqual({});
}

function expectError(response: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  expect(response.headers.location).toBeUndefined();
  expect(ApiErrorResponseSchema.parse(response.json()).error.code).toBe(code);
}

async function createSession(): Promise<string> {
  const response = await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill", observation_mode: "none" });
  expect(response.statusCode).toBe(201);
  return LearnSessionSchema.parse((response.json() as Json).session).learn_session_id;
}

/** Proposals have no store yet: the link to one lives on its session, as a proposal step would leave it. */
async function sessionWithProposal(proposalId: string): Promise<string> {
  const id = await createSession();
  const session = LearnSessionSchema.parse((await call("GET", `/api/learn/sessions/${id}/detail`)).json());
  await agent.memory.append(MemoryPaths.sessions, { op: "put", session: { ...session, proposal_id: proposalId } });
  await agent.restart();
  return id;
}

describe("deprecated learning routes answer 308 to the canonical route (§0C.16, §0C.20B)", () => {
  it("R11.2-47: POST /api/capabilities/teach/start → 308 redirect to /api/learn/sessions", async () => {
    const response = await call("POST", "/api/capabilities/teach/start", { entry_mode: "demonstrating_skill" });
    expectRedirect(response, "/api/learn/sessions");
    // A redirect, not a second way in: nothing was created.
    expect((await call("GET", "/api/learn/sessions")).json()).toMatchObject({ total: 0 });
  });

  it("R11.2-48: POST /api/learn/session/start (singular) → 308 redirect to /api/learn/sessions", async () => {
    expectRedirect(await call("POST", "/api/learn/session/start", { entry_mode: "demonstrating_skill" }), "/api/learn/sessions");
  });

  it.each([
    ["POST", "start"],
    ["POST", "mark-step"],
    ["GET", "detail"],
    ["GET", "events"],
  ] as const)("maps the singular %s /api/learn/session/:id/%s onto the plural route", async (method, rest) => {
    const id = randomUUID();
    expectRedirect(await call(method, `/api/learn/session/${id}/${rest}`), `/api/learn/sessions/${id}/${rest}`);
  });

  it("maps the singular DELETE /api/learn/session/:id onto the plural route", async () => {
    const id = randomUUID();
    expectRedirect(await call("DELETE", `/api/learn/session/${id}`), `/api/learn/sessions/${id}`);
  });

  it("keeps the query string", async () => {
    const id = randomUUID();
    expectRedirect(
      await call("GET", `/api/learn/session/${id}/checkpoint-receipts?page=2&page_size=5`),
      `/api/learn/sessions/${id}/checkpoint-receipts?page=2&page_size=5`,
    );
    expectRedirect(await call("GET", "/api/skills/mining/proposals?page=3"), "/api/learn/proposals?page=3");
  });

  it("sends teach/cancel and teach/finish to the open session's cancel and stop", async () => {
    const id = await createSession();
    expectRedirect(await call("POST", "/api/capabilities/teach/cancel"), `/api/learn/sessions/${id}/cancel`);
    expectRedirect(await call("POST", "/api/capabilities/teach/finish"), `/api/learn/sessions/${id}/stop`);
  });

  it("answers teach/cancel and teach/finish with LEARN_SESSION_NOT_FOUND when no session is open", async () => {
    expectError(await call("POST", "/api/capabilities/teach/cancel"), 404, "LEARN_SESSION_NOT_FOUND");
    const id = await createSession();
    expect((await call("POST", `/api/learn/sessions/${id}/cancel`)).statusCode).toBe(200);
    expectError(await call("POST", "/api/capabilities/teach/finish"), 404, "LEARN_SESSION_NOT_FOUND");
  });

  it("sends POST /api/capabilities/promote to the ability named in the body", async () => {
    expectRedirect(
      await call("POST", "/api/capabilities/promote", { ability_id: "export-invoices_v2", note: "kept for the canonical route" }),
      "/api/abilities/export-invoices_v2/promote-shared",
    );
  });

  it.each([
    ["no ability_id", {}],
    ["an ability_id that is not a string", { ability_id: 7 }],
    ["an ability_id that climbs out of the path", { ability_id: "../../pairing" }],
    ["an ability_id with a slash", { ability_id: "a/b" }],
  ])("answers POST /api/capabilities/promote with %s → 400 REQUEST_INVALID", async (_label, body) => {
    expectError(await call("POST", "/api/capabilities/promote", body), 400, "REQUEST_INVALID");
  });

  it.each([
    ["test", "validate"],
    ["install-experimental", "install"],
    ["feedback", "revise"],
  ])("sends POST /api/skills/mining/proposals/:id/%s to /api/learn/proposals/:id/%s", async (legacy, canonical) => {
    const proposalId = randomUUID();
    expectRedirect(await call("POST", `/api/skills/mining/proposals/${proposalId}/${legacy}`), `/api/learn/proposals/${proposalId}/${canonical}`);
  });

  it("sends GET /api/skills/mining/proposals to /api/learn/proposals", async () => {
    expectRedirect(await call("GET", "/api/skills/mining/proposals"), "/api/learn/proposals");
  });

  it.each(["questions", "answers"])("sends POST /api/skills/mining/proposals/:id/%s to the proposal's session answer-questions", async (legacy) => {
    const proposalId = randomUUID();
    const sessionId = await sessionWithProposal(proposalId);
    expectRedirect(
      await call("POST", `/api/skills/mining/proposals/${proposalId}/${legacy}`, { answers: [] }),
      `/api/learn/sessions/${sessionId}/answer-questions`,
    );
  });

  it("answers questions/answers for a proposal no session has with PROPOSAL_NOT_FOUND", async () => {
    await createSession();
    expectError(await call("POST", `/api/skills/mining/proposals/${randomUUID()}/questions`), 404, "PROPOSAL_NOT_FOUND");
  });

  it("legacy_post_redirects_never_use_301: every deprecated route answers 308, never 301", async () => {
    const sessionId = await sessionWithProposal(randomUUID());
    const proposalId = LearnSessionSchema.parse((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).json()).proposal_id;
    const routes: Array<[Method, string, unknown?]> = [
      ["POST", "/api/capabilities/teach/start"],
      ["POST", "/api/capabilities/teach/cancel"],
      ["POST", "/api/capabilities/teach/finish"],
      ["POST", "/api/capabilities/promote", { ability_id: "export-invoices" }],
      ["POST", `/api/skills/mining/proposals/${proposalId}/questions`],
      ["POST", `/api/skills/mining/proposals/${proposalId}/answers`],
      ["POST", `/api/skills/mining/proposals/${proposalId}/test`],
      ["POST", `/api/skills/mining/proposals/${proposalId}/install-experimental`],
      ["POST", `/api/skills/mining/proposals/${proposalId}/feedback`],
      ["GET", "/api/skills/mining/proposals"],
      ["POST", "/api/learn/session/start"],
      ["POST", "/api/learn/session"],
      ["POST", `/api/learn/session/${sessionId}/stop`],
      ["DELETE", `/api/learn/session/${sessionId}`],
    ];
    for (const [method, url, body] of routes) {
      const response = await call(method, url, body);
      expect(response.statusCode, `${method} ${url}`).toBe(308);
      expect(response.headers.location, `${method} ${url}`).toMatch(/^\/api\/(learn|abilities)\//);
    }
  });

  it.each([
    ["an encoded ../ as the session id", `/api/learn/session/..%2F..%2Fagent/start`],
    ["an encoded ../ after the session id", `/api/learn/session/${randomUUID()}/..%2F..%2Fpairing`],
    ["an encoded ..\\ after the session id", `/api/learn/session/${randomUUID()}/..%5C..%5Cpairing`],
    ["an encoded ../ as the proposal id", `/api/skills/mining/proposals/..%2F..%2Fpairing/test`],
    ["a session id that is not a uuid", `/api/learn/session/not-a-uuid/start`],
  ])("rejects %s with REQUEST_INVALID and no Location", async (_label, url) => {
    expectError(await call("POST", url), 400, "REQUEST_INVALID");
  });

  it("stays behind the request guard: no token, no redirect", async () => {
    const response = await agent.app.inject({ method: "POST", url: "/api/capabilities/teach/start", headers: { host: `127.0.0.1:${TEST_PORT}` } });
    expectError(response, 401, "AUTH_REQUIRED");
  });
});

describe("a real HTTP client following the 308", () => {
  it("re-sends the POST and its body to Location and creates the session", async () => {
    await agent.app.listen({ host: "127.0.0.1", port: 0 });
    const address = agent.app.server.address();
    if (address === null || typeof address === "string") throw new Error("the agent is not listening on a TCP port");
    const base = `http://127.0.0.1:${address.port}`;
    const init = {
      method: "POST",
      headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
      body: JSON.stringify({ entry_mode: "demonstrating_skill", observation_mode: "none" }),
    };

    const legacy = await fetch(`${base}/api/capabilities/teach/start`, { ...init, redirect: "manual" });
    expect(legacy.status).toBe(308);
    const location = legacy.headers.get("location");
    expect(location).toBe("/api/learn/sessions");

    const created = await fetch(new URL(location ?? "", base), init);
    expect(created.status).toBe(201);
    const session = LearnSessionSchema.parse(((await created.json()) as Json).session);
    expect(session).toMatchObject({ entry_mode: "demonstrating_skill", observation_mode: "none", state: "idle" });

    // fetch's own redirect handling keeps the method and body of a 308 too (the singular prefix here).
    const followed = await fetch(`${base}/api/learn/session/${session.learn_session_id}/cancel`, { ...init, body: JSON.stringify({ reason: "done" }) });
    expect(followed.status).toBe(200);
    expect(followed.redirected).toBe(true);
    expect(LearnSessionSchema.parse(((await followed.json()) as Json).session).state).toBe("cancelled");
  });
});
