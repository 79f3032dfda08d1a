import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { RunPanelState } from "./run-panel.svelte";
import { RunSpecsState } from "./run-specs.svelte";
import { eventually, startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

/**
 * The panel's run state against a real agent that runs the ability in a real managed Chromium,
 * on a small shop (agent/test-support/run-fixture): a message and a secret access code, a
 * committing "Send message", and a "Message sent" page a test can break.
 */
const SECRET = "Panel-Secret-4b2d";
const RUN_MS = 60_000;

let site: RunFixtureSite;
let agent: ListeningAgent;
let abilityId: string;

beforeAll(async () => {
  site = await serveRunFixtureSite();
});
afterAll(async () => {
  await site.close();
});
beforeEach(async () => {
  agent = await startListeningAgent();
  ({ abilityId } = await installContactAbility(agent.call, site));
  site.breakConfirmation(false);
});
afterEach(async () => {
  await agent.close();
});

/** A run panel opened on the ability, its form filled in (the access code is the secret). */
async function openFilled(deps = agent.deps()) {
  const runs = new RunPanelState(deps, { pollMs: 200, reconnectDelaysMs: [100] });
  await runs.open(abilityId);
  expect(runs.status).toBe("ready");
  const form = runs.form!;
  for (const input of form.spec.inputs) form.setValue(input.name, input.secret ? SECRET : "Hello from the panel");
  return { runs, form, deps };
}

describe("Skills → Run state against a real agent (issue #21)", () => {
  it("reads whether each skill can run, and why one cannot once it is deactivated", async () => {
    const specs = new RunSpecsState(agent.deps());
    await specs.sync([abilityId]);
    const entry = specs.entry(abilityId);
    expect(entry?.status === "ready" && entry.spec.runnable).toBe(true);
    await agent.client.deactivateAbility(abilityId);
    await specs.sync([abilityId]);
    const after = specs.entry(abilityId);
    expect(after?.status).toBe("ready");
    if (after?.status !== "ready") return;
    expect(after.spec.runnable).toBe(false);
    expect(after.spec.not_runnable_reason).toBeTruthy();
  });

  it("starts nothing while a required input is empty, and says which", async () => {
    const runs = new RunPanelState(agent.deps());
    await runs.open(abilityId);
    const form = runs.form!;
    expect(form.spec.inputs.some((input) => input.required)).toBe(true);
    form.submit();
    expect(form.problems.length).toBeGreaterThan(0);
    expect(form.problems[0]).toMatch(/^Fill in /);
    expect((await agent.client.listRuns(abilityId)).total).toBe(0);
    runs.destroy();
  });

  it("follows a run live, waits at the committing step until Do it, then every checkpoint is proved; the secret is forgotten", async () => {
    const { runs, form } = await openFilled();
    const before = site.sends();
    const secretInput = form.spec.inputs.find((input) => input.secret)!;
    expect(secretInput).toBeDefined();
    form.submit();
    await eventually(() => runs.progress !== null, "the run to start", 20_000);
    expect(form.values[secretInput.name]).toBeUndefined();
    const progress = runs.progress!;
    await eventually(() => progress.live?.status === "live" || progress.terminal, "the live stream");
    await eventually(() => progress.run.state === "needs_confirmation", "the confirmation", RUN_MS);
    expect(progress.run.pending_confirmation?.step_label).toContain("Send message");
    expect(site.sends()).toBe(before);
    await progress.answer("confirm");
    await eventually(() => progress.run.state === "succeeded", "the run to succeed", RUN_MS);
    expect(site.sends()).toBe(before + 1);
    expect(progress.rows.length).toBeGreaterThan(0);
    expect(progress.rows.every((row) => row.status === "reached")).toBe(true);
    expect(progress.run.steps.length).toBeGreaterThan(0);
    await eventually(
      () => runs.history?.runs.some((run) => run.dispatch_id === progress.run.dispatch_id && run.state === "succeeded") === true,
      "the run under Past runs",
    );
    expect(JSON.stringify(progress.run)).not.toContain(SECRET);
    runs.destroy();
  }, 120_000);

  it("never sends when the person answers Don't", async () => {
    const { runs, form } = await openFilled();
    const before = site.sends();
    form.submit();
    await eventually(() => runs.progress?.run.state === "needs_confirmation", "the confirmation", RUN_MS);
    await runs.progress!.answer("decline");
    await eventually(() => runs.progress!.terminal, "the run to end", RUN_MS);
    expect(runs.progress!.run.state).not.toBe("succeeded");
    expect(site.sends()).toBe(before);
    runs.destroy();
  }, 120_000);

  it("Stop ends a run at once", async () => {
    const { runs, form } = await openFilled();
    const before = site.sends();
    form.submit();
    await eventually(() => runs.progress !== null, "the run to start", 20_000);
    await runs.progress!.cancel();
    await eventually(() => runs.progress!.terminal, "the run to end", 20_000);
    expect(runs.progress!.run.state).toBe("cancelled");
    expect(site.sends()).toBe(before);
    runs.destroy();
  }, 60_000);

  it("shows what the page showed, with its screenshot, when a checkpoint no longer holds", async () => {
    site.breakConfirmation(true);
    const { runs, form } = await openFilled();
    form.submit();
    await eventually(() => runs.progress?.run.state === "needs_confirmation" || runs.progress?.terminal === true, "the confirmation", RUN_MS);
    if (runs.progress!.run.state === "needs_confirmation") await runs.progress!.answer("confirm");
    await eventually(() => runs.progress!.terminal, "the run to end", RUN_MS);
    const progress = runs.progress!;
    expect(progress.run.state).toBe("failed");
    expect(progress.run.failure?.page_seen?.headings).toContain("Something went wrong");
    expect(progress.rows.some((row) => row.status === "failed")).toBe(true);
    await eventually(() => progress.screenshotUrl !== null || progress.screenshotError !== null, "the screenshot");
    expect(progress.screenshotError).toBeNull();
    expect(progress.screenshotUrl).toMatch(/^blob:/);
    runs.destroy();
  }, 120_000);
});
