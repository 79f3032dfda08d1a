/**
 * `npm run demo` — the quickest way to see elnor-learn work: a temporary agent, the bundled
 * sign-up fixture site, and headless Chromium with the built extension doing a real
 * demonstration; then the proposal is generated, validated with a real rehearsal, installed, and
 * found again by a paraphrased request. Prints what a user would want to see, then cleans up.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startAgentProcess, type AgentProcess } from "../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../agent/test-support/temp-memory";
import { launchExtensionBrowser, type ExtensionBrowser } from "./test-support/extension-browser";
import { agentApi, demonstrate, pair } from "./golden/demonstration";
import { serveFixtureSite } from "./golden/fixture-server";
import { GOLDEN_FLOWS } from "./golden/flows";

const SAMPLE_VALUES: Record<string, string> = {
  email: "demo@example.com",
  secret: "Demo-Passw0rd!",
  phone: "+1 555 0100",
  number: "42",
  date: "2026-12-01",
  url: "https://example.com",
};

function line(text = ""): void {
  process.stdout.write(`${text}\n`);
}

async function main(): Promise<void> {
  const flow = GOLDEN_FLOWS.find((candidate) => candidate.name === "signup");
  if (flow === undefined) throw new Error("the sign-up fixture flow is missing");
  const { root, cleanup } = await makeTempMemoryRoot("elnor-demo-");
  const workspace = await mkdtemp(path.join(tmpdir(), "elnor-demo-workspace-"));
  const site = await serveFixtureSite(flow.routes, flow.port);
  let agent: AgentProcess | undefined;
  let chromium: ExtensionBrowser | undefined;
  try {
    line("elnor-learn demo: demonstrate once, get a validated, installed, findable ability.\n");
    agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace });
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    const api = agentApi(agent, token);
    chromium = await launchExtensionBrowser();
    const panel = await pair(chromium, agent, token);
    line(`1. Agent running at ${agent.url}; extension paired; demonstrating "${flow.goal}" on ${site.origin} …`);
    const sessionId = await demonstrate({ root, agent, token, chromium, panel, site, flow });
    const observed = await api<{ total: number; events: Array<{ action_label: string; adapter_kind: string }> }>(
      "GET",
      `/api/learn/sessions/${sessionId}/observations?limit=500`,
    );
    const actions = observed.events.filter((event) => event.adapter_kind === "browser_dom").map((event) => event.action_label);
    line(`   Captured ${observed.total} events (typed values masked in the page): ${actions.join(" → ")}`);

    await api("POST", `/api/learn/sessions/${sessionId}/set-test-policy`, {
      test_policy: { policy_id: crypto.randomUUID(), mode: "live_read_safe_write", allowed_domains: ["127.0.0.1"], schema_version: 1 },
    });
    const generated = await api<{ proposal_id: string; session: { state: string } }>("POST", `/api/learn/sessions/${sessionId}/generate-proposal`);
    const proposalId = generated.proposal_id;
    line(`2. Proposal generated (session ${generated.session.state}).`);

    const parameters = JSON.parse(
      await readFile(path.join(root, "system/learning/drafts", proposalId, "rev-001", "parameters.json"), "utf8").catch(() => "[]"),
    ) as Array<{ name: string; type_hint: string }>;
    const testValues = Object.fromEntries(parameters.map((parameter) => [parameter.name, SAMPLE_VALUES[parameter.type_hint] ?? "Demo User"]));
    const validated = await api<{ validation_run: { overall_result: string } }>("POST", `/api/learn/proposals/${proposalId}/validate`, {
      test_values: testValues,
      schema_version: 1,
    });
    const runs = await api<{ steps: Array<{ test_case_id: string; result: string; details?: string }> }>(
      "GET",
      `/api/learn/proposals/${proposalId}/validation-runs`,
    );
    const count = (result: string) => runs.steps.filter((step) => step.result === result).length;
    line(
      `3. Validation ${validated.validation_run.overall_result}: ${count("passed")} passed, ${count("failed")} failed, ${count("skipped")} skipped (rehearsed in a fresh headless Chromium).`,
    );
    for (const step of runs.steps.filter((candidate) => candidate.test_case_id.startsWith("rehearsal:s") || candidate.test_case_id.startsWith("checkpoint:"))) {
      line(`   ${step.result === "passed" ? "✓" : step.result === "skipped" ? "–" : "✗"} ${step.test_case_id}: ${(step.details ?? "").slice(0, 110)}`);
    }

    const installed = await api<{ ability_id: string }>("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    line(`4. Installed privately as ${installed.ability_id}.`);
    const query = "could you set up a new customer account on the fixture shop for me";
    const lookup = await api<{ matches: Array<{ ability_id: string; score: number; usable_now: boolean }> }>("POST", "/api/abilities/lookup", {
      user_query: query,
      schema_version: 1,
    });
    const best = lookup.matches[0];
    line(`5. Lookup for "${query}": ${best === undefined ? "no match" : `${best.ability_id}, score ${best.score.toFixed(2)}, usable now: ${best.usable_now}`}`);

    const skillName = installed.ability_id.replace(/^learned\./, "");
    line("\n--- SKILL.md ---------------------------------------------------------------");
    line((await readFile(path.join(workspace, "skills", skillName, "SKILL.md"), "utf8")).trimEnd());
    line("----------------------------------------------------------------------------\n");
    line("Where the files are (removed when the demo ends):");
    line(`   ELNOR_MEMORY:       ${root}`);
    line(`   canonical skill:    ${path.join(root, "system/learning/installed", skillName)}`);
    line(`   assistant's copy:   ${path.join(workspace, "skills", skillName)}`);
    line(`   availability:       ${path.join(root, "system/abilities/availability_current.json")}`);
    line(`   receipts:           ${path.join(root, "system/learning/receipts.jsonl")}`);
    if (best === undefined || !best.usable_now || validated.validation_run.overall_result === "failed") process.exitCode = 1;
  } finally {
    await chromium?.close();
    await agent?.stop();
    await site.close();
    await cleanup();
    await rm(workspace, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
