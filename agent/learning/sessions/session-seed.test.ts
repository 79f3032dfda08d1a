import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { CreateLearnSessionResponseSchema } from "../../../shared/learning/sessions/create-learn-session";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-actions/observed-action";
import { SessionSeedResponseSchema } from "../../../shared/learning/sessions/trace-seed";
import { MemoryPaths } from "../../memory/memory-paths";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { expectError, startTestAgent, type TestAgent } from "../../test-support/test-agent";

/**
 * Learn From This (§0B.6, issue #16) through the routes of a real agent: a run really played in
 * Debian's Chromium by the one executor, then new sessions seeded from it, from a session and from
 * a receipt. A seed never carries a typed value; an unknown trace writes nothing.
 */

let site: RunFixtureSite;
let agent: TestAgent;
let abilityId: string;
let demoSessionId: string;
let failedRun: RunRecord;
const canary = `CANARY-seed-${randomUUID().slice(0, 8)}`;

async function until(dispatchId: string, done: (run: RunRecord) => boolean): Promise<RunRecord> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const run = RunResponseSchema.parse((await agent.call("GET", `/api/runs/${dispatchId}`)).body).run;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every file under the session's observation folder, as text. */
async function folderText(sessionId: string): Promise<string> {
  const folder = path.join(agent.root, MemoryPaths.observationFolder(sessionId));
  const files = (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  return (await Promise.all(files.map((entry) => readFile(path.join(entry.parentPath, entry.name), "utf8")))).join("\n");
}

const sessionCount = async () => ((await agent.call("GET", "/api/learn/sessions?page=1&page_size=100")).body as { total: number }).total;
const events = async (sessionId: string) =>
  (await readFile(path.join(agent.root, MemoryPaths.observationEvents(sessionId)), "utf8"))
    .trim()
    .split("\n")
    .map((line) => ObservedActionEventWithDetailSchema.parse(JSON.parse(line)));

const cancel = (sessionId: string) => agent.call("POST", `/api/learn/sessions/${sessionId}/cancel`, {});

describe("Learn From This", () => {
  beforeAll(async () => {
    site = await serveRunFixtureSite();
    agent = await startTestAgent();
    ({ abilityId, sessionId: demoSessionId } = await installContactAbility((method, url, payload) => agent.call(method, url, payload), site));
    // The site changed: "Message sent" no longer shows, so the run fails at its last checkpoint.
    site.breakConfirmation(true);
    const started = await agent.call("POST", "/api/runs", {
      ability_id: abilityId,
      inputs: { message: canary, access_code: `${canary}-code` },
      schema_version: 1,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const dispatchId = RunResponseSchema.parse(started.body).run.dispatch_id;
    const waiting = await until(dispatchId, (run) => run.state === "needs_confirmation" || run.completed_at !== undefined);
    await agent.call("POST", `/api/runs/${dispatchId}/confirm`, {
      confirmation_id: waiting.pending_confirmation?.confirmation_id,
      decision: "confirm",
      schema_version: 1,
    });
    failedRun = await until(dispatchId, (run) => run.completed_at !== undefined);
    expect(failedRun.state).toBe("failed");
  }, 90_000);
  afterAll(async () => {
    await agent?.close();
    await site?.close();
  });

  it("seeds a new session with a failed run's steps and pages, starts capturing at Start, and compiles the seed and what the person then shows", async () => {
    const created = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      target_app_whitelist: [site.host],
      source_trace: { kind: "run", dispatch_id: failedRun.dispatch_id },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { session, seed } = CreateLearnSessionResponseSchema.parse(created.body);
    const sessionId = session.learn_session_id;
    expect(seed?.source).toEqual({ kind: "run", dispatch_id: failedRun.dispatch_id });
    expect(seed?.title).toContain("Failed run of");
    expect(seed?.sites).toEqual([site.host]);
    expect(seed?.steps.length).toBeGreaterThanOrEqual(3);
    expect(seed?.stopped_at?.message).toBeTruthy();
    expect(seed?.checkpoints.some((checkpoint) => checkpoint.status === "failed")).toBe(true);
    expect(SessionSeedResponseSchema.parse((await agent.call("GET", `/api/learn/sessions/${sessionId}/seed`)).body).seed).toEqual(seed);

    // The trace is the session's first observations: the link, both fields (masked), the send.
    const seeded = await events(sessionId);
    const labels = seeded.map((event) => event.action_label);
    expect(labels).toEqual(expect.arrayContaining(["Click 'Contact us'", "Fill 'Message'", "Fill 'Access code'"]));
    expect(seeded.every((event) => event.learn_session_id === sessionId)).toBe(true);
    for (const event of seeded.filter((candidate) => candidate.browser_detail?.dom_event_kind === "change"))
      expect(event.browser_detail?.masked_field).toMatchObject({ masked: true });
    // Never a typed value: not in the seed, its events, or anything the new session holds.
    expect(await folderText(sessionId)).not.toContain(canary);

    const started = await agent.call("POST", `/api/learn/sessions/${sessionId}/start`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.session.state).toBe("capturing");

    // The person shows what the run could not prove: the page after sending, and a new step.
    await agent.call("POST", "/api/observations/events", {
      batch_id: randomUUID(),
      events: [
        {
          event_id: randomUUID(),
          learn_session_id: sessionId,
          adapter_kind: "browser_dom",
          app_family: "browser",
          action_label: "Click 'Back to the shop'",
          redaction_mode: "mask_text",
          created_at: new Date().toISOString(),
          schema_version: 1,
          browser_detail: {
            page_url: `${site.origin}/sent`,
            target_name: "Back to the shop",
            target_role: "button",
            selectors: [['aria/Back to the shop[role="button"]']],
            dom_event_kind: "click",
          },
        },
      ],
      snapshots: [],
      schema_version: 1,
    });
    expect((await agent.call("POST", `/api/learn/sessions/${sessionId}/stop`, {})).status).toBe(200);
    const generated = await agent.call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`, {});
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    const proposalId = generated.body.proposal_id as string;
    const flow = JSON.parse(
      (await agent.call("GET", `/api/learn/proposals/${proposalId}/detail`)).status === 200
        ? await readFile(path.join(agent.root, MemoryPaths.draftRevision(proposalId, 1), "flow.recorder.json"), "utf8")
        : "{}",
    ) as { steps: Array<{ type: string; selectors?: string[][] }> };
    const targets = flow.steps.flatMap((step) => step.selectors?.[0] ?? []);
    // Steps from the run and the one the person added, in order.
    expect(targets).toEqual(expect.arrayContaining(["#contact-link", "#message", "#code", 'aria/Back to the shop[role="button"]']));
    expect(targets.indexOf("#contact-link")).toBeLessThan(targets.indexOf('aria/Back to the shop[role="button"]'));
    await cancel(sessionId);
  });

  it("carries the run into Improve This Skill: the improvement starts from what the run saw and proposes the skill's next version", async () => {
    const created = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "improving_existing_skill",
      target_kind: "existing_skill",
      target_skill_id: abilityId,
      target_app_whitelist: [site.host],
      source_trace: { kind: "run", dispatch_id: failedRun.dispatch_id },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sessionId = CreateLearnSessionResponseSchema.parse(created.body).session.learn_session_id;
    expect((await agent.call("POST", `/api/learn/sessions/${sessionId}/start`, {})).body.session.state).toBe("capturing");
    expect((await agent.call("POST", `/api/learn/sessions/${sessionId}/stop`, {})).status).toBe(200);
    const generated = await agent.call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`, {});
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    const detail = await agent.call("GET", `/api/learn/proposals/${generated.body.proposal_id as string}/detail`);
    expect(detail.body.proposal.ability_id).toBe(abilityId);
    expect(detail.body.skill_delta.target_ability_id).toBe(abilityId);
    await cancel(sessionId);
  });

  it("seeds from a finished session (or a receipt of it) with new event ids and its snapshots, leaving a consented typed value behind", async () => {
    // A session recorded with consent to keep typed text (`none`): its event carries the value.
    const consentId = (await agent.call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill", target_app_whitelist: [site.host] })).body.session
      .learn_session_id as string;
    expect((await agent.call("PUT", `/api/learn/sessions/${consentId}/redaction`, { text_entry: "none", consent: true })).status).toBe(200);
    await agent.call("POST", `/api/learn/sessions/${consentId}/start`, {});
    const base = { learn_session_id: consentId, adapter_kind: "browser_dom", app_family: "browser", schema_version: 1 };
    const ingest = await agent.call("POST", "/api/observations/events", {
      batch_id: randomUUID(),
      events: [
        {
          ...base,
          event_id: randomUUID(),
          action_label: "Fill 'Message'",
          redaction_mode: "none",
          created_at: new Date().toISOString(),
          browser_detail: {
            page_url: `${site.origin}/contact`,
            target_name: "Message",
            selectors: [["#message"]],
            dom_event_kind: "change",
            masked_field: { masked: false, value: canary },
          },
        },
        {
          ...base,
          event_id: randomUUID(),
          action_label: "Click 'Send message'",
          redaction_mode: "mask_text",
          created_at: new Date(Date.now() + 1).toISOString(),
          browser_detail: { page_url: `${site.origin}/contact`, target_name: "Send message", selectors: [["#send"]], dom_event_kind: "click" },
        },
      ],
      snapshots: [],
      schema_version: 1,
    });
    expect(ingest.status, JSON.stringify(ingest.body)).toBe(200);
    await agent.call("POST", `/api/learn/sessions/${consentId}/stop`, {});
    expect(await folderText(consentId)).toContain(canary);
    await cancel(consentId);

    const created = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      target_app_whitelist: [site.host],
      source_trace: { kind: "learn_session", learn_session_id: consentId },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sessionId = created.body.session.learn_session_id as string;
    const copied = await events(sessionId);
    expect(copied.map((event) => event.action_label)).toEqual(["Fill 'Message'", "Click 'Send message'"]);
    expect(copied[0]?.browser_detail?.masked_field).toMatchObject({ masked: true });
    expect(copied[0]?.browser_detail?.masked_field?.value).toBeUndefined();
    expect(await folderText(sessionId)).not.toContain(canary);
    await cancel(sessionId);

    // The demonstration the skill was learned from, named by one of its receipts: its snapshots come along.
    const receipts = (await agent.call("GET", `/api/learn/receipts?page=1&page_size=100&session_id=${demoSessionId}`)).body.receipts as Array<{
      receipt_id: string;
      learn_session_id?: string;
    }>;
    const receipt = receipts.find((candidate) => candidate.learn_session_id === demoSessionId);
    expect(receipt).toBeDefined();
    const fromReceipt = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      target_app_whitelist: [site.host],
      source_trace: { kind: "receipt", receipt_id: receipt?.receipt_id },
    });
    expect(fromReceipt.status, JSON.stringify(fromReceipt.body)).toBe(201);
    const receiptSessionId = fromReceipt.body.session.learn_session_id as string;
    expect(fromReceipt.body.seed.source).toEqual({ kind: "receipt", receipt_id: receipt?.receipt_id });
    const demo = await events(demoSessionId);
    const again = await events(receiptSessionId);
    expect(again.map((event) => event.action_label)).toEqual(demo.map((event) => event.action_label));
    expect(again.some((event) => demo.some((original) => original.event_id === event.event_id))).toBe(false);
    const snapshots = await readdir(path.join(agent.root, MemoryPaths.observationFolder(receiptSessionId), "snapshots"));
    expect(snapshots.length).toBe(3);
    await cancel(receiptSessionId);
  });

  it("refuses an unknown run, session or receipt, a malformed run id, and a seed for Import Skill, with a coded error and no session written", async () => {
    const before = await sessionCount();
    const create = (source_trace: unknown, entry_mode = "demonstrating_skill") => agent.call("POST", "/api/learn/sessions", { entry_mode, source_trace });
    expectError(await create({ kind: "run", dispatch_id: "no-such-run" }), 404, "RUN_NOT_FOUND");
    expectError(await create({ kind: "learn_session", learn_session_id: randomUUID() }), 404, "LEARN_SESSION_NOT_FOUND");
    expectError(await create({ kind: "receipt", receipt_id: randomUUID() }), 404, "RECEIPT_NOT_FOUND");
    expectError(await create({ kind: "run", dispatch_id: "../../etc" }), 400, "REQUEST_INVALID");
    expectError(await create({ kind: "run", dispatch_id: failedRun.dispatch_id }, "import_skill"), 400, "REQUEST_INVALID");
    expect(await sessionCount()).toBe(before);
    const folders = await readdir(path.join(agent.root, MemoryPaths.observationsRoot));
    expect(folders.length).toBeLessThanOrEqual(before);
  });
});
