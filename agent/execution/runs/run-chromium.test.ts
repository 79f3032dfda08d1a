import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CapabilityUseReceiptSchema } from "../../../shared/capabilities/capability-use-receipt";
import { RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { MemoryPaths } from "../../memory/memory-paths";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { executorOn, shareChromiumInFile } from "../../test-support/shared-chromium";
import { startTestAgent, type TestAgent } from "../../test-support/test-agent";

/**
 * Runs of an installed ability through the real agent, its one executor and Debian's Chromium,
 * on a fixture shop that counts the messages really sent (issue #21).
 */

let site: RunFixtureSite;
let elsewhere: RunFixtureSite;
let agent: TestAgent;
let abilityId: string;

/** The runs of this file are in one Chromium started for it, each in a fresh context (`shared-chromium.ts`); installing still rehearses in a managed one. */
const chromium = shareChromiumInFile();

beforeAll(async () => {
  site = await serveRunFixtureSite();
  elsewhere = await serveRunFixtureSite();
  agent = await startTestAgent({ execute: executorOn(chromium) });
  ({ abilityId } = await installContactAbility((method, url, payload) => agent.call(method, url, payload), site));
}, 30_000);
afterAll(async () => {
  await agent?.close();
  await site?.close();
  await elsewhere?.close();
});
afterEach(() => {
  site.breakConfirmation(false);
  site.leakTo(undefined);
  site.moveSendButton(false);
});

const start = async (inputs: Record<string, string> = { message: "Hello from a run", access_code: "code-4321" }) => {
  const answer = await agent.call("POST", "/api/runs", { ability_id: abilityId, inputs, schema_version: 1 });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return RunResponseSchema.parse(answer.body).run.dispatch_id;
};

async function until(dispatchId: string, done: (run: RunRecord) => boolean, timeoutMs = 40_000): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = RunResponseSchema.parse((await agent.call("GET", `/api/runs/${dispatchId}`)).body).run;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const over = (run: RunRecord) => run.completed_at !== undefined;
const answer = (dispatchId: string, run: RunRecord, decision: "confirm" | "decline") =>
  agent.call("POST", `/api/runs/${dispatchId}/confirm`, { confirmation_id: run.pending_confirmation?.confirmation_id, decision, schema_version: 1 });

async function skillDigest(): Promise<string> {
  const folder = path.join(agent.root, MemoryPaths.installedSkill(abilityId.replace("learned.", "")));
  const files = (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  const hash = createHash("sha256");
  for (const entry of files.sort((a, b) => path.join(a.parentPath, a.name).localeCompare(path.join(b.parentPath, b.name))))
    hash.update(await readFile(path.join(entry.parentPath, entry.name)));
  return hash.digest("hex");
}

describe("runs in the managed Chromium", () => {
  it("waits for the person before sending, then proves every checkpoint; the secret is nowhere in ELNOR_MEMORY or the log", async () => {
    const canary = `CANARY-run-${crypto.randomUUID().slice(0, 8)}`;
    const sendsBefore = site.sends();
    const dispatchId = await start({ message: "Hello from a run", access_code: canary });
    const waiting = await until(dispatchId, (run) => run.state === "needs_confirmation" || over(run));
    expect(waiting.state).toBe("needs_confirmation");
    expect(waiting.checkpoints.find((checkpoint) => checkpoint.checkpoint_id === "cp-01")?.status).toBe("reached");
    // Asked, not yet answered: nothing was sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(site.sends()).toBe(sendsBefore);
    expect((await answer(dispatchId, waiting, "confirm")).status).toBe(200);

    const done = await until(dispatchId, over);
    expect(done.state, JSON.stringify(done.failure)).toBe("succeeded");
    expect(done.checkpoints.map((checkpoint) => [checkpoint.checkpoint_id, checkpoint.status])).toEqual([
      ["cp-01", "reached"],
      ["cp-02", "reached"],
    ]);
    expect(site.sends()).toBe(sendsBefore + 1);
    // The site got the values (that is the task); the agent kept none of them.
    expect(site.requests.some((request) => request.body.includes(canary))).toBe(true);
    const receipts = (await agent.call("GET", `/api/dispatches/${dispatchId}/checkpoint-receipts`)).body.receipts as Array<{
      checkpoint_id: string;
      status: string;
    }>;
    expect(receipts.map((receipt) => receipt.status)).toEqual(["reached", "reached"]);
    await agent.app.learning.runs.store.settle();
    const files = (await readdir(agent.root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    for (const entry of files) {
      expect(entry.name).not.toContain(canary);
      expect((await readFile(path.join(entry.parentPath, entry.name))).toString("latin1"), entry.name).not.toContain(canary);
    }
    expect(agent.logs.join("\n")).not.toContain(canary);
  }, 60_000);

  it("a declined send is never done; a cancel stops the run at once", async () => {
    const sendsBefore = site.sends();
    const declined = await start();
    const asked = await until(declined, (run) => run.state === "needs_confirmation" || over(run));
    await answer(declined, asked, "decline");
    const ended = await until(declined, over);
    expect(ended).toMatchObject({ state: "cancelled", failure: { code: "CONFIRMATION_DECLINED" } });

    const cancelled = await start();
    await until(cancelled, (run) => run.state === "needs_confirmation" || over(run));
    const stopped = await agent.call("POST", `/api/runs/${cancelled}/cancel`, { schema_version: 1 });
    expect(RunResponseSchema.parse(stopped.body).run.state).toBe("cancelled");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(site.sends()).toBe(sendsBefore);
    expect((await agent.call("GET", `/api/runs/${cancelled}`)).body.run.state).toBe("cancelled");
  }, 60_000);

  it("stops at a checkpoint that no longer holds, says what the page showed with a screenshot, and leaves the skill as it was", async () => {
    const digest = await skillDigest();
    const healthBefore = (await agent.call("GET", `/api/abilities/${abilityId}/availability`)).body.checkpoint_health;
    site.breakConfirmation(true);
    const dispatchId = await start();
    const asked = await until(dispatchId, (run) => run.state === "needs_confirmation" || over(run));
    await answer(dispatchId, asked, "confirm");
    const failed = await until(dispatchId, over);
    expect(failed.state).toBe("failed");
    expect(failed.failure?.code).toBe("CHECKPOINT_NOT_CONFIRMED");
    expect(failed.failure?.page_seen).toMatchObject({ title: "Error — Run Shop", headings: ["Something went wrong"] });
    expect(failed.checkpoints.find((checkpoint) => checkpoint.checkpoint_id === "cp-02")?.status).toBe("failed");
    const ref = failed.failure?.page_seen?.screenshot_ref;
    expect(ref).toBe(`/api/runs/${dispatchId}/screenshot`);
    const shot = await agent.app.inject({ method: "GET", url: ref as string, headers: agent.headers() });
    expect(shot.headers["content-type"]).toBe("image/png");
    expect(shot.rawPayload.subarray(1, 4).toString()).toBe("PNG");
    expect(await skillDigest()).toBe(digest);
    const receipts = (await agent.call("GET", `/api/dispatches/${dispatchId}/checkpoint-receipts`)).body.receipts as Array<{
      checkpoint_id: string;
      status: string;
    }>;
    expect(receipts.find((receipt) => receipt.checkpoint_id === "cp-02")?.status).toBe("failed");
    expect(
      (await agent.memory.readJsonl(MemoryPaths.capabilityUseReceipts, CapabilityUseReceiptSchema)).find((receipt) => receipt.dispatch_id === dispatchId)
        ?.result,
    ).toBe("failure");
    // The failed checkpoint counts against the ability's health (§0C.11A), read from real runs.
    expect((await agent.call("GET", `/api/abilities/${abilityId}/availability`)).body.checkpoint_health).not.toBe(healthBefore);
  }, 60_000);

  it("finds a button that moved by what it is, says so in the run, and still asks before sending", async () => {
    site.moveSendButton(true);
    const sendsBefore = site.sends();
    const dispatchId = await start();
    const asked = await until(dispatchId, (run) => run.state === "needs_confirmation" || over(run));
    expect(asked.state, JSON.stringify(asked.failure)).toBe("needs_confirmation");
    expect(site.sends()).toBe(sendsBefore);
    await answer(dispatchId, asked, "confirm");
    const done = await until(dispatchId, over);
    expect(done.state, JSON.stringify(done.failure)).toBe("succeeded");
    expect(site.sends()).toBe(sendsBefore + 1);
    const relocated = done.steps.find((step) => step.relocated !== undefined);
    expect(relocated?.relocated?.to).toContain("Send message now");
  }, 60_000);

  it("obeys a dry-run test policy exactly: everything up to the send, and the send left undone without asking", async () => {
    const sendsBefore = site.sends();
    const policy = { policy_id: crypto.randomUUID(), mode: "dry_run_only", allowed_domains: [site.host], schema_version: 1 };
    const answer = await agent.call("POST", "/api/runs", {
      ability_id: abilityId,
      inputs: { message: "Hello", access_code: "test-code-1" },
      test_policy: policy,
      schema_version: 1,
    });
    const dispatchId = RunResponseSchema.parse(answer.body).run.dispatch_id;
    const done = await until(dispatchId, (run) => over(run) || run.state === "needs_confirmation");
    expect(done, JSON.stringify(done)).toMatchObject({ state: "failed", failure: { code: "DRY_RUN_COMMIT_SKIPPED" } });
    expect(done.checkpoints.map((checkpoint) => checkpoint.status)).toEqual(["reached", "skipped"]);
    expect(site.sends()).toBe(sendsBefore);
    expect(
      (await agent.memory.readJsonl(MemoryPaths.capabilityUseReceipts, CapabilityUseReceiptSchema)).find((receipt) => receipt.dispatch_id === dispatchId)
        ?.result,
    ).toBe("denied");
  }, 60_000);

  it("refuses to touch a site outside the ability's: the request is blocked and the run fails under its policy", async () => {
    site.leakTo(elsewhere.origin);
    const seenBefore = elsewhere.requests.length;
    const dispatchId = await start();
    const ended = await until(dispatchId, (run) => run.state === "needs_confirmation" || over(run));
    if (ended.state === "needs_confirmation") await answer(dispatchId, ended, "decline");
    const final = await until(dispatchId, over);
    expect(final.state).toBe("failed");
    expect(final.failure?.code).toBe("TEST_POLICY_VIOLATION");
    expect(final.failure?.message).toContain(elsewhere.host);
    expect(elsewhere.requests.length).toBe(seenBefore);
  }, 60_000);
});
