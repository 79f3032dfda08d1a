import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LearnSessionEventEnvelopeSchema } from "../../../../shared/learning/read-models";
import { agentLoggerOptions, buildApp, type AgentApp } from "../../../test-support/test-agent";
import { openMemoryStore, type MemoryStore } from "../../../memory/memory-store";
import { MemoryPaths } from "../../../memory/memory-paths";
import { makeTempMemoryRoot } from "../../../test-support/temp-memory";

interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A plain HTTP SSE reader, as a fetch-based client would be: frames in, with the token in a header. */
class SseClient {
  frames: SseFrame[] = [];
  ended = false;
  private buffer = "";
  private waiters: Array<() => void> = [];
  constructor(readonly response: IncomingMessage) {
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      this.buffer += chunk;
      let cut = this.buffer.indexOf("\n\n");
      while (cut >= 0) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut + 2);
        const frame: SseFrame = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) frame.comment = line.slice(1);
          else {
            const colon = line.indexOf(": ");
            const key = line.slice(0, colon) as "id" | "event" | "data";
            frame[key] = line.slice(colon + 2);
          }
        }
        this.frames.push(frame);
        cut = this.buffer.indexOf("\n\n");
      }
      this.notify();
    });
    response.on("end", () => {
      this.ended = true;
      this.notify();
    });
  }
  private notify() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
  events() {
    return this.frames.filter((frame) => frame.event !== undefined);
  }
  async until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out; frames so far: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
  close() {
    this.response.destroy();
  }
}

let app: AgentApp;
let memory: MemoryStore;
let cleanup: () => Promise<void>;
let base: URL;
let token: string;

beforeEach(async () => {
  const temp = await makeTempMemoryRoot();
  cleanup = temp.cleanup;
  memory = await openMemoryStore({ root: temp.root });
  app = await buildApp({ memory, port: 0, logger: agentLoggerOptions("silent"), keepaliveMs: 100 });
  base = new URL(await app.listen({ host: "127.0.0.1", port: 0 }));
  token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
});
afterEach(async () => {
  await app.close();
  await memory.close();
  await cleanup();
});

async function post(path: string, body?: unknown) {
  const response = await fetch(new URL(path, base), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

function openStream(sessionId: string, lastEventId?: string, auth = true): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(`/api/learn/sessions/${sessionId}/events`, base), {
      headers: { ...(auth ? { authorization: `Bearer ${token}` } : {}), ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    });
    req.on("response", (response) => resolve(new SseClient(response)));
    req.on("error", reject);
    req.end();
  });
}

async function newSession(): Promise<string> {
  const created = await post("/api/learn/sessions", { entry_mode: "demonstrating_skill" });
  return (created.session as { learn_session_id: string }).learn_session_id;
}

describe("GET /api/learn/sessions/:id/events", () => {
  it("R11.2-17: delivers lifecycle events in real time, with increasing ids and the §0C.16E envelope", async () => {
    const id = await newSession();
    const stream = await openStream(id);
    expect(stream.response.headers["content-type"]).toContain("text/event-stream");
    await stream.until(() => stream.events().length === 1);
    await post(`/api/learn/sessions/${id}/start`);
    await post(`/api/learn/sessions/${id}/mark-step`, { step_label: "go" });
    await stream.until(() => stream.events().length === 3);
    expect(stream.events().map((frame) => frame.event)).toEqual(["learn.session.started", "learn.capture.armed", "learn.capture.started"]);
    const ids = stream.events().map((frame) => Number(frame.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const envelope = LearnSessionEventEnvelopeSchema.parse(JSON.parse(stream.events()[1]?.data ?? "{}"));
    expect(envelope.data).toMatchObject({ session_id: id, event_kind: "learn.capture.armed", payload: { state: "armed" } });
    stream.close();
  });

  it("replays exactly the missed events to a client that reconnects with Last-Event-ID", async () => {
    const id = await newSession();
    const first = await openStream(id);
    await post(`/api/learn/sessions/${id}/start`);
    await first.until(() => first.events().length === 2);
    const lastSeen = first.events()[1]?.id;
    first.close();
    await post(`/api/learn/sessions/${id}/mark-step`, { step_label: "go" });
    await post(`/api/learn/sessions/${id}/pause`);
    const second = await openStream(id, lastSeen);
    await second.until(() => second.events().length === 2);
    expect(second.events().map((frame) => frame.event)).toEqual(["learn.capture.started", "learn.capture.paused"]);
    await post(`/api/learn/sessions/${id}/resume`);
    await second.until(() => second.events().length === 3);
    expect(second.events()[2]?.event).toBe("learn.capture.resumed");
    second.close();
  });

  it("sends :keepalive comments while the session is quiet", async () => {
    const id = await newSession();
    const stream = await openStream(id);
    await stream.until(() => stream.frames.some((frame) => frame.comment === "keepalive"));
    stream.close();
  });

  it("closes the stream when the session reaches a terminal state", async () => {
    const id = await newSession();
    const stream = await openStream(id);
    await post(`/api/learn/sessions/${id}/cancel`, { reason: "done" });
    await stream.until(() => stream.ended);
    expect(stream.events().at(-1)?.event).toBe("learn.session.cancelled");
  });

  it("replays and closes at once for a session that is already terminal", async () => {
    const id = await newSession();
    await post(`/api/learn/sessions/${id}/cancel`);
    const stream = await openStream(id);
    await stream.until(() => stream.ended);
    expect(stream.events().map((frame) => frame.event)).toEqual(["learn.session.started", "learn.session.cancelled"]);
  });

  it("keeps event ids increasing across an agent restart", async () => {
    const id = await newSession();
    const before = await openStream(id);
    await before.until(() => before.events().length === 1);
    const firstId = Number(before.events()[0]?.id);
    before.close();
    await app.close();
    app = await buildApp({ memory, port: 0, logger: agentLoggerOptions("silent"), keepaliveMs: 100 });
    base = new URL(await app.listen({ host: "127.0.0.1", port: 0 }));
    await post(`/api/learn/sessions/${id}/start`);
    const after = await openStream(id, String(firstId));
    await after.until(() => after.events().length === 1);
    expect(after.events()[0]).toMatchObject({ event: "learn.capture.armed" });
    expect(Number(after.events()[0]?.id)).toBeGreaterThan(firstId);
    after.close();
  });

  it("after a restart, replays a session's history read from the log, and what is emitted while it is read comes once, in order (issue 17)", async () => {
    const id = await newSession();
    const other = crypto.randomUUID();
    await post(`/api/learn/sessions/${id}/start`);
    await app.close();
    // The agent starts without any session's history in memory; the stream's first replay reads it.
    app = await buildApp({ memory, port: 0, logger: agentLoggerOptions("silent"), keepaliveMs: 100 });
    base = new URL(await app.listen({ host: "127.0.0.1", port: 0 }));
    const opening = openStream(id);
    const emitted = await Promise.all(Array.from({ length: 30 }, (_, index) => app.learning.events.emit(id, "checkpoint.reached", { index })));
    await app.learning.events.emit(other, "checkpoint.reached", { index: -1 });
    const stream = await opening;
    await stream.until(() => stream.events().length === 32);
    expect(stream.events().map((frame) => frame.event)).toEqual(["learn.session.started", "learn.capture.armed", ...emitted.map(() => "checkpoint.reached")]);
    const ids = stream.events().map((frame) => Number(frame.id));
    expect(ids.slice(2)).toEqual(emitted.map((stored) => stored.event_id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(stream.events().every((frame) => JSON.parse(frame.data ?? "{}").data.session_id === id)).toBe(true);
    // The history is kept once read: a second client gets the same, emitted after the restart included.
    expect((await app.learning.events.since(id, 0)).map((stored) => stored.event_id)).toEqual(ids);
    stream.close();
  });

  it("refuses a stream without the token, and answers an unknown session with the envelope", async () => {
    const id = await newSession();
    const anonymous = await openStream(id, undefined, false);
    expect(anonymous.response.statusCode).toBe(401);
    anonymous.close();
    const unknown = await openStream("5b3a1f0e-2c4d-4e6f-8a9b-0c1d2e3f4a5b");
    expect(unknown.response.statusCode).toBe(404);
    unknown.close();
  });

  it("paces a client that stops reading instead of cutting it off: it gets every event, in order, once it reads again; a long backlog replays in full", async () => {
    const id = await newSession();
    const slow = await openStream(id);
    await slow.until(() => slow.events().length === 1);
    // The client stops reading while the agent keeps producing: 400 events of 64 KB, far more
    // than the socket buffers hold.
    slow.response.pause();
    const note = "x".repeat(64 * 1024);
    const emitted = await Promise.all(Array.from({ length: 400 }, (_, index) => app.learning.events.emit(id, "checkpoint.reached", { index, note })));
    slow.response.resume();
    await slow.until(() => slow.events().length === 1 + emitted.length, 20_000);
    expect(slow.ended).toBe(false);
    expect(
      slow
        .events()
        .slice(1)
        .map((frame) => Number(frame.id)),
    ).toEqual(emitted.map((stored) => stored.event_id));
    slow.close();

    // A client reconnecting from the first of them is replayed the other 399 (25 MB), not cut off.
    const resumed = await openStream(id, String(emitted[0]?.event_id));
    await resumed.until(() => resumed.events().length === emitted.length - 1, 20_000);
    expect(resumed.events().map((frame) => Number(frame.id))).toEqual(emitted.slice(1).map((stored) => stored.event_id));
    expect(resumed.events().every((frame) => frame.event === "checkpoint.reached")).toBe(true);
    resumed.close();

    // Once the session is over, a reconnect still gets its whole backlog, then the stream closes.
    await post(`/api/learn/sessions/${id}/cancel`);
    const late = await openStream(id, String(emitted[0]?.event_id));
    await late.until(() => late.ended, 20_000);
    expect(late.events().map((frame) => frame.event)).toEqual([...emitted.slice(1).map(() => "checkpoint.reached"), "learn.session.cancelled"]);
  }, 60_000);
});
