import os from "node:os";
import { benchLookupQuality } from "./lookup-quality.bench";

// `node --expose-gc --import tsx bench/lookup/lookup-quality.ts [--misses] [--second-third-misses]`: only the issue #15 lookup rows of
// `npm run bench` (wording matcher next to the §0C.11C baseline), for iterating on the matcher.
const results = await benchLookupQuality({
  printMisses: process.argv.includes("--misses"),
  printHeldOutMisses: process.argv.includes("--second-third-misses"),
  qualityOnly: process.argv.includes("--quality-only"),
});
console.log(
  `lookup quality bench — node ${process.version}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`,
);
for (const result of results) {
  const baseline = result.baseline === undefined ? "" : ` | ${result.baselineName}: ${result.baseline.toFixed(3)}`;
  console.log(`| ${result.name} | ${result.value.toFixed(3)} ${result.unit}${baseline} | ${result.target} | ${result.pass ? "yes" : "NO"} |`);
}
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
