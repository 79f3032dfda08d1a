import path from "node:path";
import { buildAgentBundle } from "../agent-bundle";
import { projectRoot } from "./agent-process";

/**
 * Vitest's global set-up: compiles the agent's current sources once per test run, as `npm start`
 * runs them (agent/agent-bundle.ts), so the tests that start agent processes run that build rather
 * than the TypeScript through tsx. Each start then skips tsx's loader and its compiling: under load
 * on this 2-core machine, 2.6 s to listening against 9 s. Built fresh every run, it is never older
 * than the sources; outside vitest (no variable), or with `ELNOR_TEST_AGENT_FROM_SOURCE=1`, agents
 * start from the sources with tsx.
 */
export default async function setup(): Promise<void> {
  if (process.env.ELNOR_TEST_AGENT_FROM_SOURCE === "1") return;
  // One level under the project, as agent/server.ts is: the agent finds the project from there.
  const outfile = path.join(projectRoot, ".output", "agent-server.test.mjs");
  await buildAgentBundle(outfile);
  process.env.ELNOR_TEST_AGENT_BUNDLE = outfile;
}
