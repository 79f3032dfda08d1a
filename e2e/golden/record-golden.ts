/**
 * Records the golden demonstrations of issue #5 with the built extension in real Chromium and a
 * real agent, and keeps each as a fixture under agent/learning/compiler/golden/<flow>/:
 * `events.jsonl` and `snapshots/` exactly as the agent stored them, and `boundaries.json` (the
 * session's lines of boundaries.jsonl). agent/learning/compiler/golden.test.ts compiles them.
 *
 *   npm run build && node --import tsx e2e/golden/record-golden.ts [flow …]
 *
 * Per flow: a temp ELNOR_MEMORY and agent, a fresh Chromium profile, pairing through the side
 * panel, site access for the fixture origin (127.0.0.1, granted without a prompt, as in
 * e2e/capture/background-capture.e2e.test.ts), a Demonstrating Skill session (outside_agent, whitelist =
 * the fixture origin), the flow done with real input, Stop, then the copy. Nothing is written if a
 * typed canary shows up in what would be kept.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { projectRoot, startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchExtensionBrowser, type ExtensionBrowser } from "../test-support/extension-browser";
import { canaryNeedles } from "./canaries";
import { agentApi, demonstrate, GeneratedSchema, pair, quiet, readRecording, type Recording } from "./demonstration";
import { serveFixtureSite } from "./fixture-server";
import { GOLDEN_FLOWS, type GoldenFlow } from "./flows";

const GOLDEN_DIR = path.join(projectRoot, "agent", "learning", "compiler", "golden");

async function recordFlow(flow: GoldenFlow): Promise<void> {
  const { root, cleanup } = await makeTempMemoryRoot("elnor-golden-");
  let agent: AgentProcess | undefined;
  let chromium: ExtensionBrowser | undefined;
  const site = await serveFixtureSite(flow.routes, flow.port);
  try {
    agent = await startAgentProcess(root);
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    const api = agentApi(agent, token);
    chromium = await launchExtensionBrowser();
    const panel = await pair(chromium, agent, token);

    const sessionId = await demonstrate({ root, agent, token, chromium, panel, site, flow });
    const count = await quiet(root, sessionId);
    const recording = await readRecording(root, sessionId);
    await keep(flow, recording);

    // Not kept: what the agent makes of it over HTTP, so a recording can be judged at a glance.
    const generated = GeneratedSchema.parse(await api("POST", `/api/learn/sessions/${sessionId}/generate-proposal`));
    console.log(
      `${flow.name}: ${count} events, ${recording.snapshots.size} snapshots, ${recording.boundaries.length} boundaries; proposal → ${generated.session.state}`,
    );
  } finally {
    await chromium?.close();
    await agent?.stop();
    await site.close();
    await cleanup();
  }
}

/** Writes the fixture, after checking that nothing typed is in it (privacy of what we commit). */
async function keep(flow: GoldenFlow, recording: Recording): Promise<void> {
  const files = new Map<string, string>([
    ["events.jsonl", `${recording.events.join("\n")}\n`],
    ["boundaries.json", `${JSON.stringify(recording.boundaries, null, 2)}\n`],
    ...[...recording.snapshots].map(([sha, text]): [string, string] => [`snapshots/${sha}.json`, text]),
  ]);
  for (const [name, text] of files) {
    const leaked = canaryNeedles().find((needle) => text.toLowerCase().includes(needle.toLowerCase()));
    if (leaked !== undefined) throw new Error(`${flow.name}/${name} contains the typed value "${leaked}": not kept`);
  }
  const folder = path.join(GOLDEN_DIR, flow.name);
  await rm(folder, { recursive: true, force: true });
  await mkdir(path.join(folder, "snapshots"), { recursive: true });
  for (const [name, text] of files) await writeFile(path.join(folder, name), text);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !GOLDEN_FLOWS.some((flow) => flow.name === name));
if (unknown.length > 0) throw new Error(`Unknown flow(s): ${unknown.join(", ")}; known: ${GOLDEN_FLOWS.map((flow) => flow.name).join(", ")}`);
for (const flow of GOLDEN_FLOWS.filter((candidate) => wanted.length === 0 || wanted.includes(candidate.name))) {
  await recordFlow(flow);
}
