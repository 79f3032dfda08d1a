import os from "node:os";
import { benchHeavyPage } from "./heavy-page.bench";

// `node --expose-gc --import tsx bench/recorder/heavy-page.ts`: only the heavy-page rows of `npm run bench` (issue #17).
const started = new Date().toISOString();
const loadBefore = os.loadavg();
const results = await benchHeavyPage();
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
console.log(
  `heavy page bench — ${started} → ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores, load average before ${load(loadBefore)}, after ${load(os.loadavg())}`,
);
for (const result of results) {
  const baseline = result.baseline === undefined ? "—" : `${result.baseline.toFixed(1)} ${result.unit} (${result.baselineName})`;
  console.log(`| ${result.name} | ${result.value.toFixed(1)} ${result.unit} | ${baseline} | ${result.target} | ${result.pass ? "yes" : "NO"} |`);
}
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
