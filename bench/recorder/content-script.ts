import os from "node:os";
import { benchContentScript } from "./content-script.bench";

// `node --expose-gc --import tsx bench/recorder/content-script.ts`: only the content-script rows of `npm run bench`
// (issue #17), for iterating on the capture. `ELNOR_BENCH_PROFILE=<dir>` also saves CPU profiles.
const started = new Date().toISOString();
const loadBefore = os.loadavg();
const results = await benchContentScript();
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
console.log(
  `content script bench — ${started} → ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores, load average before ${load(loadBefore)}, after ${load(os.loadavg())}`,
);
for (const result of results) {
  const baseline = result.baseline === undefined ? "—" : `${result.baseline.toFixed(2)} ${result.unit}`;
  const ratio = result.baseline === undefined ? "—" : `${(result.value / result.baseline).toFixed(2)}×`;
  console.log(`| ${result.name} | ${result.value.toFixed(2)} ${result.unit} | ${baseline} | ${ratio} | ${result.target} | ${result.pass ? "yes" : "NO"} |`);
}
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
