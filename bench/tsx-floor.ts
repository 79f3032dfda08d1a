// The floor under the agent's start-up figures (bench/agent-scale.bench.ts): Node with the tsx
// loader `npm start` uses, running one TypeScript module that does nothing but say it is up.
const ready: string = "ready";
process.stdout.write(`${ready}\n`);
setInterval(() => undefined, 60_000);
