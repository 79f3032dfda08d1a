import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LearnSessionEventEnvelope } from "../../../shared/learning/read-models";
import { createAgentClient } from "../../agent-link/agent-client";
import { SessionLiveLink } from "./session-live-link.svelte";
import { eventually, startListeningAgent, type ListeningAgent } from "../../test-support/listening-agent";

let agent: ListeningAgent;

beforeEach(async () => {
  agent = await startListeningAgent();
});
afterEach(async () => {
  await agent.close();
});

async function newSession(): Promise<string> {
  const created = await agent.client.createSession({ entry_mode: "demonstrating_skill", observation_mode: "none" });
  return created.session.learn_session_id;
}

function link(sessionId: string, overrides: Partial<ConstructorParameters<typeof SessionLiveLink>[0]> = {}) {
  const events: LearnSessionEventEnvelope[] = [];
  let refreshes = 0;
  const live = new SessionLiveLink({
    client: agent.client,
    sessionId,
    onEvent: (envelope) => events.push(envelope),
    refresh: async () => {
      refreshes += 1;
      const session = await agent.client.sessionDetail(sessionId).catch(() => undefined);
      return { terminal: session?.state === "cancelled" || session?.state === "rejected" };
    },
    pollMs: 50,
    reconnectDelaysMs: [50],
    ...overrides,
  });
  return { live, events, refreshes: () => refreshes };
}

describe("SessionLiveLink against a real agent", () => {
  it("reads the session's events over the bearer-authenticated stream and says it is live", async () => {
    const sessionId = await newSession();
    const { live, events } = link(sessionId);
    live.start();
    await eventually(() => live.status === "live", "a live stream");
    await agent.client.startSession(sessionId);
    await eventually(() => events.some((envelope) => envelope.event === "learn.capture.armed"), "the armed event");
    expect(events[0]?.event).toBe("learn.session.started");
    expect(live.degradedReason).toBeNull();
    live.stop();
  });

  it("ends when the session is cancelled (the agent closes the stream at a terminal state)", async () => {
    const sessionId = await newSession();
    const { live } = link(sessionId);
    live.start();
    await eventually(() => live.status === "live", "a live stream");
    await agent.client.cancelSession(sessionId, "test");
    await eventually(() => live.status === "ended", "the end of the stream");
  });

  it("says real-time updates are unavailable and polls the session while the agent is gone", async () => {
    const sessionId = await newSession();
    const { live, refreshes } = link(sessionId);
    live.start();
    await eventually(() => live.status === "live", "a live stream");
    await agent.stop();
    await eventually(() => live.status === "degraded", "the degraded state");
    expect(live.degradedReason).toMatch(/dropped|could not be opened/);
    const before = refreshes();
    await eventually(() => refreshes() >= before + 3, "polling every pollMs");
    live.stop();
  });

  it("reconnects after a drop with Last-Event-ID, so no event is missed or repeated", async () => {
    const sessionId = await newSession();
    const lastEventIds: Array<string | null> = [];
    let cut = true;
    // The first stream is cut right after its first message, as a network drop would.
    const cuttingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).endsWith("/events")) return response;
      lastEventIds.push(new Headers(init?.headers).get("last-event-id"));
      if (!cut || response.body === null) return response;
      cut = false;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await reader.read();
          if (done || value === undefined) return controller.close();
          controller.enqueue(value);
          if (new TextDecoder().decode(value).includes("\n\n")) {
            await reader.cancel();
            controller.close();
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = createAgentClient({ baseUrl: agent.url, token: agent.token, fetch: cuttingFetch });
    const { live, events } = link(sessionId, { client });
    live.start();
    await eventually(() => lastEventIds.length === 1 && live.status === "degraded", "the drop");
    expect(live.degradedReason).toBe("the live stream dropped");
    // The agent sends the reconnect's headers with its first frame: the next event.
    await agent.client.startSession(sessionId);
    await eventually(() => lastEventIds.length === 2 && live.status === "live", "the reconnect");
    expect(lastEventIds[0]).toBeNull();
    expect(lastEventIds[1]).toBe("1");
    await eventually(() => events.some((envelope) => envelope.event === "learn.capture.armed"), "the armed event after the reconnect");
    expect(events.map((envelope) => envelope.event)).toEqual(["learn.session.started", "learn.capture.armed"]);
    expect(live.lastEventId).toBe("2");
    live.stop();
  });
});
