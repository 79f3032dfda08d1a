import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import { LearnSessionSchema, type LearnSession } from "../../../shared/learning/sessions/learn-session";
import { LearnHistoryResponseSchema, LearnReceiptsResponseSchema } from "../../../shared/learning/route-contracts";
import { MemoryPaths } from "../../memory/memory-paths";
import { exportClick } from "../../test-support/ready-proposal";
import { createFakeClock, startTestAgent, type FakeClock, type TestAgent, type TestAgentOptions } from "../../test-support/test-agent";
import { createSessionCleanup } from "./session-cleanup";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let clock: FakeClock;
let agent: TestAgent;

async function boot(options: TestAgentOptions = {}) {
  clock = createFakeClock();
  agent = await startTestAgent({ clock, ...options });
}

beforeEach(async () => {
  await boot();
});
afterEach(async () => {
  await agent.close();
});

type Json = Record<string, unknown>;

async function call(method: "GET" | "POST", url: string, payload?: unknown) {
  const response = await agent.app.inject({ method, url, headers: agent.headers(), ...(payload === undefined ? {} : { payload: payload as Json }) });
  return { status: response.statusCode, body: response.json() as Json };
}

function expectError(result: { status: number; body: Json }, status: number, code: string) {
  expect(result.status).toBe(status);
  expect(ApiErrorResponseSchema.parse(result.body).error.code).toBe(code);
}

async function createSession(): Promise<string> {
  const result = await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill", observation_mode: "none" });
  expect(result.status).toBe(201);
  return LearnSessionSchema.parse(result.body.session).learn_session_id;
}

async function armedSession(): Promise<string> {
  const id = await createSession();
  expect((await call("POST", `/api/learn/sessions/${id}/start`)).status).toBe(200);
  return id;
}

async function capturingSession(): Promise<string> {
  const id = await armedSession();
  expect((await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "Open the invoice list" })).status).toBe(200);
  return id;
}

async function cancel(id: string) {
  expect((await call("POST", `/api/learn/sessions/${id}/cancel`)).status).toBe(200);
}

async function detail(id: string): Promise<LearnSession> {
  const result = await call("GET", `/api/learn/sessions/${id}/detail`);
  expect(result.status).toBe(200);
  return LearnSessionSchema.parse(result.body);
}

async function receiptsOf(id: string) {
  const result = await call("GET", `/api/learn/receipts?session_id=${id}`);
  expect(result.status).toBe(200);
  return LearnReceiptsResponseSchema.parse(result.body).receipts;
}

/** What a capture leaves behind: an events log and a snapshot under observations/<id>/. */
async function writeObservations(id: string) {
  await agent.memory.append(MemoryPaths.observationEvents(id), { event_id: randomUUID(), kind: "click", target: "button#export" });
  await agent.memory.writeJson(MemoryPaths.observationSnapshot(id, "a".repeat(64)), { roles: ["button"] });
}

const hasObservations = (id: string) => agent.memory.exists(MemoryPaths.observationFolder(id));

const runCleanup = () =>
  createSessionCleanup({ sessions: agent.app.learning.sessions, memory: agent.memory, clock, proposals: agent.app.learning.proposals }).runOnce();

describe("armed and capturing time limits (§0C.16D)", () => {
  it("R11.2-14: a session armed > 1 h auto-cancels with a session_timeout receipt", async () => {
    const id = await armedSession();
    clock.advance(HOUR + MINUTE);

    const report = await runCleanup();

    expect(report.cancelled).toEqual([id]);
    expect((await detail(id)).state).toBe("cancelled");
    const cancelled = (await receiptsOf(id)).filter((receipt) => receipt.receipt_kind === "learn.session.cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]?.reason).toBe("session_timeout");
    expect(cancelled[0]?.created_at).toBe(clock.now().toISOString());
  });

  it("leaves a session armed for 59 minutes alone", async () => {
    const id = await armedSession();
    clock.advance(59 * MINUTE);

    const report = await runCleanup();

    expect(report.cancelled).toEqual([]);
    expect((await detail(id)).state).toBe("armed");
    expect((await receiptsOf(id)).map((receipt) => receipt.receipt_kind)).not.toContain("learn.session.cancelled");
  });

  it("auto-pauses a session capturing > 4 h with a capture_timeout receipt, counting from when capture began", async () => {
    const id = await armedSession();
    clock.advance(30 * MINUTE);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "Open the invoice list" });
    expect((await detail(id)).state).toBe("capturing");

    // 4 h 29 min after the session was armed, but only 3 h 59 min of capture.
    clock.advance(3 * HOUR + 59 * MINUTE);
    expect((await runCleanup()).paused).toEqual([]);
    expect((await detail(id)).state).toBe("capturing");

    clock.advance(2 * MINUTE);
    expect((await runCleanup()).paused).toEqual([id]);
    expect((await detail(id)).state).toBe("paused");
    const paused = (await receiptsOf(id)).filter((receipt) => receipt.receipt_kind === "learn.capture.paused");
    expect(paused.map((receipt) => receipt.reason)).toEqual(["capture_timeout"]);
  });

  it("runs once just after the agent starts, so a session left armed across a restart is cancelled", async () => {
    const id = await armedSession();
    clock.advance(2 * HOUR);

    await agent.restart();

    // Issue 32: the sweep is scheduled just after ready, not awaited before the agent listens. The session reads
    // cancelled as soon as its new version is appended, and its receipt is written just after: both are waited for.
    await vi.waitFor(
      async () => {
        expect((await detail(id)).state).toBe("cancelled");
        expect((await receiptsOf(id)).find((receipt) => receipt.receipt_kind === "learn.session.cancelled")?.reason).toBe("session_timeout");
      },
      { timeout: 2000, interval: 20 },
    );
  });

  it("runs again on its interval while the agent is up", async () => {
    await agent.close();
    await boot({ retentionIntervalMs: 20 });
    const id = await armedSession();
    clock.advance(HOUR + MINUTE);

    await vi.waitFor(async () => expect((await detail(id)).state).toBe("cancelled"), { timeout: 2000, interval: 20 });
  });
});

describe("raw observations after a session ends (§0C.16D)", () => {
  it("R11.2-46: observation events are purged 7 days after the session became terminal", async () => {
    const id = await capturingSession();
    await writeObservations(id);
    clock.advance(2 * DAY); // time spent before the end does not count
    await cancel(id);

    clock.advance(6 * DAY);
    expect((await runCleanup()).observations_purged).toEqual([]);
    expect(await hasObservations(id)).toBe(true);

    clock.advance(DAY + MINUTE);
    expect((await runCleanup()).observations_purged).toEqual([id]);
    expect(await hasObservations(id)).toBe(false);
    // The session itself stays until its own 30 days.
    expect((await detail(id)).state).toBe("cancelled");
  });

  it("keeps observations the user flagged retain, and purges them once the flag is taken back", async () => {
    const id = await capturingSession();
    await writeObservations(id);
    await cancel(id);
    const flagged = await call("POST", `/api/learn/sessions/${id}/retain-observations`, { retain: true });
    expect(flagged).toEqual({ status: 200, body: { learn_session_id: id, retain: true } });

    clock.advance(8 * DAY);
    const report = await runCleanup();
    expect(report.observations_purged).toEqual([]);
    expect(report.observations_retained).toEqual([id]);
    expect(await hasObservations(id)).toBe(true);

    expect((await call("POST", `/api/learn/sessions/${id}/retain-observations`, { retain: false })).body).toEqual({ learn_session_id: id, retain: false });
    expect((await runCleanup()).observations_purged).toEqual([id]);
    expect(await hasObservations(id)).toBe(false);
  });

  it("keeps the observations, reports the failure and does not archive when the retain flag cannot be read", async () => {
    const id = await capturingSession();
    await writeObservations(id);
    await cancel(id);
    await agent.memory.writeText(MemoryPaths.observationRetention(id), "{not json");
    clock.advance(31 * DAY);

    const report = await runCleanup();

    expect(report.failures).toMatchObject([{ learn_session_id: id, action: "purge_observations", code: "MEMORY_RECORD_CORRUPT" }]);
    expect(report.archived).toEqual([]);
    expect(await hasObservations(id)).toBe(true);
    expect((await detail(id)).state).toBe("cancelled");
  });

  it("never purges or archives anything of a session that is not terminal, however old", async () => {
    const id = await capturingSession();
    await writeObservations(id);
    clock.advance(5 * HOUR);
    expect((await runCleanup()).paused).toEqual([id]);

    clock.advance(90 * DAY);
    const report = await runCleanup();

    expect(report).toEqual({
      cancelled: [],
      paused: [],
      observations_purged: [],
      observations_retained: [],
      proposals_archived: [],
      archived: [],
      failures: [],
      runs_purged: [],
      run_failures: [],
    });
    expect(await hasObservations(id)).toBe(true);
    expect((await detail(id)).state).toBe("paused");
  });

  it("refuses a retain flag for an unknown session or with a malformed body, and writes nothing", async () => {
    const unknown = randomUUID();
    expectError(await call("POST", `/api/learn/sessions/${unknown}/retain-observations`, { retain: true }), 404, "LEARN_SESSION_NOT_FOUND");
    expect(await agent.memory.exists(MemoryPaths.observationRetention(unknown))).toBe(false);

    const id = await createSession();
    expectError(await call("POST", `/api/learn/sessions/${id}/retain-observations`, { retain: "yes" }), 400, "REQUEST_INVALID");
    expectError(await call("POST", `/api/learn/sessions/${id}/retain-observations`, { retain: true, forever: true }), 400, "REQUEST_INVALID");
    expect(await agent.memory.exists(MemoryPaths.observationRetention(id))).toBe(false);
  });
});

describe("archiving terminal sessions (§0C.16D)", () => {
  it("archives a terminal session 30 days after it ended: gone from detail, still in history", async () => {
    const id = await armedSession();
    await cancel(id);

    clock.advance(29 * DAY);
    expect((await runCleanup()).archived).toEqual([]);
    expect((await detail(id)).state).toBe("cancelled");

    clock.advance(DAY + MINUTE);
    expect((await runCleanup()).archived).toEqual([id]);

    expectError(await call("GET", `/api/learn/sessions/${id}/detail`), 404, "LEARN_SESSION_NOT_FOUND");
    expect(await agent.memory.exists(MemoryPaths.archivedSession(id))).toBe(true);
    const history = LearnHistoryResponseSchema.parse((await call("GET", "/api/learn/history")).body);
    expect(history.items).toMatchObject([{ learn_session_id: id, state: "cancelled", outcome: "cancelled" }]);
  });

  it("purges unretained observations before archiving, so none are left behind unlisted", async () => {
    const id = await capturingSession();
    await writeObservations(id);
    await cancel(id);
    clock.advance(31 * DAY);

    const report = await runCleanup();

    expect(report.observations_purged).toEqual([id]);
    expect(report.archived).toEqual([id]);
    expect(await hasObservations(id)).toBe(false);
  });
});

describe("proposal archive (§0C.16D)", () => {
  /** A captured click, stopped, compiled into a proposal that is then rejected. */
  async function rejectedProposal(): Promise<{ sessionId: string; proposalId: string }> {
    const sessionId = await armedSession();
    await call("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: "Export the invoices" });
    const event = exportClick(sessionId, clock.now().toISOString());
    const ack = await call("POST", "/api/observations/events", { batch_id: randomUUID(), events: [event], snapshots: [], schema_version: 1 });
    expect(ack.body.accepted).toEqual([event.event_id]);
    await call("POST", `/api/learn/sessions/${sessionId}/stop`);
    const generated = await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`);
    const proposalId = generated.body.proposal_id as string;
    const answer = (await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.questions as Array<{ question_id: string }>;
    if ((await detail(sessionId)).state === "awaiting_questions") {
      await call("POST", `/api/learn/sessions/${sessionId}/answer-questions`, {
        answers: answer.map((question) => ({ question_id: question.question_id, answer_text: "The export file is listed" })),
      });
    }
    expect((await call("POST", `/api/learn/proposals/${proposalId}/reject`, { reason: "not now", schema_version: 1 })).status).toBe(200);
    return { sessionId, proposalId };
  }

  it("archives a rejected proposal 14 days after its session ended, keeping its record and SKILL.md", async () => {
    const { proposalId } = await rejectedProposal();
    clock.advance(13 * DAY);
    expect((await runCleanup()).proposals_archived).toEqual([]);
    expect((await call("GET", `/api/learn/proposals/${proposalId}/detail`)).status).toBe(200);

    clock.advance(DAY + MINUTE);
    expect((await runCleanup()).proposals_archived).toEqual([proposalId]);
    expectError(await call("GET", `/api/learn/proposals/${proposalId}/detail`), 404, "PROPOSAL_NOT_FOUND");
    expect((await call("GET", "/api/learn/proposals")).body.total).toBe(0);
    expect(await agent.memory.exists(MemoryPaths.draft(proposalId))).toBe(false);
    const archived = JSON.parse((await agent.memory.readText(`${MemoryPaths.archivedProposal(proposalId)}/proposal.json`)) ?? "{}");
    expect(archived.proposal.proposal_state).toBe("rejected");
    expect(await agent.memory.readText(`${MemoryPaths.archivedProposal(proposalId)}/SKILL.md`)).toContain("## Checkpoints");
    // A restart reads the archive tombstone back: the proposal stays archived.
    await agent.restart();
    expectError(await call("GET", `/api/learn/proposals/${proposalId}/detail`), 404, "PROPOSAL_NOT_FOUND");
  });
});
