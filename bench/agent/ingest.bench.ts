import { randomUUID } from "node:crypto";
import { open } from "node:fs/promises";
import path from "node:path";
import { WebSocket } from "ws";
import { AgentFrameSchema } from "../../shared/observation/capture-protocol";
import { agentLoggerOptions, buildApp } from "../../agent/app/app";
import { openMemoryStore } from "../../agent/memory/memory-store";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import type { BenchResult } from "../bench-result";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

type App = Awaited<ReturnType<typeof buildApp>>;
type SendBatch = (size: number) => Promise<number>;

/** A started demonstration session; its id and the agent's token. */
async function startedSession(app: App, token: string, host: string): Promise<string> {
  const headers = { host, authorization: `Bearer ${token}` };
  const created = await app.inject({ method: "POST", url: "/api/learn/sessions", headers, payload: { entry_mode: "demonstrating_skill" } });
  const sessionId = (created.json() as { session: { learn_session_id: string } }).session.learn_session_id;
  await app.inject({ method: "POST", url: `/api/learn/sessions/${sessionId}/start`, headers });
  return sessionId;
}

/** A click as the content script reports it, a new id each time. */
function clickEvent(sessionId: string) {
  return () => ({
    event_id: randomUUID(),
    learn_session_id: sessionId,
    adapter_kind: "browser_dom",
    app_family: "browser",
    action_label: "Click 'Place order'",
    redaction_mode: "mask_text",
    created_at: new Date().toISOString(),
    schema_version: 1,
    browser_detail: {
      page_url: "http://127.0.0.1:8123/checkout",
      target_role: "button",
      target_name: "Place order",
      selectors: [['aria/Place order[role="button"]'], ["#place"]],
      dom_event_kind: "click",
    },
  });
}

/** The observation stream, said hello to; `sendBatch` resolves with how many events its ack accepted. */
async function openStream(url: string, token: string, event: () => unknown): Promise<{ sendBatch: SendBatch; socket: WebSocket }> {
  const socket = new WebSocket(`${url.replace("http", "ws")}/api/observations/stream`);
  await new Promise((resolve) => socket.once("open", resolve));
  const pending = new Map<string, (accepted: number) => void>();
  socket.on("message", (data) => {
    const frame = AgentFrameSchema.parse(JSON.parse(data.toString()));
    if (frame.type === "ack") pending.get(frame.ack.batch_id)?.(frame.ack.accepted.length);
  });
  socket.send(JSON.stringify({ type: "hello", token, adapter_id: "bench", adapter_kinds: ["browser_dom"], schema_version: 1 }));
  const sendBatch = (size: number) => {
    const batchId = randomUUID();
    const done = new Promise<number>((resolve) => pending.set(batchId, resolve));
    socket.send(JSON.stringify({ type: "batch", batch: { batch_id: batchId, events: Array.from({ length: size }, event), snapshots: [], schema_version: 1 } }));
    return done;
  };
  return { sendBatch, socket };
}

/** Sustained: 100 batches of 200, 8 in flight; events acknowledged per second. */
async function sustainedRate(sendBatch: SendBatch): Promise<number> {
  const total = 20_000;
  const batchSize = 200;
  const start = performance.now();
  let acked = 0;
  const inFlight = new Set<Promise<number>>();
  for (let sent = 0; sent < total; sent += batchSize) {
    const promise = sendBatch(batchSize).then((count) => {
      acked += count;
      inFlight.delete(promise);
      return count;
    });
    inFlight.add(promise);
    if (inFlight.size >= 8) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return acked / ((performance.now() - start) / 1000);
}

/** Latency at 1,000 events/s: a batch of 10 every 10 ms for 3 s; each ack's latency, sorted. */
async function ackLatencies(sendBatch: SendBatch): Promise<number[]> {
  const latencies: number[] = [];
  const ticks: Promise<void>[] = [];
  for (let i = 0; i < 300; i += 1) {
    const sentAt = performance.now();
    ticks.push(sendBatch(10).then(() => void latencies.push(performance.now() - sentAt)));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(ticks);
  return latencies.sort((a, b) => a - b);
}

/** Baseline: raw append + fsync per record on the same disk, records per second. */
async function rawAppendRate(root: string, line: string): Promise<number> {
  const raw = await open(path.join(root, "raw.jsonl"), "a");
  const rawCount = 3000;
  const rawStart = performance.now();
  for (let i = 0; i < rawCount; i += 1) {
    await raw.write(line);
    await raw.datasync();
  }
  const rawRate = rawCount / ((performance.now() - rawStart) / 1000);
  await raw.close();
  return rawRate;
}

/**
 * Agent ingest over one WebSocket with durable acknowledgement (issue #4): sustained events/s with
 * batches pipelined, ack latency at a steady 1,000 events/s, and the same disk's raw
 * append+fsync-per-record rate measured in the same run as the baseline.
 */
export async function benchIngest(): Promise<BenchResult[]> {
  const { root, cleanup } = await makeTempMemoryRoot("elnor-bench-ingest-");
  const memory = await openMemoryStore({ root });
  const app = await buildApp({ memory, port: 0, logger: agentLoggerOptions("silent") });
  try {
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
    const event = clickEvent(await startedSession(app, token, new URL(url).host));
    const { sendBatch, socket } = await openStream(url, token, event);
    await sendBatch(10);
    const sustained = await sustainedRate(sendBatch);
    const latencies = await ackLatencies(sendBatch);
    socket.close();
    const rawRate = await rawAppendRate(root, `${JSON.stringify(event())}\n`);
    return [
      {
        name: "ingest: sustained events/s over one WebSocket, durable ack",
        value: sustained,
        unit: "events/s",
        baselineName: "raw append+fsync per record, same disk",
        baseline: rawRate,
        target: "≥ 20,000/s and ≥ 0.5× raw",
        pass: sustained >= 20_000 && sustained >= 0.5 * rawRate,
      },
      { name: "ingest: ack latency p50 at 1,000 events/s", value: percentile(latencies, 50), unit: "ms", target: "reported (no target set)", pass: true },
      { name: "ingest: ack latency p99 at 1,000 events/s", value: percentile(latencies, 99), unit: "ms", target: "reported (no target set)", pass: true },
    ];
  } finally {
    await app.close();
    await memory.close();
    await cleanup();
  }
}
