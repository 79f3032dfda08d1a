import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { loadWordNetLexicon, type WordNetLoadReport } from "../../agent/lookup/lexicon/wordnet-lexicon";
import { AGENT_NODE_FLAGS, buildAgentBundle } from "../../agent/agent-bundle";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { serverScript, startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import type { BenchResult } from "../bench-result";
import { laterRows, startupRows, labelOf, type StartFigures } from "./agent-scale-rows";
import { benchLongCapture } from "./long-capture";
import { buildScaleMemory, cachedScaleMemory } from "./scale-memory";

const ABILITIES = 1_000;
const RECEIPTS = 100_000;
/** Issue 32: the memory the issue measured had 55 checkpoint receipts an ability (runs through the bridge). */
const CHECKPOINT_RECEIPTS_PER_ABILITY = 55;
/** Issue 32: start-up should not grow with history; ten times the abilities, receipts and checkpoint receipts. */
const LARGE_ABILITIES = 10_000;
const LARGE_RECEIPTS = 1_000_000;
const STARTS = 4;

/** Resident memory of a process, from /proc (Linux), in MB. */
export async function residentMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for pid ${pid}`);
  return kb / 1024;
}

/** CPU time a process has used so far (user + system, all its threads), from /proc, in ms. */
export async function cpuMs(pid: number | undefined): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at state; utime and stime are the 12th and 13th of them.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`no CPU times for pid ${pid}`);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

const errorLines = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.includes('"level":50'))
    .slice(-3)
    .join("\n");

/** Linux reports CPU times in USER_HZ, 100 on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  // An even count: the mean of the two middle values.
  if (sorted.length % 2 === 0 && sorted.length > 0) return ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
  return sorted[middle] ?? Number.NaN;
}

/** How the agent is run: compiled, as `npm start` runs it (`node --max-semi-space-size=4 .output/agent-server.mjs`), or its sources through tsx, as the tests run it. */
type Launch = readonly string[];
const FROM_SOURCE: Launch = ["--import", "tsx", serverScript];

/**
 * One start of the real agent process: from spawn to the first answer of `GET /api/health`, its
 * RSS then, then the first lookup and its RSS after.
 */
async function measureStart(root: string, workspace: string, launch: Launch): Promise<StartFigures> {
  const started = performance.now();
  let agent: AgentProcess | undefined;
  try {
    agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace }, launch);
    const health = await fetch(`${agent.url}/api/health`);
    if (health.status !== 200) throw new Error(`health answered ${health.status}`);
    const listeningMs = performance.now() - started;
    const cpuListeningMs = await cpuMs(agent.proc.pid);
    const rssListeningMb = await residentMb(agent.proc.pid);
    const token = (await readFile(path.join(root, MemoryPaths.agentToken), "utf8")).trim();
    const requestStart = performance.now();
    const listed = await fetch(`${agent.url}/api/learn/sessions`, { headers: { authorization: `Bearer ${token}` } });
    if (listed.status !== 200) throw new Error(`the sessions list answered ${listed.status}`);
    await listed.json();
    const firstRequestMs = performance.now() - requestStart;
    const lookupStart = performance.now();
    const lookup = await fetch(`${agent.url}/api/abilities/lookup`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ user_query: "export the invoices for this month", schema_version: 1 }),
    });
    // A lookup that fails is reported (its row fails), not thrown: the start's figures still count.
    const lookupFailed = lookup.status === 200 ? undefined : `lookup answered ${lookup.status}: ${(await lookup.text()).slice(0, 160)}`;
    if (lookupFailed === undefined) await lookup.json();
    // A failure is printed with the agent's own error line (issue 32: it named EMFILE at 10,000 abilities).
    else process.stderr.write(`${lookupFailed}\n${errorLines(agent.output()).slice(0, 4000)}\n`);
    const firstLookupMs = lookupFailed === undefined ? performance.now() - lookupStart : Number.NaN;
    const rssAfterLookupMb = await residentMb(agent.proc.pid);
    return { listeningMs, cpuListeningMs, rssListeningMb, rssAfterLookupMb, firstRequestMs, firstLookupMs };
  } finally {
    const code = await agent?.stop();
    // eslint-disable-next-line no-unsafe-finally -- an agent that does not stop cleanly voids the figures, whatever happened before
    if (agent !== undefined && code !== 0) throw new Error(`the agent did not stop cleanly (${code}):\n${agent.output()}`);
  }
}

/** Node (with the agent's flags) running a module that only says it is up: time to its first output, and RSS. */
async function measureFloor(): Promise<{ readyMs: number; rssMb: number }> {
  const started = performance.now();
  const proc = spawn(process.execPath, [...AGENT_NODE_FLAGS, "-e", 'process.stdout.write("ready\\n"); setInterval(() => undefined, 60_000);'], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      proc.stdout.once("data", () => resolve());
      proc.once("exit", (code) => reject(new Error(`the floor process exited (${code})`)));
    });
    const readyMs = performance.now() - started;
    return { readyMs, rssMb: await residentMb(proc.pid) };
  } finally {
    proc.kill("SIGTERM");
  }
}

/** Each figure's median over several starts. */
function medianFigures(runs: readonly StartFigures[]): StartFigures {
  return {
    listeningMs: median(runs.map((run) => run.listeningMs)),
    cpuListeningMs: median(runs.map((run) => run.cpuListeningMs)),
    rssListeningMb: median(runs.map((run) => run.rssListeningMb)),
    rssAfterLookupMb: median(runs.map((run) => run.rssAfterLookupMb)),
    firstRequestMs: median(runs.map((run) => run.firstRequestMs)),
    firstLookupMs: median(runs.map((run) => run.firstLookupMs)),
  };
}

async function medianStart(root: string, workspace: string, launch: Launch): Promise<StartFigures> {
  const runs: StartFigures[] = [];
  for (let run = 0; run < STARTS; run += 1) runs.push(await measureStart(root, workspace, launch));
  return medianFigures(runs);
}

/** WordNet's compact table (agent/lookup/lexicon/wordnet-lexicon.ts): its first build on a machine, then a read back, in this process. */
async function measureWordNetTable(): Promise<{ build: WordNetLoadReport; read: WordNetLoadReport; heapMb: number }> {
  const cache = await makeTempMemoryRoot("elnor-bench-wordnet-");
  try {
    const load = async () => {
      let report: WordNetLoadReport | undefined;
      const lexicon = await loadWordNetLexicon({ cacheDir: cache.root, onLoaded: (loaded) => (report = loaded) });
      return { lexicon, report: report as WordNetLoadReport };
    };
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const before = process.memoryUsage();
    // In a function of its own: a temporary of this async function could keep the first lexicon alive.
    const buildOnly = async () => (await load()).report;
    const build = await buildOnly();
    const read = await load();
    gc?.();
    const after = process.memoryUsage();
    read.lexicon.related("invoice");
    return { build, read: read.report, heapMb: (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 1024 / 1024 };
  } finally {
    await cache.cleanup();
  }
}

/** The starts of one memory each, interleaved (empty, 1,000, 10,000, then again) so that each median saw the same load. */
async function interleavedStarts(memories: ReadonlyArray<{ root: string; workspace: string }>, launch: Launch): Promise<StartFigures[]> {
  const runs: StartFigures[][] = memories.map(() => []);
  for (let run = 0; run < STARTS; run += 1) {
    for (const [index, memory] of memories.entries()) runs[index]?.push(await measureStart(memory.root, memory.workspace, launch));
  }
  return runs.map(medianFigures);
}

/** The three memories the starts are measured on: empty, 1,000 abilities (built) and 10,000 (copied from the cache). */
async function scaleMemories(emptyRoot: string, scaleRoot: string, largeRoot: string) {
  const built = await buildScaleMemory(scaleRoot, path.join(scaleRoot, "openclaw-workspace"), {
    abilities: ABILITIES,
    receipts: RECEIPTS,
    checkpointReceipts: ABILITIES * CHECKPOINT_RECEIPTS_PER_ABILITY,
  });
  const large = await cachedScaleMemory(largeRoot, {
    abilities: LARGE_ABILITIES,
    receipts: LARGE_RECEIPTS,
    checkpointReceipts: LARGE_ABILITIES * CHECKPOINT_RECEIPTS_PER_ABILITY,
  });
  const memories = [
    { root: emptyRoot, workspace: path.join(emptyRoot, "openclaw-workspace") },
    { root: scaleRoot, workspace: path.join(scaleRoot, "openclaw-workspace") },
    { root: largeRoot, workspace: path.join(largeRoot, "openclaw-workspace") },
  ];
  return { built, large, memories };
}

/**
 * Issues 17 and 32, the agent at scale: start-up with an empty memory, 1,000 installed abilities
 * (100,000 receipts, 55,000 checkpoint receipts) and 10,000 (ten times each), starts interleaved;
 * then (unless `startupOnly`) the agent from its sources, node's floor, WordNet's table and one
 * 2-hour capture replayed into the agent (disk per hour, time to generate the proposal). The agent
 * is the one `npm start` runs: compiled (agent/agent-bundle.ts) and run by plain node.
 */
export async function benchAgentScale(options: { startupOnly?: boolean } = {}): Promise<BenchResult[]> {
  const compiled: Launch = [...AGENT_NODE_FLAGS, await buildAgentBundle()];
  const empty = await makeTempMemoryRoot("elnor-bench-empty-");
  const scale = await makeTempMemoryRoot("elnor-bench-scale-");
  const largeRoot = await makeTempMemoryRoot("elnor-bench-large-");
  try {
    const { built, large, memories } = await scaleMemories(empty.root, scale.root, largeRoot.root);
    // The first start's lookup rebuilds the bridge, availability snapshot and catalog from the
    // registry (as after an upgrade) and stores WordNet's table if this install has none yet; the
    // starts measured are the ones after it, as every later start is.
    for (const memory of memories) await measureStart(memory.root, memory.workspace, compiled);
    const [baseline, atScale, atLarge] = (await interleavedStarts(memories, compiled)) as [StartFigures, StartFigures, StartFigures];
    const startup = startupRows(built, large, { baseline, atScale, atLarge }, STARTS);
    if (options.startupOnly === true) return startup;
    const scaleWorkspace = path.join(scale.root, "openclaw-workspace");
    await measureStart(scale.root, scaleWorkspace, FROM_SOURCE);
    const fromSource = await medianStart(scale.root, scaleWorkspace, FROM_SOURCE);
    const floors = [await measureFloor(), await measureFloor(), await measureFloor()];
    const floor = { readyMs: median(floors.map((run) => run.readyMs)), rssMb: median(floors.map((run) => run.rssMb)) };
    const wordnet = await measureWordNetTable();
    return [...startup, ...laterRows(labelOf(built), fromSource, floor, wordnet), ...(await benchLongCapture(compiled))];
  } finally {
    await largeRoot.cleanup();
    await scale.cleanup();
    await empty.cleanup();
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  // `--startup`: the start-up rows alone (issue 32), without the agent from its sources, WordNet and the long capture.
  for (const result of await benchAgentScale({ startupOnly: process.argv.includes("--startup") })) {
    const baseline = result.baseline === undefined ? "" : ` (baseline ${result.baseline.toFixed(1)} ${result.unit}, ${result.baselineName})`;
    console.log(`${result.pass ? "ok " : "NO "} ${result.name}: ${result.value.toFixed(1)} ${result.unit}${baseline} — target ${result.target}`);
  }
}
