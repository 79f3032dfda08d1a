import os from "node:os";
import { benchWholeSession } from "./content-script-whole.bench";

// `node --expose-gc --import tsx bench/recorder/content-script-whole.ts`: only the whole-session rows of `npm run bench` (issue #32).
const started = new Date().toISOString();
const loadBefore = os.loadavg();
const results = await benchWholeSession();
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
console.log(
  `whole-session bench — ${started} → ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores, load average before ${load(loadBefore)}, after ${load(os.loadavg())}`,
);
for (const result of results) {
  const baseline = result.baseline === undefined ? "—" : `${result.baseline.toFixed(1)} ${result.unit}`;
  const ratio = result.baseline === undefined ? "—" : `${(result.value / result.baseline).toFixed(2)}×`;
  console.log(`| ${result.name} | ${result.value.toFixed(1)} ${result.unit} | ${baseline} | ${ratio} | ${result.target} | ${result.pass ? "yes" : "NO"} |`);
}
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
