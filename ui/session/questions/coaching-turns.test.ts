import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import type { LearnSessionEventEnvelope } from "../../../shared/learning/read-models";
import { ActiveSessionState } from "../controls/active-session.svelte";
import { createAgentClient } from "../../agent-link/agent-client";
import { CoachingTurnsState, type CoachingEventSource } from "./coaching-turns.svelte";
import { eventually, startListeningAgent, type ListeningAgent } from "../../test-support/listening-agent";

let agent: ListeningAgent;
let turns: CoachingTurnsState | undefined;
let active: ActiveSessionState | undefined;
/** How many times the panel asked for the coaching state. */
let reads = 0;

beforeEach(async () => {
  agent = await startListeningAgent();
  reads = 0;
});
afterEach(async () => {
  turns?.unwatch();
  active?.destroy();
  turns = undefined;
  active = undefined;
  await agent.close();
});

/** The panel's client over a fetch that counts the coaching reads. */
function countingDeps() {
  const counting: typeof fetch = async (input, init) => {
    if (String(input).endsWith("/coaching")) reads += 1;
    return fetch(input, init);
  };
  return { ...agent.deps(), client: createAgentClient({ baseUrl: agent.url, token: agent.token, fetch: counting }) };
}

/** A Coaching Agent session set up with its steps, not started. */
async function coachingSession(): Promise<LearnSession> {
  await agent.call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "ext", kind: "browser_dom", schema_version: 1 });
  const created = await agent.call("POST", "/api/learn/sessions", {
    entry_mode: "coaching_agent",
    observation_mode: "outside_agent",
    target_app_whitelist: ["http://127.0.0.1:9"],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const session = created.body.session as LearnSession;
  const setUp = await agent.call("POST", `/api/learn/sessions/${session.learn_session_id}/coaching`, {
    start_url: "http://127.0.0.1:9/#/",
    steps: [{ words: "open the invoices page" }],
  });
  expect(setUp.status, JSON.stringify(setUp.body)).toBe(200);
  return session;
}

describe("the coaching turns follow the session's coaching.turn events", () => {
  it("re-reads the turns when the agent says they changed, and otherwise does not poll while the stream is up", async () => {
    const session = await coachingSession();
    const deps = countingDeps();
    active = new ActiveSessionState(deps);
    active.adopt(session);
    await eventually(() => active?.streaming === true, "the session's stream to be live");
    // Polls so slow that only an event can bring the change within this test.
    turns = new CoachingTurnsState(deps, session.learn_session_id, { fallbackPollMs: 60_000, offlinePollMs: 60_000 });
    turns.watch(active);
    await eventually(() => turns?.state?.status === "waiting_for_capture", "the set-up steps");
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(reads).toBe(1);

    // Started with no extension to lend a tab: the coaching ends at once, and says so on the stream.
    expect((await agent.call("POST", `/api/learn/sessions/${session.learn_session_id}/start`)).status).toBe(200);
    await eventually(() => turns?.state?.status === "failed", "the coaching's end to show");
    expect(turns.state?.message).toMatch(/could not use a tab/);
    expect(reads).toBeLessThanOrEqual(4);
  });

  it("falls back to reading the turns on its own while the stream is down", async () => {
    const session = await coachingSession();
    const silent: CoachingEventSource = { subscribe: () => () => undefined, streaming: false };
    turns = new CoachingTurnsState(countingDeps(), session.learn_session_id, { fallbackPollMs: 60_000, offlinePollMs: 50 });
    turns.watch(silent);
    await eventually(() => turns?.state?.status === "waiting_for_capture", "the set-up steps");
    expect((await agent.call("POST", `/api/learn/sessions/${session.learn_session_id}/start`)).status).toBe(200);
    await eventually(() => turns?.state?.status === "failed", "the coaching's end to show by polling");
  });

  it("re-reads for its own session's events only", async () => {
    const session = await coachingSession();
    const listeners: Array<(envelope: LearnSessionEventEnvelope) => void> = [];
    const source: CoachingEventSource = { subscribe: (listener) => (listeners.push(listener), () => undefined), streaming: true };
    turns = new CoachingTurnsState(countingDeps(), session.learn_session_id, { fallbackPollMs: 60_000 });
    turns.watch(source);
    await eventually(() => turns?.state !== null, "the first read");
    const first = reads;
    const event = (sessionId: string): LearnSessionEventEnvelope => ({
      event: "coaching.turn",
      data: { event_kind: "coaching.turn", session_id: sessionId, payload: {}, timestamp: new Date().toISOString() },
      schema_version: 1,
    });
    for (const listener of listeners) listener(event("00000000-0000-4000-8000-000000000000"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reads).toBe(first);
    for (const listener of listeners) listener(event(session.learn_session_id));
    await eventually(() => reads === first + 1, "one re-read for the session's own event");
  });
});
