import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import { canonicalJson, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { agentLoggerOptions, buildApp, type AgentApp } from "../../test-support/test-agent";
import { openMemoryStore, type MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { makeTempMemoryRoot } from "../../test-support/temp-memory";
import { memoryText } from "../../test-support/memory-text";

/** The site the demonstration was "recorded" on; `broken` removes the button, as a site redesign would. */
let site: http.Server;
let origin: string;
let broken = false;
const PAGE = (withButton: boolean) => `<!doctype html><html><head><title>Invoices</title></head><body><h1>Invoices</h1>
<label>Note <input id="note" name="note"></label>
${withButton ? `<button id="export" onclick="document.getElementById('s').textContent='Export ready'">Export</button>` : ""}
<div role="status" id="s"></div></body></html>`;

beforeAll(async () => {
  site = http.createServer((_request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(PAGE(!broken));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => {
  site.close();
});

let app: AgentApp;
let memory: MemoryStore;
let cleanup: () => Promise<void>;
let root: string;
let token: string;

async function boot(chromiumPath?: string) {
  const temp = await makeTempMemoryRoot();
  cleanup = temp.cleanup;
  root = temp.root;
  memory = await openMemoryStore({ root });
  app = await buildApp({ memory, port: 47999, logger: agentLoggerOptions("silent"), ...(chromiumPath === undefined ? {} : { chromiumPath }) });
  await app.ready();
  token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
}
afterEach(async () => {
  broken = false;
  await app.close();
  await memory.close();
  await cleanup();
});

async function call(method: "GET" | "POST", url: string, payload?: unknown) {
  const response = await app.inject({
    method,
    url,
    headers: { host: "127.0.0.1:47999", authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: response.statusCode, body: response.json() as Record<string, any> };
}

const snapshot = (status: string[]): PageSnapshot => ({
  url: `${origin}/invoices`,
  title: "Invoices",
  headings: [{ level: 1, text: "Invoices" }],
  landmarks: [],
  dialogs: [],
  forms: [],
  buttons: ["Export"],
  links: [],
  status_messages: status,
  schema_version: 1,
});
const sha = (page: PageSnapshot) => createHash("sha256").update(canonicalJson(page)).digest("hex");

/** A demonstration on the site (a note typed, Export clicked, "Export ready" shown) compiled to a proposal ready for review. */
async function readyProposal(policy?: Record<string, unknown>): Promise<{ sessionId: string; proposalId: string }> {
  const sessionId = (await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" })).body.session.learn_session_id as string;
  if (policy !== undefined)
    await call("POST", `/api/learn/sessions/${sessionId}/set-test-policy`, { test_policy: { policy_id: randomUUID(), schema_version: 1, ...policy } });
  await call("POST", `/api/learn/sessions/${sessionId}/start`);
  await call("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: "Export the invoice list" });
  const before = snapshot([]);
  const after = snapshot(["Export ready"]);
  const base = { learn_session_id: sessionId, adapter_kind: "browser_dom", app_family: "browser", redaction_mode: "mask_text", schema_version: 1 };
  const detail = { page_url: `${origin}/invoices`, page_title: "Invoices" };
  const events = [
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Note'",
      created_at: new Date(Date.now() + 1).toISOString(),
      browser_detail: {
        ...detail,
        target_name: "Note",
        target_role: "textbox",
        target_tag: "input",
        selectors: [["#note"], ["aria/Note"]],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "short" },
      },
    },
    // The first selector alternative is stale (the site renamed it); the rehearsal must fall back.
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Export'",
      created_at: new Date(Date.now() + 2).toISOString(),
      before_state_ref: `snapshot:${sha(before)}`,
      after_state_ref: `snapshot:${sha(after)}`,
      browser_detail: { ...detail, target_name: "Export", target_role: "button", selectors: [["#export-old"], ["#export"]], dom_event_kind: "click" },
    },
  ];
  await call("POST", "/api/observations/events", {
    batch_id: randomUUID(),
    events,
    snapshots: [before, after].map((page) => ({ sha256: sha(page), learn_session_id: sessionId, snapshot: page })),
    schema_version: 1,
  });
  await call("POST", `/api/learn/sessions/${sessionId}/stop`);
  const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
  expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("ready_for_review");
  return { sessionId, proposalId };
}

const LIVE = { mode: "live_read_safe_write", allowed_domains: ["127.0.0.1"] };

describe("validation with a real rehearsal", () => {
  it("passes lint, trigger tests and a rehearsal in Chromium, saying which selector resolved, and records checkpoint receipts", async () => {
    await boot();
    const { sessionId, proposalId } = await readyProposal(LIVE);
    const canary = `CANARY-test-value-${randomUUID()}`;
    const validated = await call("POST", `/api/learn/proposals/${proposalId}/validate`, { test_values: { note: canary }, schema_version: 1 });
    expect(validated.status, JSON.stringify(validated.body)).toBe(200);
    expect(validated.body.validation_run).toMatchObject({ run_kind: "rehearsal", overall_result: "passed" });
    const runs = await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`);
    const steps = runs.body.steps as Array<{ test_case_id: string; result: string; details?: string }>;
    expect(steps.filter((step) => step.test_case_id.startsWith("trigger:")).length).toBeGreaterThanOrEqual(9);
    expect(steps.every((step) => step.result === "passed")).toBe(true);
    const click = steps.find((step) => step.test_case_id.startsWith("rehearsal:") && step.details?.includes("#export"));
    expect(click?.details).toMatch(/alternative 2|#export/);
    expect(steps.find((step) => step.test_case_id === "checkpoint:cp-01")).toMatchObject({ result: "passed" });
    const receipts = await call("GET", `/api/learn/sessions/${sessionId}/checkpoint-receipts`);
    expect(receipts.body.receipts).toEqual([expect.objectContaining({ checkpoint_id: "cp-01", status: "reached" })]);
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("ready_for_review");
    // The test value was typed into the page, never stored.
    expect(await memoryText(root)).not.toContain(canary);
  }, 60_000);

  it("R11.2-15: a failed rehearsal keeps its results and sends the proposal back to drafting; a revision brings it back to review", async () => {
    await boot();
    const { sessionId, proposalId } = await readyProposal(LIVE);
    broken = true;
    const validated = await call("POST", `/api/learn/proposals/${proposalId}/validate`, { test_values: { note: "x" }, schema_version: 1 });
    expect(validated.body.validation_run.overall_result).toBe("failed");
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("drafting_proposal");
    const runs = await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`);
    expect((runs.body.steps as Array<{ result: string }>).some((step) => step.result === "failed")).toBe(true);
    const revised = await call("POST", `/api/learn/proposals/${proposalId}/revise`, {
      revision_instructions: "The site changed; keep the goal",
      edited_fields: {},
    });
    expect(revised.body.proposal.proposal_state).toBe("ready_for_review");
  }, 60_000);

  it("never reports passed without Chromium: the rehearsal is skipped with the reason and the run is partial", async () => {
    await boot("/nonexistent/chromium");
    const { proposalId } = await readyProposal(LIVE);
    const validated = await call("POST", `/api/learn/proposals/${proposalId}/validate`, { test_values: { note: "x" }, schema_version: 1 });
    expect(validated.body.validation_run.overall_result).toBe("partial");
    const steps = (await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`)).body.steps as Array<{
      test_case_id: string;
      result: string;
      details?: string;
    }>;
    expect(steps.find((step) => step.result === "skipped")?.details).toMatch(/Chromium/i);
  });

  it("answers TEST_POLICY_VIOLATION when the flow leaves the allowed domains, and keeps the failed run", async () => {
    await boot();
    const { proposalId } = await readyProposal({ mode: "live_read_safe_write", allowed_domains: ["shop.example.com"] });
    const validated = await call("POST", `/api/learn/proposals/${proposalId}/validate`, { test_values: { note: "x" }, schema_version: 1 });
    expect(validated.status).toBe(400);
    expect(ApiErrorResponseSchema.parse(validated.body).error.code).toBe("TEST_POLICY_VIOLATION");
    const runs = await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`);
    expect(runs.body.runs).toEqual([expect.objectContaining({ overall_result: "failed" })]);
  }, 60_000);

  it("refuses to install while a validation runs (VALIDATION_IN_PROGRESS)", async () => {
    await boot();
    const { sessionId, proposalId } = await readyProposal(LIVE);
    const running = call("POST", `/api/learn/proposals/${proposalId}/validate`, { test_values: { note: "x" }, schema_version: 1 });
    // Wait until the run is under way (the session is testing), not a fixed time: a busy machine is slower.
    await vi.waitFor(async () => expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state).toBe("testing_proposal"), {
      timeout: 20_000,
      interval: 20,
    });
    const install = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(ApiErrorResponseSchema.parse(install.body).error.code).toBe("VALIDATION_IN_PROGRESS");
    expect((await running).status).toBe(200);
  }, 60_000);
});
