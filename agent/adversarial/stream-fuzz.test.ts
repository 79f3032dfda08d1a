import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODE_TABLE } from "../../shared/common/error-codes";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { AgentFrameSchema, CAPTURE_CLOSE_CODES, ClientFrameSchema, type AgentFrame } from "../../shared/observation/capture-protocol";
import { createFuzzSandbox, type FuzzSandbox } from "../test-support/adversarial/fuzz-sandbox";
import { conforming } from "../test-support/adversarial/hostile-input";
import { applyMutation, DEEP_ARRAY_TEXT, hostileValue, mutation, toJsonText } from "../test-support/adversarial/hostile-values";
import { startListeningAgent, type ListeningAgent } from "../test-support/adversarial/listening-agent";
import { diffMemoryTrees } from "../test-support/adversarial/memory-tree";
import { rawRequest } from "../test-support/adversarial/raw-http";
import { exportClick } from "../test-support/ready-proposal";

/**
 * Issue #8: the observation WebSocket `GET /api/observations/stream` under garbage, binary,
 * oversized, well-formed-but-wrong and unauthenticated frames. Whatever arrives, the agent closes
 * the socket with one of its own codes or answers with a valid frame, stays up, and ELNOR_MEMORY
 * changes only by what an `ack` says was stored — exactly once.
 *
 * Seeds: fast-check prints `seed` and `path` on failure; replay with FUZZ_SEED=<seed>. FUZZ_RUNS
 * sets the number of connections per property (default 40).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const seeded = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) };
/** Close codes the agent may use: its own (capture-protocol.ts), 1009 from ws for a frame over maxPayload. */
const KNOWN_CLOSE_CODES = new Set<number>([...Object.values(CAPTURE_CLOSE_CODES), 1009]);
const MAX_PAYLOAD = 4 * 1024 * 1024;

let box: FuzzSandbox;
let agent: ListeningAgent;
let sessionId: string;

beforeAll(async () => {
  box = await createFuzzSandbox("elnor-stream-fuzz-");
  await box.resetMemory("capturing");
  agent = await startListeningAgent(box.memory);
  sessionId = box.known("capturing").sessionId?.[0] ?? "";
});
afterAll(async () => {
  await agent?.close();
  await box?.remove();
});

type Frame = { text: string; binary?: boolean } | { bytes: Buffer };

const hello = (token: string): string =>
  JSON.stringify({ type: "hello", token, adapter_id: "fuzz-extension", adapter_kinds: ["browser_dom"], schema_version: 1 });
const batchOf = (events: unknown[], snapshots: unknown[] = []): string =>
  toJsonText({ type: "batch", batch: { batch_id: randomUUID(), events, snapshots, schema_version: 1 } });

/** A click on the capturing session ("SESSION" is replaced by its id once the frame is text). */
const { event_id: _unused, ...sampleEvent } = exportClick("SESSION");

/** That click with one field made hostile, or none. */
const event = fc.record({ event_id: fc.uuid(), change: mutation }).map(({ event_id, change }) => applyMutation({ event_id, ...sampleEvent }, change));

/** Frames that are not a valid frame of the protocol at all, or not what the socket's state allows. */
const badFrame: fc.Arbitrary<Frame> = fc.oneof(
  fc.string({ maxLength: 200 }).map((text) => ({ text })),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ bytes: Buffer.from(bytes) })),
  fc.jsonValue({ maxDepth: 4 }).map((value) => ({ text: JSON.stringify(value) })),
  fc.constantFrom(
    { text: "" },
    { text: "null" },
    { text: DEEP_ARRAY_TEXT },
    { text: '{"__proto__":{"polluted":"yes"},"type":"heartbeat"}' },
    { text: '{"type":"hello"}' },
    { text: '{"type":"batch","batch":{}}' },
    { text: '{"type":"welcome","agent_version":"1","session":null}' },
    { text: '{"type":"ack"}' },
    { text: JSON.stringify({ type: "x".repeat(100_000) }) },
  ),
  fc.tuple(fc.constantFrom("type", "token", "adapter_id", "adapter_kinds", "schema_version"), hostileValue).map(([field, value]) => ({
    text: toJsonText({ ...JSON.parse(hello("x")), [field]: value }),
  })),
  fc.constant({ bytes: Buffer.alloc(MAX_PAYLOAD + 1, 0x20) }),
);

interface Conversation {
  closeCode: number | undefined;
  frames: AgentFrame[];
  raw: string[];
}

/**
 * Opens the socket, sends the frames in order, and waits until the agent has handled them all:
 * the last frame is an empty batch whose ack (frames are handled in order) means "done", unless
 * the agent closed the socket first.
 */
function converse(frames: Frame[], { sync = true, headers = {} }: { sync?: boolean; headers?: Record<string, string> } = {}): Promise<Conversation> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${agent.port}/api/observations/stream`, { headers, maxPayload: 64 * 1024 * 1024 });
    const conversation: Conversation = { closeCode: undefined, frames: [], raw: [] };
    const marker = randomUUID();
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`the conversation did not end: ${JSON.stringify(conversation.raw).slice(0, 500)}`));
    }, 10_000);
    socket.on("message", (data) => {
      const text = data.toString();
      conversation.raw.push(text.slice(0, 2_000));
      const frame = AgentFrameSchema.parse(JSON.parse(text));
      conversation.frames.push(frame);
      if (frame.type === "ack" && frame.ack.batch_id === marker) socket.close(1000);
    });
    socket.on("close", (code) => {
      clearTimeout(timer);
      conversation.closeCode = code === 1000 ? undefined : code;
      resolve(conversation);
    });
    socket.on("error", (error) => {
      // A frame over maxPayload: ws on the agent's side closes with 1009; the client may see EPIPE first.
      if (!/EPIPE|ECONNRESET/.test(String(error))) reject(error);
    });
    socket.on("open", () => {
      for (const frame of frames) {
        if ("bytes" in frame) socket.send(frame.bytes, { binary: true });
        else socket.send(frame.text, { binary: frame.binary === true });
      }
      if (sync) socket.send(JSON.stringify({ type: "batch", batch: { batch_id: marker, events: [], snapshots: [], schema_version: 1 } }));
      else socket.close(1000);
    });
  });
}

/** Whether the agent must close the socket on this frame once authenticated: too large, or not a frame of the protocol. */
function closesTheSocket(frame: Frame): boolean {
  const bytes = "bytes" in frame ? frame.bytes : Buffer.from(frame.text);
  if (bytes.length > MAX_PAYLOAD) return true;
  try {
    return !ClientFrameSchema.safeParse(JSON.parse(bytes.toString())).success;
  } catch {
    return true;
  }
}

/** The event ids a batch frame carries (none if it is not one). */
function eventIdsOf(text: string): string[] {
  try {
    const events = (JSON.parse(text) as { batch?: { events?: Array<{ event_id?: unknown }> } }).batch?.events ?? [];
    return events.flatMap((event) => (typeof event?.event_id === "string" ? [event.event_id] : []));
  } catch {
    return [];
  }
}

function storedEventIds(): string[] {
  const file = path.join(box.memory, "system/learning/observations", sessionId, "events.jsonl");
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => (JSON.parse(line) as { event_id: string }).event_id);
}

async function expectHealthy(): Promise<void> {
  const health = await rawRequest(agent.port, { method: "GET", target: "/api/health", headers: [["host", `127.0.0.1:${agent.port}`]] });
  expect(health.status).toBe(200);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe("observation WebSocket fuzzing", () => {
  it("closes with 4401 (or 1009) on any first frame that is not hello with the token, and stores nothing", async () => {
    const validBatch = fc
      .uuid()
      .map((eventId): Frame => ({ text: batchOf([{ ...JSON.parse(JSON.stringify(sampleEvent)), event_id: eventId, learn_session_id: sessionId }]) }));
    const firstFrame = fc.oneof(
      badFrame,
      fc.constant({ text: hello("A".repeat(43)) }),
      fc.constant({ text: hello(`${agent.token} `) }),
      fc.constant({ text: JSON.stringify({ type: "heartbeat" }) }),
      fc.array(event, { minLength: 1, maxLength: 3 }).map((events) => ({ text: batchOf(events).replaceAll("SESSION", sessionId) })),
    );
    await fc.assert(
      // What follows may be a correct hello and a batch: a socket refused once must stay refused.
      fc.asyncProperty(
        firstFrame,
        fc.array(fc.oneof(badFrame, fc.constant({ text: hello(agent.token) }), validBatch), { maxLength: 3 }),
        async (first, rest) => {
          const before = box.snapshot();
          const conversation = await converse([first, ...rest]);
          const context = `first frame ${("text" in first ? first.text : first.bytes.toString("latin1")).slice(0, 200)} → ${conversation.closeCode} ${conversation.raw.join(" | ").slice(0, 300)}`;
          // ws closes with 1009 on the first frame over maxPayload, whichever comes first: that or our 4401.
          const oversized = [first, ...rest].some((frame) => ("bytes" in frame ? frame.bytes.length : Buffer.byteLength(frame.text)) > MAX_PAYLOAD);
          expect(oversized ? [CAPTURE_CLOSE_CODES.unauthorized, 1009] : [CAPTURE_CLOSE_CODES.unauthorized], context).toContain(conversation.closeCode);
          expect(conversation.frames, context).toEqual([]);
          expect(diffMemoryTrees(before, box.snapshot()), context).toEqual([]);
        },
      ),
      { numRuns: RUNS, ...seeded, endOnFailure: true },
    );
    await expectHealthy();
  });

  it("after hello: a bad frame closes with 4400, a hostile batch is acked event by event, and only acked events are stored, once", async () => {
    const after = fc.array(
      fc.oneof(
        { arbitrary: badFrame.map((frame) => ({ frame, batch: false })), weight: 1 },
        {
          arbitrary: fc
            .array(event, { maxLength: 4 })
            .map((events) => ({ frame: { text: batchOf(events).replaceAll("SESSION", sessionId) } as Frame, batch: true })),
          weight: 3,
        },
        {
          arbitrary: fc
            .array(conforming(undefined, {}), { minLength: 1, maxLength: 2 })
            .map((snapshots) => ({ frame: { text: batchOf([], snapshots) } as Frame, batch: true })),
          weight: 1,
        },
        { arbitrary: fc.constant({ frame: { text: JSON.stringify({ type: "heartbeat" }) } as Frame, batch: false }), weight: 1 },
        { arbitrary: fc.constant({ frame: { text: hello(agent.token) } as Frame, batch: false }), weight: 1 },
      ),
      { minLength: 1, maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(after, async (frames) => {
        const before = box.snapshot();
        const storedBefore = storedEventIds();
        const conversation = await converse([{ text: hello(agent.token) }, ...frames.map(({ frame }) => frame)]);
        const context = `${frames.map(({ frame }) => ("text" in frame ? frame.text : `<${frame.bytes.length} bytes>`).slice(0, 150)).join(" / ")} → ${conversation.closeCode} ${conversation.raw.join(" | ").slice(0, 600)}`;
        // A frame over maxPayload makes ws close at once (1009), possibly before the welcome is out.
        const oversized = frames.some(({ frame }) => ("bytes" in frame ? frame.bytes.length : Buffer.byteLength(frame.text)) > MAX_PAYLOAD);
        if (!oversized) expect(conversation.frames[0]?.type, context).toBe("welcome");
        if (conversation.closeCode !== undefined) expect(KNOWN_CLOSE_CODES, context).toContain(conversation.closeCode);
        const acks = conversation.frames.flatMap((frame) => (frame.type === "ack" ? [frame.ack] : []));
        for (const frame of conversation.frames) {
          if (frame.type !== "error") continue;
          const code = ApiErrorResponseSchema.parse(frame.envelope).error.code;
          expect(Object.keys(ERROR_CODE_TABLE), context).toContain(code);
          expect(ERROR_CODE_TABLE[code as keyof typeof ERROR_CODE_TABLE].http, `an error frame for a server fault: ${context}`).toBeLessThan(500);
        }
        const accepted = acks.flatMap((ack) => ack.accepted);
        const stored = acks.flatMap((ack) => ack.snapshots_stored);
        const storedAfter = storedEventIds();
        expect(storedAfter.slice(0, storedBefore.length), context).toEqual(storedBefore);
        const storedNow = storedAfter.slice(storedBefore.length);
        expect(storedNow.slice(0, accepted.length), `stored events are the acked ones, in order: ${context}`).toEqual(accepted);
        // When the socket dies (1009, 4400) while a batch is being stored, that batch's ack cannot go
        // out: at-least-once, the sender resends and gets `duplicates`. Only that one batch may be
        // stored unacknowledged, and only on a socket that was closed.
        const unacked = storedNow.slice(accepted.length);
        if (unacked.length > 0) {
          expect(conversation.closeCode, `stored without an ack on a socket that stayed open: ${context}`).toBeDefined();
          // The batch in flight comes before the frame that closed the socket; nothing after it is stored.
          const closing = frames.findIndex(({ frame }) => closesTheSocket(frame));
          const batchIds = frames.slice(0, closing < 0 ? frames.length : closing).map(({ frame }) => ("text" in frame ? eventIdsOf(frame.text) : []));
          expect(
            batchIds.some((ids) => unacked.every((id) => ids.includes(id))),
            `stored without an ack, and not the batch in flight: ${context}`,
          ).toBe(true);
        }
        expect(new Set(storedAfter).size, `an event stored twice: ${context}`).toBe(storedAfter.length);
        if (storedNow.length === 0 && stored.length === 0) expect(diffMemoryTrees(before, box.snapshot()), context).toEqual([]);
      }),
      { numRuns: RUNS, ...seeded, endOnFailure: true },
    );
    await expectHealthy();
  });

  it("closes a socket that never says hello with 4408, having stored nothing", async () => {
    const before = box.snapshot();
    const socket = new WebSocket(`ws://127.0.0.1:${agent.port}/api/observations/stream`);
    const code = await new Promise<number>((resolve) => socket.on("close", (closeCode) => resolve(closeCode)));
    expect(code).toBe(CAPTURE_CLOSE_CODES.helloTimeout);
    expect(diffMemoryTrees(before, box.snapshot())).toEqual([]);
  }, 15_000);

  it.each([
    ["a web page Origin", { origin: "https://evil.example" }, "ORIGIN_NOT_ALLOWED"],
    ["the loopback as a web page", { origin: `http://127.0.0.1` }, "ORIGIN_NOT_ALLOWED"],
    ["a rebinding Host", { host: "evil.example" }, "HOST_NOT_ALLOWED"],
    ["a loopback-looking rebinding Host", { host: "127.0.0.1.evil.example" }, "HOST_NOT_ALLOWED"],
  ])("refuses the upgrade from %s with a coded 403", async (_label, headers, code) => {
    const fixed = { ...headers, ...("host" in headers ? { host: `${headers.host}:${agent.port}` } : {}) };
    const socket = new WebSocket(`ws://127.0.0.1:${agent.port}/api/observations/stream`, { headers: fixed });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      socket.on("open", () => reject(new Error("the upgrade was accepted")));
      socket.on("unexpected-response", (_request, response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      socket.on("error", () => undefined);
    });
    expect(answer.status).toBe(403);
    expect(ApiErrorResponseSchema.parse(JSON.parse(answer.body)).error.code).toBe(code);
  });
});
