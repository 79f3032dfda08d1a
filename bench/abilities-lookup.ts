import os from "node:os";
import { benchAbilityLookup } from "./abilities.bench";

// `node --expose-gc --import tsx bench/abilities-lookup.ts`: only the in-process lookup figures of
// `npm run bench`, for iterating on shared/abilities/lookup-index.ts without the install saga.
const results = benchAbilityLookup();
console.log(`lookup bench — node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((load) => load.toFixed(2)).join(" ")}`);
for (const result of results) console.log(`| ${result.name} | ${result.value.toFixed(3)} ${result.unit} | ${result.target} | ${result.pass ? "yes" : "NO"} |`);
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
