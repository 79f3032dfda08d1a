import os from "node:os";
import { benchLookupMeaning } from "./lookup-meaning.bench";

// `node --expose-gc --import tsx bench/lookup/lookup-meaning.ts [--quality-only | --latency-only]`: only the issue #15 rows of
// `npm run bench` for lookup by wording and meaning, next to the wording matcher alone (or only their
// quality rows, or only the latency rows at 10,000 abilities).
const results = await benchLookupMeaning({ qualityOnly: process.argv.includes("--quality-only"), latencyOnly: process.argv.includes("--latency-only") });
console.log(
  `lookup meaning bench — node ${process.version}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`,
);
for (const result of results) {
  const baseline = result.baseline === undefined ? "" : ` | ${result.baselineName}: ${result.baseline.toFixed(3)}`;
  console.log(`| ${result.name} | ${result.value.toFixed(3)} ${result.unit}${baseline} | ${result.target} | ${result.pass ? "yes" : "NO"} |`);
}
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
