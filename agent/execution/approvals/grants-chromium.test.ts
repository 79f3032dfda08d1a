import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CapabilityUseReceiptSchema } from "../../../shared/capabilities/capability-use-receipt";
import { RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { RunGrantListResponseSchema, RunGrantLogEntrySchema, type RunGrant } from "../../../shared/execution/run-grants";
import { MemoryPaths } from "../../memory/memory-paths";
import { installMailAbility, serveMailFixtureSite, type MailFixtureSite } from "../../test-support/grant-fixture";
import { executorOn, shareChromiumInFile } from "../../test-support/shared-chromium";
import { expectError, startTestAgent, type TestAgent } from "../../test-support/test-agent";

/**
 * Standing approvals bound to terms (issue #33), through the real agent, its one executor and
 * Debian's Chromium, on a mail fixture that counts what it really sent and deleted.
 */

let site: MailFixtureSite;
let agent: TestAgent;
let sendId: string;
let deleteId: string;
/** Every input value given in this file: none may reach ELNOR_MEMORY. */
const typed: string[] = [];
const value = (name: string) => {
  const made = `${name}-${randomUUID().slice(0, 8)}`;
  typed.push(made);
  return made;
};
const ALICE = value("alice");

/** The runs of this file are in one Chromium started for it, each in a fresh context (`shared-chromium.ts`); installing still rehearses in a managed one. */
const chromium = shareChromiumInFile();

beforeAll(async () => {
  site = await serveMailFixtureSite();
  agent = await startTestAgent({ execute: executorOn(chromium) });
  const call = (method: "GET" | "POST", url: string, payload?: unknown) => agent.call(method, url, payload);
  sendId = await installMailAbility(call, site, "send");
  deleteId = await installMailAbility(call, site, "delete");
}, 60_000);
afterAll(async () => {
  await agent?.close();
  await site?.close();
});

const start = async (abilityId: string, inputs: Record<string, string>) => {
  const answer = await agent.call("POST", "/api/runs", { ability_id: abilityId, inputs, schema_version: 1 });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return RunResponseSchema.parse(answer.body).run.dispatch_id;
};

async function until(dispatchId: string, done: (run: RunRecord) => boolean): Promise<RunRecord> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const run = RunResponseSchema.parse((await agent.call("GET", `/api/runs/${dispatchId}`)).body).run;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const over = (run: RunRecord) => run.completed_at !== undefined;
const asked = (dispatchId: string) => until(dispatchId, (run) => run.state === "needs_confirmation" || over(run));
const answer = (dispatchId: string, run: RunRecord, decision: "confirm" | "decline", alwaysAllow?: unknown) =>
  agent.call("POST", `/api/runs/${dispatchId}/confirm`, {
    confirmation_id: run.pending_confirmation?.confirmation_id,
    decision,
    ...(alwaysAllow === undefined ? {} : { always_allow: alwaysAllow }),
    schema_version: 1,
  });

async function grantsOf(abilityId: string): Promise<RunGrant[]> {
  const listed = await agent.call("GET", `/api/abilities/${abilityId}/grants`);
  expect(listed.status).toBe(200);
  return RunGrantListResponseSchema.parse(listed.body).grants;
}

async function approvalMode(dispatchId: string): Promise<string | undefined> {
  const receipts = await agent.memory.readJsonl(MemoryPaths.capabilityUseReceipts, CapabilityUseReceiptSchema);
  return receipts.find((receipt) => receipt.dispatch_id === dispatchId)?.approval_mode;
}

/** Whether the run ever paused for the person: its event log, written in order, says so. */
async function everAsked(dispatchId: string): Promise<boolean> {
  await agent.app.learning.runs.store.settle();
  return ((await agent.memory.readText(MemoryPaths.runEvents(dispatchId))) ?? "").includes("run.needs_confirmation");
}

/** A run asked and answered: confirmed (optionally allowed for good), then over. */
async function confirmedRun(abilityId: string, inputs: Record<string, string>, alwaysAllow?: unknown): Promise<RunRecord> {
  const id = await start(abilityId, inputs);
  const waiting = await asked(id);
  expect(waiting.state).toBe("needs_confirmation");
  const answered = await answer(id, waiting, "confirm", alwaysAllow);
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  const done = await until(id, over);
  expect(done.state, JSON.stringify(done.failure)).toBe("succeeded");
  return done;
}

/** A run a grant lets through: it never pauses, the step happens, and the record names the grant. */
async function grantedRun(abilityId: string, inputs: Record<string, string>, grantId: string): Promise<RunRecord> {
  const id = await start(abilityId, inputs);
  const done = await until(id, over);
  expect(done.state, JSON.stringify(done.failure)).toBe("succeeded");
  expect(await everAsked(id)).toBe(false);
  expect(done.steps.filter((step) => step.standing_grant_id !== undefined).map((step) => step.standing_grant_id)).toEqual([grantId]);
  expect(await approvalMode(id)).toBe("standing_order");
  return done;
}

async function memoryDigest(): Promise<string> {
  const hash = createHash("sha256");
  const files = (await readdir(agent.root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  for (const entry of files.sort((a, b) => path.join(a.parentPath, a.name).localeCompare(path.join(b.parentPath, b.name)))) {
    hash.update(path.join(entry.parentPath, entry.name));
    hash.update(await readFile(path.join(entry.parentPath, entry.name)));
  }
  return hash.digest("hex");
}

describe("standing grants in the managed Chromium", () => {
  it("an exact-inputs grant lets the same inputs through once per run, other inputs ask, an any-inputs grant lets them through", async () => {
    const first = await start(sendId, { recipient: ALICE });
    const waiting = await asked(first);
    expect(waiting.pending_confirmation?.grant_offer).toEqual({
      skill_version: "0.1.0",
      step_id: expect.any(String),
      site_host: site.host,
      input_names: ["recipient"],
      consequence_classes: [],
    });
    expect((await answer(first, waiting, "confirm", { inputs: "exact" })).status).toBe(200);
    expect((await until(first, over)).state).toBe("succeeded");
    expect(site.count("send")).toBe(1);
    expect(await approvalMode(first)).toBe("ask_first");
    const [exact] = await grantsOf(sendId);
    expect(exact).toMatchObject({
      ability_id: sendId,
      skill_version: "0.1.0",
      step_id: waiting.pending_confirmation?.grant_offer?.step_id,
      step_label: waiting.pending_confirmation?.step_label,
      site_host: site.host,
      inputs: "exact",
      input_names: ["recipient"],
      consequence_classes: [],
      state: "active",
      use_count: 0,
      created_from_dispatch_id: first,
    });
    expect(exact).not.toHaveProperty("input_hashes");
    const grantId = exact?.grant_id ?? "";

    const second = await grantedRun(sendId, { recipient: ALICE }, grantId);
    expect(site.count("send")).toBe(2);
    expect((await grantsOf(sendId))[0]).toMatchObject({ grant_id: grantId, use_count: 1, last_used_at: expect.any(String) });
    const uses = (await agent.memory.readJsonl(MemoryPaths.grantsLog, RunGrantLogEntrySchema)).filter((entry) => entry.event === "grant.used");
    expect(uses).toEqual([expect.objectContaining({ grant_id: grantId, dispatch_id: second.dispatch_id })]);

    // Other inputs: asked again, and allowed for any inputs this time.
    const bob = await confirmedRun(sendId, { recipient: value("bob") }, { inputs: "any" });
    expect(site.count("send")).toBe(3);
    const any = (await grantsOf(sendId)).find((grant) => grant.inputs === "any");
    expect(any).toMatchObject({ input_names: [], created_from_dispatch_id: bob.dispatch_id });
    await grantedRun(sendId, { recipient: value("carol") }, any?.grant_id ?? "");
    expect(site.count("send")).toBe(4);
  }, 120_000);

  it("bad requests get coded errors and change nothing: unknown grant, malformed terms, always_allow with decline", async () => {
    // The any-inputs grant would let any run through: revoke every grant first, through the route.
    for (const grant of await grantsOf(sendId))
      expect((await agent.call("POST", `/api/abilities/${sendId}/grants/${grant.grant_id}/revoke`, { schema_version: 1 })).status).toBe(200);
    const id = await start(sendId, { recipient: value("dave") });
    const run = { id, waiting: await asked(id) };
    expect(run.waiting.state).toBe("needs_confirmation");
    await agent.app.learning.runs.store.settle();
    const before = await memoryDigest();
    expectError(await answer(run.id, run.waiting, "confirm", { inputs: "some" }), 400, "REQUEST_INVALID");
    expectError(await answer(run.id, run.waiting, "confirm", { inputs: "exact", expires_at: "2001-01-01T00:00:00.000Z" }), 400, "REQUEST_INVALID");
    expectError(await answer(run.id, run.waiting, "confirm", { inputs: "exact", site_host: "elsewhere.test" }), 400, "REQUEST_INVALID");
    expectError(await answer(run.id, run.waiting, "decline", { inputs: "any" }), 400, "REQUEST_INVALID");
    const unknown = `grant-${randomUUID()}`;
    expectError(await agent.call("POST", `/api/abilities/${sendId}/grants/${unknown}/revoke`, { schema_version: 1 }), 404, "RUN_GRANT_NOT_FOUND");
    expectError(await agent.call("POST", `/api/abilities/${sendId}/grants/not-a-grant/revoke`, { schema_version: 1 }), 400, "REQUEST_INVALID");
    expectError(await agent.call("GET", "/api/abilities/learned.no-such-skill/grants"), 404, "ABILITY_NOT_FOUND");
    await agent.app.learning.runs.store.settle();
    expect(await memoryDigest()).toBe(before);
    expect((await agent.call("GET", `/api/runs/${run.id}`)).body.run.state).toBe("needs_confirmation");
    expect(await grantsOf(sendId)).toEqual([]);
    await answer(run.id, run.waiting, "decline");
    await until(run.id, over);
  }, 120_000);

  it("revoking works at once, and a grant of an older skill version does not apply", async () => {
    await confirmedRun(sendId, { recipient: ALICE }, { inputs: "exact" });
    const [grant] = await grantsOf(sendId);
    await grantedRun(sendId, { recipient: ALICE }, grant?.grant_id ?? "");

    const revoked = await agent.call("POST", `/api/abilities/${sendId}/grants/${grant?.grant_id}/revoke`, { schema_version: 1 });
    expect(revoked.body.grant).toMatchObject({ grant_id: grant?.grant_id, state: "revoked", revoked_at: expect.any(String) });
    expect(await grantsOf(sendId)).toEqual([]);
    const afterRevoke = await start(sendId, { recipient: ALICE });
    const waiting = await asked(afterRevoke);
    expect(waiting.state).toBe("needs_confirmation");
    // Allowed again for good, then the skill gets a new version: the grant stays for 0.1.0 only.
    await answer(afterRevoke, waiting, "confirm", { inputs: "any" });
    await until(afterRevoke, over);
    const call = (method: "GET" | "POST", url: string, payload?: unknown) => agent.call(method, url, payload);
    expect(await installMailAbility(call, site, "send", sendId)).toBe(sendId);
    const sends = site.count("send");
    const updated = await start(sendId, { recipient: ALICE });
    const askedAgain = await asked(updated);
    expect(askedAgain.state).toBe("needs_confirmation");
    expect(askedAgain.pending_confirmation?.grant_offer?.skill_version).toBe("0.2.0");
    await answer(updated, askedAgain, "decline");
    expect((await until(updated, over)).state).toBe("cancelled");
    expect(site.count("send")).toBe(sends);
  }, 180_000);

  it("a step that deletes is covered only when the person ticked deleting; the receipts say standing_order", async () => {
    const number = value("msg");
    const id = await start(deleteId, { message_number: number });
    const waiting = await asked(id);
    expect(waiting.pending_confirmation?.grant_offer?.consequence_classes).toEqual(["deletes"]);
    await agent.app.learning.runs.store.settle();
    const before = await memoryDigest();
    const refused = await answer(id, waiting, "confirm", { inputs: "exact" });
    expectError(refused, 400, "REQUEST_INVALID");
    expect(refused.body.error.message).toContain("deletes");
    expectError(await answer(id, waiting, "confirm", { inputs: "any", consequence_classes: ["pays"] }), 400, "REQUEST_INVALID");
    expect(await memoryDigest()).toBe(before);
    expect(site.count("delete")).toBe(0);
    expect(await grantsOf(deleteId)).toEqual([]);

    expect((await answer(id, waiting, "confirm", { inputs: "exact", consequence_classes: ["deletes"] })).status).toBe(200);
    expect((await until(id, over)).state).toBe("succeeded");
    expect(site.count("delete")).toBe(1);
    const [grant] = await grantsOf(deleteId);
    expect(grant).toMatchObject({ consequence_classes: ["deletes"], inputs: "exact" });
    await grantedRun(deleteId, { message_number: number }, grant?.grant_id ?? "");
    expect(site.count("delete")).toBe(2);

    // Deleting the ability revokes its grants: a skill learned again under the same id starts with none.
    expect((await agent.call("DELETE", `/api/abilities/${deleteId}`)).status).toBe(200);
    const log = await agent.memory.readJsonl(MemoryPaths.grantsLog, RunGrantLogEntrySchema);
    expect(log).toContainEqual(expect.objectContaining({ event: "grant.revoked", grant_id: grant?.grant_id, reason: "ability_deleted" }));
  }, 120_000);

  it("no input value is in any file under ELNOR_MEMORY or the log; the grant key is 0600", async () => {
    await agent.app.learning.runs.store.settle();
    expect(typed.length).toBeGreaterThan(4);
    const files = (await readdir(agent.root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    expect(files.some((entry) => entry.name === "grants.jsonl")).toBe(true);
    for (const entry of files) {
      const text = (await readFile(path.join(entry.parentPath, entry.name))).toString("latin1");
      for (const made of typed) expect(text, `${entry.name} holds ${made}`).not.toContain(made);
    }
    for (const made of typed) expect(agent.logs.join("\n")).not.toContain(made);
    const { mode } = await import("node:fs/promises").then((fs) => fs.stat(path.join(agent.root, MemoryPaths.grantKey)));
    expect(mode & 0o777).toBe(0o600);
  });
});
