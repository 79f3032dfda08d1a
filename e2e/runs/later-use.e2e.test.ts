import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { memoryText } from "../../agent/test-support/memory-text";
import { GOLDEN_CANARIES } from "../golden/canaries";
import { agentApi, demonstrate, pair } from "../golden/demonstration";
import { serveFixtureSite, type FixtureSite } from "../golden/fixture-server";
import { GOLDEN_FLOWS } from "../golden/flows";
import { launchExtensionBrowser, type ExtensionBrowser } from "../test-support/extension-browser";
import type { AbilityRunSpec, RunResponse } from "../../shared/execution/run-contract";

/**
 * Issues #6 and #21's end-to-end chain in real Chromium with the built extension and a real agent:
 * demonstrate → proposal → validate with a real rehearsal → install → a paraphrased lookup finds
 * it usable → its run-spec says what it needs → a run with new values proves every checkpoint →
 * deactivate → not usable → quarantine → not returned.
 */
let root: string;
let cleanup: () => Promise<void>;
let workspace: string;
let agent: AgentProcess;
let chromium: ExtensionBrowser;
let site: FixtureSite;
let api: ReturnType<typeof agentApi>;
let sessionId: string;

const flow = GOLDEN_FLOWS.find((candidate) => candidate.name === "signup")!;
// Another port than the golden recording's, so this test never collides with a recorder run.
const PORT = flow.port + 100;
const RUN_SECRET = `Run-Secret-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-later-use-"));
  workspace = await mkdtemp(path.join(tmpdir(), "elnor-later-use-ws-"));
  site = await serveFixtureSite(flow.routes, PORT);
  agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  api = agentApi(agent, token);
  chromium = await launchExtensionBrowser();
  const panel = await pair(chromium, agent, token);
  sessionId = await demonstrate({ root, agent, token, chromium, panel, site, flow });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await agent?.stop();
  await site?.close();
  await cleanup?.();
  await rm(workspace, { recursive: true, force: true });
});

describe("from a demonstration to an ability found later (issue #6)", () => {
  it("R11.2-34 chain: validate with a real rehearsal, install, find it by a paraphrase, run it with new values proving every checkpoint, then deactivate and quarantine it", async () => {
    await api("POST", `/api/learn/sessions/${sessionId}/set-test-policy`, {
      test_policy: { policy_id: crypto.randomUUID(), mode: "live_read_safe_write", allowed_domains: ["127.0.0.1"], schema_version: 1 },
    });
    const { proposal_id: proposalId } = await api<{ proposal_id: string }>("POST", `/api/learn/sessions/${sessionId}/generate-proposal`);
    const validated = await api<{ validation_run: { overall_result: string } }>("POST", `/api/learn/proposals/${proposalId}/validate`, {
      test_values: { full_name: "Test Person", email: "test@example.com", password: "Test-Passw0rd!" },
      schema_version: 1,
    });
    expect(validated.validation_run.overall_result).toBe("passed");

    const installed = await api<{ ability_id: string }>("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    const abilityId = installed.ability_id;
    expect((await stat(path.join(workspace, "skills", abilityId.replace("learned.", ""), "SKILL.md"))).isFile()).toBe(true);

    const paraphrase = { user_query: "could you set up a new customer account on the fixture shop for me", schema_version: 1 };
    const found = await api<{ matches: Array<{ ability_id: string; score: number; usable_now: boolean }> }>("POST", "/api/abilities/lookup", paraphrase);
    expect(found.matches[0]).toMatchObject({ ability_id: abilityId, usable_now: true });
    expect(found.matches[0]!.score).toBeGreaterThanOrEqual(0.3);

    // Issue #21: lookup → pick → what it needs → run → result, as an assistant does through the API.
    const spec = await api<AbilityRunSpec>("GET", `/api/abilities/${found.matches[0]!.ability_id}/run-spec`);
    expect(spec).toMatchObject({ runnable: true, sites: [`127.0.0.1:${PORT}`] });
    expect(spec.checkpoints.length).toBeGreaterThan(0);
    expect(spec.inputs.find((input) => input.secret)?.type).toBe("secret");
    const inputs = Object.fromEntries(
      spec.inputs.map((input) => [input.name, input.secret ? RUN_SECRET : input.type === "email" ? "run@example.com" : "Run Person"]),
    );
    const started = await api<RunResponse>("POST", "/api/runs", { ability_id: spec.ability_id, inputs, schema_version: 1 });
    const dispatchId = started.run.dispatch_id;
    let run = started.run;
    for (const deadline = Date.now() + 60_000; run.completed_at === undefined && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = (await api<RunResponse>("GET", `/api/runs/${dispatchId}`)).run;
      // The person answers in the side panel; here the test is the person.
      if (run.state === "needs_confirmation")
        await api("POST", `/api/runs/${dispatchId}/confirm`, {
          confirmation_id: run.pending_confirmation!.confirmation_id,
          decision: "confirm",
          schema_version: 1,
        });
    }
    expect(run.state, JSON.stringify(run.failure)).toBe("succeeded");
    expect(run.checkpoints.map((checkpoint) => checkpoint.checkpoint_id)).toEqual(spec.checkpoints.map((checkpoint) => checkpoint.checkpoint_id));
    expect(run.checkpoints.every((checkpoint) => checkpoint.status === "reached")).toBe(true);
    const receipts = await api<{ receipts: Array<{ status: string }> }>("GET", `/api/dispatches/${dispatchId}/checkpoint-receipts`);
    expect(receipts.receipts.filter((receipt) => receipt.status === "reached").length).toBe(
      spec.checkpoints.filter((checkpoint) => checkpoint.verified_by === "page").length,
    );

    await api("POST", `/api/abilities/${abilityId}/deactivate`);
    // Deactivated, it is unusable (R11.2-32) and stays out of lookups (issue #15).
    expect((await api<{ usable_now: boolean }>("GET", `/api/abilities/${abilityId}/availability`)).usable_now).toBe(false);
    const deactivated = await api<{ matches: Array<{ ability_id: string; usable_now: boolean }> }>("POST", "/api/abilities/lookup", paraphrase);
    expect(deactivated.matches.map((match) => match.ability_id)).not.toContain(abilityId);

    await api("POST", `/api/abilities/${abilityId}/quarantine`, { reason: "checking quarantine" });
    const quarantined = await api<{ matches: Array<{ ability_id: string }> }>("POST", "/api/abilities/lookup", paraphrase);
    expect(quarantined.matches.map((match) => match.ability_id)).not.toContain(abilityId);

    // Nothing typed during the demonstration reached the agent's files.
    const text = await memoryText(root);
    for (const value of Object.values(GOLDEN_CANARIES.signup)) expect(text).not.toContain(value);
    // Nor did the run's secret input.
    expect(text).not.toContain(RUN_SECRET);
    expect(agent.output()).not.toContain(RUN_SECRET);
  }, 180_000);
});
