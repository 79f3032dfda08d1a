import os from "node:os";
import { benchAbilities } from "./lookup/abilities.bench";
import { benchAgentMemory } from "./agent/agent-memory.bench";
import { benchAgentScale } from "./agent/agent-scale.bench";
import { benchContentScript } from "./recorder/content-script.bench";
import { benchHeavyPage } from "./recorder/heavy-page.bench";
import { benchWholeSession } from "./recorder/content-script-whole.bench";
import { benchExecutor } from "./execution/executor.bench";
import { benchInTab } from "./execution/in-tab.bench";
import { benchIngest } from "./agent/ingest.bench";
import { benchMemoryAppend } from "./agent/memory-append.bench";
import { benchProposalCompile } from "./agent/proposal-compile.bench";
import { benchRuns } from "./execution/runs.bench";
import { benchSchedules } from "./execution/schedules.bench";
import { benchSkillImport } from "./agent/skill-import.bench";
import type { BenchResult } from "./bench-result";

// `npm run bench`: every benchmark, one table (figure, baseline, ratio, target), in one run.
const results: BenchResult[] = [
  ...(await benchMemoryAppend()),
  ...(await benchIngest()),
  ...(await benchProposalCompile()),
  ...(await benchAbilities()),
  ...(await benchSkillImport()),
  ...(await benchAgentScale()),
  ...(await benchAgentMemory()),
  ...(await benchContentScript()),
  ...(await benchHeavyPage()),
  ...(await benchWholeSession()),
  ...(await benchExecutor()),
  ...(await benchInTab()),
  ...(await benchRuns()),
  ...(await benchSchedules()),
];

const format = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(2));
console.log(`elnor-learn benchmarks — ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "cpu"}`);
console.log("| figure | value | baseline | ratio | target | met |");
console.log("|---|---|---|---|---|---|");
for (const result of results) {
  const baseline = result.baseline === undefined ? "—" : `${format(result.baseline)} ${result.unit} (${result.baselineName ?? ""})`;
  // A count against a baseline of 0 (no long task on its side) has no ratio to print.
  const ratio = result.baseline === undefined || result.baseline === 0 ? "—" : `${(result.value / result.baseline).toFixed(2)}×`;
  console.log(`| ${result.name} | ${format(result.value)} ${result.unit} | ${baseline} | ${ratio} | ${result.target} | ${result.pass ? "yes" : "NO"} |`);
}
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
