import type { WordNetLoadReport } from "../../agent/lookup/lexicon/wordnet-lexicon";
import type { BenchResult } from "../bench-result";
import type { ScaleMemory } from "./scale-memory";

/** One start of the agent (or the median of several), as `agent-scale.bench.ts` measures it. */
export interface StartFigures {
  listeningMs: number;
  cpuListeningMs: number;
  rssListeningMb: number;
  rssAfterLookupMb: number;
  /** Issue 32: the first authenticated request after listening (the sessions list), through HTTP. */
  firstRequestMs: number;
  firstLookupMs: number;
}

export const labelOf = (built: ScaleMemory) =>
  `${built.abilities.toLocaleString("en")} abilities, ${built.receipts.toLocaleString("en")} receipts, ${built.checkpointReceipts.toLocaleString("en")} checkpoint receipts (${(built.bytes / 1024 / 1024).toFixed(0)} MB in ${built.files.toLocaleString("en")} files)`;

/** The start-up figures of one run: an empty memory, 1,000 abilities and 10,000, each the median of `starts`. */
interface Startup {
  label: string;
  largeLabel: string;
  baseline: StartFigures;
  atScale: StartFigures;
  atLarge: StartFigures;
  starts: number;
}

const ms = { unit: "ms", baselineName: "empty ELNOR_MEMORY" } as const;
const mb = { unit: "MB", baselineName: "empty ELNOR_MEMORY" } as const;

/** Start to listening, the issue 32 target: at 1,000 abilities within 1.2× the empty agent's. */
function listeningRows({ label, largeLabel, baseline, atScale, atLarge, starts }: Startup): BenchResult[] {
  const empty = { baselineName: "empty ELNOR_MEMORY, same run", baseline: baseline.listeningMs };
  return [
    {
      name: `agent start to listening (spawn → health answers; npm start's compiled agent), ${label}, median of ${starts}`,
      value: atScale.listeningMs,
      unit: "ms",
      ...empty,
      target: "≤ 1.2× the empty agent's (issue 32)",
      pass: atScale.listeningMs <= 1.2 * baseline.listeningMs,
    },
    {
      name: `agent start to listening, ${largeLabel}, median of ${starts}`,
      value: atLarge.listeningMs,
      unit: "ms",
      ...empty,
      target: `reported: growth from 1,000 abilities (${atScale.listeningMs.toFixed(0)} ms) should be flat`,
      pass: true,
    },
  ];
}

function cpuRows({ label, largeLabel, baseline, atScale, atLarge, starts }: Startup): BenchResult[] {
  return [
    {
      name: `agent CPU time (user + system, all threads) from spawn to listening, ${label}, median of ${starts}`,
      value: atScale.cpuListeningMs,
      unit: "ms",
      baselineName: "empty ELNOR_MEMORY, same run",
      baseline: baseline.cpuListeningMs,
      target: "reported (steadier than wall time on a shared machine)",
      pass: true,
    },
    {
      name: `agent CPU time from spawn to listening, ${largeLabel}, median of ${starts}`,
      value: atLarge.cpuListeningMs,
      unit: "ms",
      baselineName: "empty ELNOR_MEMORY, same run",
      baseline: baseline.cpuListeningMs,
      target: "reported (flat)",
      pass: true,
    },
  ];
}

function rssListeningRows({ label, largeLabel, baseline, atScale, atLarge, starts }: Startup): BenchResult[] {
  return [
    {
      name: `agent RSS once listening, ${label}, median of ${starts}`,
      value: atScale.rssListeningMb,
      ...mb,
      baseline: baseline.rssListeningMb,
      target: "≤ 150 MB",
      pass: atScale.rssListeningMb <= 150,
    },
    {
      name: `agent RSS once listening, ${largeLabel}, median of ${starts}`,
      value: atLarge.rssListeningMb,
      ...mb,
      baseline: baseline.rssListeningMb,
      target: "reported",
      pass: true,
    },
  ];
}

/** What start-up left for later: the first request, the first lookup, and RSS after that lookup. */
function afterStartRows({ label, largeLabel, baseline, atScale, atLarge, starts }: Startup): BenchResult[] {
  return [
    {
      name: `first request after start (GET /api/learn/sessions through HTTP), ${label}, median of ${starts}`,
      value: atScale.firstRequestMs,
      ...ms,
      baseline: baseline.firstRequestMs,
      target: "reported (issue 32: start-up's cost not moved to the first request)",
      pass: true,
    },
    {
      name: `first request after start, ${largeLabel}, median of ${starts}`,
      value: atLarge.firstRequestMs,
      ...ms,
      baseline: baseline.firstRequestMs,
      target: "reported",
      pass: true,
    },
    {
      name: `first lookup after start (through HTTP; reads WordNet's table, builds the wording index), ${label}, median of ${starts}`,
      value: atScale.firstLookupMs,
      ...ms,
      baseline: baseline.firstLookupMs,
      target: "reported (work left lazy by the start above)",
      pass: true,
    },
    {
      name: `first lookup after start, ${largeLabel}`,
      value: atLarge.firstLookupMs,
      ...ms,
      baseline: baseline.firstLookupMs,
      target: "answers 200 (reported)",
      pass: Number.isFinite(atLarge.firstLookupMs),
    },
    {
      name: `agent RSS after the first lookup, ${label}`,
      value: atScale.rssAfterLookupMb,
      ...mb,
      baseline: baseline.rssAfterLookupMb,
      target: "reported",
      pass: true,
    },
    {
      name: `agent RSS after the first lookup, ${largeLabel}`,
      value: atLarge.rssAfterLookupMb,
      ...mb,
      baseline: baseline.rssAfterLookupMb,
      target: "reported",
      pass: true,
    },
  ];
}

/** Issue 32: start to listening does not grow with history (1,000 and 10,000 abilities against an empty memory), and where the reading went. */
export function startupRows(
  built: ScaleMemory,
  large: ScaleMemory,
  figures: { baseline: StartFigures; atScale: StartFigures; atLarge: StartFigures },
  starts: number,
): BenchResult[] {
  const startup: Startup = { label: labelOf(built), largeLabel: labelOf(large), ...figures, starts };
  return [...listeningRows(startup), ...cpuRows(startup), ...rssListeningRows(startup), ...afterStartRows(startup)];
}

/** The rows after start-up: the agent from its sources, node's floor, WordNet's table. */
export function laterRows(
  label: string,
  fromSource: StartFigures,
  floor: { readyMs: number; rssMb: number },
  wordnet: { build: WordNetLoadReport; read: WordNetLoadReport; heapMb: number },
): BenchResult[] {
  return [
    {
      name: `agent from its sources (node --import tsx agent/server.ts, as tests run it): start to listening, ${label}`,
      value: fromSource.listeningMs,
      unit: "ms",
      target: "reported",
      pass: true,
    },
    { name: `agent from its sources: RSS once listening, ${label}`, value: fromSource.rssListeningMb, unit: "MB", target: "reported", pass: true },
    {
      name: "floor: node with the agent's flags running an empty module, spawn → first output, median of 3",
      value: floor.readyMs,
      unit: "ms",
      target: "reported (part of every start above)",
      pass: true,
    },
    {
      name: "floor: RSS of node with the agent's flags running an empty module",
      value: floor.rssMb,
      unit: "MB",
      target: "reported (part of every RSS above)",
      pass: true,
    },
    {
      name: "WordNet table: first build on an install (parse WordNet 3.1, store the table; once)",
      value: wordnet.build.ms,
      unit: "ms",
      target: "reported",
      pass: wordnet.build.source === "wordnet",
    },
    {
      name: "WordNet table: read back (every later agent's first lookup)",
      value: wordnet.read.ms,
      unit: "ms",
      target: "reported",
      pass: wordnet.read.source === "table",
    },
    {
      name: "WordNet table: memory kept once read (heap + array buffers, with the first build's collected)",
      value: wordnet.heapMb,
      unit: "MB",
      target: "reported",
      pass: true,
    },
  ];
}
