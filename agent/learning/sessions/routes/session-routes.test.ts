import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../../../shared/common/error-envelope";
import { LearningRuntimeSnapshotSchema } from "../../../../shared/learning/sessions/runtime-snapshot";
import { ObservationScopeRuntimeSchema } from "../../../../shared/learning/sessions/observation-scope-runtime";
import { LearnSessionSchema, type LearnSession } from "../../../../shared/learning/sessions/learn-session";
import { LearningReceiptSchema } from "../../../../shared/learning/sessions/receipts";
import { MemoryPaths } from "../../../memory/memory-paths";
import { startTestAgent, type TestAgent } from "../../../test-support/test-agent";

let agent: TestAgent;

beforeEach(async () => {
  agent = await startTestAgent();
});
afterEach(async () => {
  await agent.close();
});

type Json = Record<string, unknown>;

async function call(method: "GET" | "POST" | "DELETE", url: string, payload?: unknown, headers: Record<string, string> = {}) {
  const response = await agent.app.inject({ method, url, headers: agent.headers(headers), ...(payload === undefined ? {} : { payload: payload as Json }) });
  return { status: response.statusCode, body: response.json() as Json };
}

function expectError(result: { status: number; body: Json }, status: number, code: string) {
  expect(result.status).toBe(status);
  const envelope = ApiErrorResponseSchema.parse(result.body);
  expect(envelope.error.code).toBe(code);
  return envelope;
}

async function createSession(body: Json = { entry_mode: "demonstrating_skill", observation_mode: "none" }): Promise<LearnSession> {
  const result = await call("POST", "/api/learn/sessions", body);
  expect(result.status).toBe(201);
  return LearnSessionSchema.parse(result.body.session);
}

async function detail(id: string): Promise<LearnSession> {
  const result = await call("GET", `/api/learn/sessions/${id}/detail`);
  expect(result.status).toBe(200);
  return LearnSessionSchema.parse(result.body);
}

async function heartbeat(kind: string, adapterId = `${kind}-1`) {
  return call("POST", "/api/observation/adapters/heartbeat", { adapter_id: adapterId, kind, schema_version: 1 });
}

/** Files of ELNOR_MEMORY that a refused request must leave exactly as they were. */
async function learningFiles() {
  const files = [MemoryPaths.sessions, MemoryPaths.boundaries, MemoryPaths.receipts, MemoryPaths.runtimeCurrent, MemoryPaths.sessionEvents];
  return Promise.all(files.map((file) => agent.memory.readText(file)));
}

describe("creating sessions", () => {
  it("creates an idle session with the spec's defaults and a ui_mode that fits the entry mode", async () => {
    const result = await call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: ["Shop.Example.com"],
    });
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ ui_mode: "overlay", next_action: "wait_for_first_meaningful_event" });
    const session = LearnSessionSchema.parse(result.body.session);
    expect(session).toMatchObject({ state: "idle", build_policy: "build_then_review", execution_mode: "guided", target_kind: "new_skill" });
    expect(session.target_app_whitelist).toEqual(["shop.example.com"]);
  });

  it.each([
    ["coaching_agent", {}, "drawer", "wait_for_first_meaningful_event"],
    ["improving_existing_skill", { target_skill_id: "submit-expense", target_kind: "existing_skill" }, "drawer", "show_skill_delta_editor"],
    ["import_skill", { target_kind: "imported_skill" }, "import", "show_import_configurator"],
  ])("answers %s with the ui_mode and next_action of its entry mode", async (entry_mode, extra, ui_mode, next_action) => {
    const result = await call("POST", "/api/learn/sessions", { entry_mode, ...extra });
    expect(result.body).toMatchObject({ ui_mode: ui_mode, next_action: next_action });
  });

  it("R11.2-06: a second session while the first is capturing → LEARN_SESSION_ALREADY_ACTIVE with the active id", async () => {
    const first = await createSession();
    await call("POST", `/api/learn/sessions/${first.learn_session_id}/start`);
    await call("POST", `/api/learn/sessions/${first.learn_session_id}/mark-step`, { step_label: "Open the form" });
    expect((await detail(first.learn_session_id)).state).toBe("capturing");
    const before = await learningFiles();
    const second = expectError(await call("POST", "/api/learn/sessions", { entry_mode: "coaching_agent" }), 409, "LEARN_SESSION_ALREADY_ACTIVE");
    expect(second.active_session_id).toBe(first.learn_session_id);
    expect(await learningFiles()).toEqual(before);
  });

  it("allows a new session once the previous one is cancelled", async () => {
    const first = await createSession();
    await call("POST", `/api/learn/sessions/${first.learn_session_id}/cancel`);
    await createSession();
  });

  it("rejects a malformed body with REQUEST_INVALID naming the field, and writes nothing", async () => {
    const before = await learningFiles();
    const envelope = expectError(await call("POST", "/api/learn/sessions", { entry_mode: "teach_elnor" }), 400, "REQUEST_INVALID");
    expect(envelope.issues?.some((issue) => issue.path.includes("entry_mode"))).toBe(true);
    expect(await learningFiles()).toEqual(before);
  });

  it("asks for the skill to improve when improving an existing skill", async () => {
    expectError(await call("POST", "/api/learn/sessions", { entry_mode: "improving_existing_skill" }), 400, "REQUEST_INVALID");
  });
});

describe("the session lifecycle", () => {
  it("R11.2-04 (capture part): idle → armed → capturing → paused → capturing → stopped, each with its boundary and receipt", async () => {
    const session = await createSession();
    const id = session.learn_session_id;
    const started = await call("POST", `/api/learn/sessions/${id}/start`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ observation_active: false, adapters_armed: [] });
    expect((await detail(id)).state).toBe("armed");
    // §0A.12: an explicit mark is a meaningful event and starts the capture.
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "Open the order form" });
    expect((await detail(id)).state).toBe("capturing");
    await call("POST", `/api/learn/sessions/${id}/pause`);
    expect((await detail(id)).state).toBe("paused");
    await call("POST", `/api/learn/sessions/${id}/resume`);
    expect((await detail(id)).state).toBe("capturing");
    const stopped = await call("POST", `/api/learn/sessions/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ captured_event_count: 0, next_action: "cancel" });
    const final = await detail(id);
    expect(final.state).toBe("stopped");
    expect(final.start_boundary_ref).toMatch(/^boundary:/);
    expect(final.stop_boundary_ref).toMatch(/^boundary:/);

    const boundaries = await agent.app.learning.sessions.boundaries(id);
    expect(boundaries.map((boundary) => boundary.kind)).toEqual(["start", "mark_step", "pause", "resume", "stop"]);
    expect(boundaries.every((boundary) => boundary.source === "api_call")).toBe(true);
    const receipts = await call("GET", `/api/learn/receipts?session_id=${id}&page_size=100`);
    expect((receipts.body.receipts as Array<{ receipt_kind: string }>).map((receipt) => receipt.receipt_kind).reverse()).toEqual([
      "learn.session.started",
      "learn.capture.armed",
      "learn.capture.started",
      "learn.capture.paused",
      "learn.capture.resumed",
      "learn.capture.stopped",
    ]);
  });

  it("R11.2-05: a transition outside the §0C.1A table → INVALID_LEARN_STATE_TRANSITION, and nothing is written", async () => {
    const session = await createSession();
    const before = await learningFiles();
    expectError(await call("POST", `/api/learn/sessions/${session.learn_session_id}/pause`), 400, "INVALID_LEARN_STATE_TRANSITION");
    expectError(await call("POST", `/api/learn/sessions/${session.learn_session_id}/resume`), 400, "INVALID_LEARN_STATE_TRANSITION");
    expectError(await call("POST", `/api/learn/sessions/${session.learn_session_id}/stop`), 400, "INVALID_LEARN_STATE_TRANSITION");
    expect(await learningFiles()).toEqual(before);
  });

  it("R11.2-07: resume moves a paused session back to capturing", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-goal`, { goal_description: "Submit an expense" });
    await call("POST", `/api/learn/sessions/${id}/pause`);
    const resumed = await call("POST", `/api/learn/sessions/${id}/resume`);
    expect(LearnSessionSchema.parse(resumed.body.session).state).toBe("capturing");
  });

  it("R11.2-08: mark-goal during capturing records a mark_goal boundary with the goal", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "first" });
    await call("POST", `/api/learn/sessions/${id}/mark-goal`, { goal_description: "Expense submitted for approval" }, { "x-boundary-source": "hotkey" });
    const goal = (await agent.app.learning.sessions.boundaries(id)).find((boundary) => boundary.kind === "mark_goal");
    expect(goal).toMatchObject({ label: "Expense submitted for approval", source: "hotkey" });
  });

  it("R11.2-09: mark-step during capturing records a mark_step boundary with the label", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "Fill the amount", step_kind_hint: "action" });
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "Totals match", step_kind_hint: "verification" });
    const steps = (await agent.app.learning.sessions.boundaries(id)).filter((boundary) => boundary.kind === "mark_step");
    expect(steps.map((step) => step.label)).toEqual(["action: Fill the amount", "verification: Totals match"]);
  });

  it("R11.2-10: trim moves the session's boundary refs to the given event", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "go" });
    const eventIds = ["0b0f3c1e-6a44-4c1b-9f1e-2f7c8d9e0a11", "1c1f3c1e-6a44-4c1b-9f1e-2f7c8d9e0a12", "2d2f3c1e-6a44-4c1b-9f1e-2f7c8d9e0a13"];
    for (const event_id of eventIds) await agent.memory.append(MemoryPaths.observationEvents(id), { event_id });
    await call("POST", `/api/learn/sessions/${id}/stop`);
    const start = await call("POST", `/api/learn/sessions/${id}/trim`, { trim_kind: "trim_start", to_event_id: eventIds[1] });
    expect(start.status).toBe(200);
    const end = await call("POST", `/api/learn/sessions/${id}/trim`, { trim_kind: "trim_end", to_event_id: eventIds[2] });
    expect(LearnSessionSchema.parse(end.body.session)).toMatchObject({
      start_boundary_ref: `event:${eventIds[1]}`,
      stop_boundary_ref: `event:${eventIds[2]}`,
    });
    const kinds = (await agent.app.learning.sessions.boundaries(id)).map((boundary) => boundary.kind);
    expect(kinds.slice(-2)).toEqual(["trim_start", "trim_end"]);
    expectError(
      await call("POST", `/api/learn/sessions/${id}/trim`, { trim_kind: "trim_end", to_event_id: "3e3f3c1e-6a44-4c1b-9f1e-2f7c8d9e0a14" }),
      400,
      "REQUEST_INVALID",
    );
  });

  it("answers CAPTURE_ALREADY_STOPPED for a stop on a stopped session", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "go" });
    await call("POST", `/api/learn/sessions/${id}/stop`);
    const before = await learningFiles();
    expectError(await call("POST", `/api/learn/sessions/${id}/stop`), 409, "CAPTURE_ALREADY_STOPPED");
    expect(await learningFiles()).toEqual(before);
  });

  it("R11.2-16: cancel emits a learn.session.cancelled receipt with the reason", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/cancel`, { reason: "changed my mind" });
    expect((await detail(id)).state).toBe("cancelled");
    const receipts = await call("GET", `/api/learn/receipts?session_id=${id}`);
    expect(receipts.body.receipts).toEqual(
      expect.arrayContaining([expect.objectContaining({ receipt_kind: "learn.session.cancelled", reason: "changed my mind" })]),
    );
    expectError(await call("POST", `/api/learn/sessions/${id}/cancel`), 400, "INVALID_LEARN_STATE_TRANSITION");
  });

  it("answers LEARN_SESSION_NOT_FOUND for an unknown id and REQUEST_INVALID for a malformed one", async () => {
    expectError(await call("GET", "/api/learn/sessions/5b3a1f0e-2c4d-4e6f-8a9b-0c1d2e3f4a5b/detail"), 404, "LEARN_SESSION_NOT_FOUND");
    expectError(await call("POST", "/api/learn/sessions/5b3a1f0e-2c4d-4e6f-8a9b-0c1d2e3f4a5b/start"), 404, "LEARN_SESSION_NOT_FOUND");
    expectError(await call("GET", "/api/learn/sessions/..%2F..%2Fagent/detail"), 400, "REQUEST_INVALID");
  });

  it("stores a test policy and points the session at it", async () => {
    const { learn_session_id: id } = await createSession();
    const policy = { policy_id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", mode: "dry_run_only", allowed_domains: ["shop.example.com"], schema_version: 1 };
    const result = await call("POST", `/api/learn/sessions/${id}/set-test-policy`, { test_policy: policy });
    expect(LearnSessionSchema.parse(result.body.session).test_policy_ref).toBe(`test_policy:${policy.policy_id}`);
    expectError(await call("POST", `/api/learn/sessions/${id}/set-test-policy`, { test_policy: { ...policy, max_actions: 500 } }), 400, "REQUEST_INVALID");
  });

  it("refuses answers outside awaiting_questions", async () => {
    const { learn_session_id: id } = await createSession();
    expectError(
      await call("POST", `/api/learn/sessions/${id}/answer-questions`, { answers: [{ question_id: "q1", answer_text: "yes" }] }),
      400,
      "INVALID_LEARN_STATE_TRANSITION",
    );
  });

  it("lists sessions newest first with pagination", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const session = await createSession();
      ids.push(session.learn_session_id);
      await call("POST", `/api/learn/sessions/${session.learn_session_id}/cancel`);
    }
    const first = await call("GET", "/api/learn/sessions?page=1&page_size=2");
    expect(first.body).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect((first.body.sessions as LearnSession[]).map((session) => session.learn_session_id)).toEqual([ids[2], ids[1]]);
    const second = await call("GET", "/api/learn/sessions?page=2&page_size=2");
    expect((second.body.sessions as LearnSession[]).map((session) => session.learn_session_id)).toEqual([ids[0]]);
    expectError(await call("GET", "/api/learn/sessions?page_size=1000"), 400, "REQUEST_INVALID");
  });

  it("shows every session in history with its outcome", async () => {
    const done = await createSession();
    await call("POST", `/api/learn/sessions/${done.learn_session_id}/cancel`);
    const open = await createSession();
    const history = await call("GET", "/api/learn/history");
    expect(history.body.items).toEqual([
      expect.objectContaining({ learn_session_id: open.learn_session_id, outcome: "in_progress" }),
      expect.objectContaining({ learn_session_id: done.learn_session_id, outcome: "cancelled" }),
    ]);
  });
});

describe("observation start rules", () => {
  it("needs a connected browser extension to observe web sites, else ADAPTER_UNAVAILABLE (503)", async () => {
    const { learn_session_id: id } = await createSession({
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: ["shop.example.com"],
    });
    const before = await learningFiles();
    const envelope = expectError(await call("POST", `/api/learn/sessions/${id}/start`), 503, "ADAPTER_UNAVAILABLE");
    expect(envelope.error.retryable).toBe(true);
    expect(await learningFiles()).toEqual(before);
    await heartbeat("browser_dom");
    const started = await call("POST", `/api/learn/sessions/${id}/start`);
    expect(started.body).toMatchObject({ observation_active: true, adapters_armed: ["browser_dom"] });
    const scope = ObservationScopeRuntimeSchema.parse((await call("GET", `/api/learn/sessions/${id}/observation-scope`)).body);
    expect(scope).toMatchObject({ adapters_active: ["browser_dom"], scope: "outside_agent", target_app_whitelist: ["shop.example.com"] });
  });

  it("does not accept a desktop adapter for a web target", async () => {
    const { learn_session_id: id } = await createSession({ entry_mode: "demonstrating_skill", observation_mode: "mixed", target_app_family: "browser" });
    await heartbeat("terminal_command");
    expectError(await call("POST", `/api/learn/sessions/${id}/start`), 503, "ADAPTER_UNAVAILABLE");
  });

  it("needs a desktop adapter for a desktop app", async () => {
    const { learn_session_id: id } = await createSession({
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "terminal",
    });
    expectError(await call("POST", `/api/learn/sessions/${id}/start`), 503, "ADAPTER_UNAVAILABLE");
    await heartbeat("terminal_command");
    expect((await call("POST", `/api/learn/sessions/${id}/start`)).body).toMatchObject({ adapters_armed: ["terminal_command"] });
  });

  it("R11.2-44: a Phase 2 adapter requested → ADAPTER_UNAVAILABLE naming it and the Phase 1 alternative", async () => {
    const { learn_session_id: id } = await createSession();
    const envelope = expectError(
      await call("POST", `/api/learn/sessions/${id}/start`, { adapters_requested: ["keyboard_shortcut"] }),
      503,
      "ADAPTER_UNAVAILABLE",
    );
    expect(envelope.error.message).toContain("keyboard_shortcut");
    expect(envelope.error.message).toContain("browser_dom");
    expect((await detail(id)).state).toBe("idle");
  });

  it("counts an adapter as unhealthy once its heartbeats stop", async () => {
    await heartbeat("browser_dom");
    const listed = await call("GET", "/api/observation/adapters");
    expect(listed.body.adapters).toEqual([expect.objectContaining({ kind: "browser_dom", healthy: true, phase: "phase_1" })]);
    await heartbeat("midi");
    const midi = (await call("GET", "/api/observation/adapters")).body.adapters as Array<{ kind: string; healthy: boolean }>;
    expect(midi.find((adapter) => adapter.kind === "midi")?.healthy).toBe(false);
  });
});

describe("runtime truth", () => {
  it("after a restart, runtime/current.json lists the current session's last ten receipts, read from the end of the log (issue 17)", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "Open the order form" });
    for (let round = 0; round < 6; round += 1) {
      for (const step of ["pause", "resume"]) expect((await call("POST", `/api/learn/sessions/${id}/${step}`)).status).toBe(200);
    }
    const mine = (await agent.memory.readJsonl(MemoryPaths.receipts, LearningReceiptSchema)).filter((receipt) => receipt.learn_session_id === id);
    expect(mine.length).toBeGreaterThan(10);
    const before = LearningRuntimeSnapshotSchema.parse((await call("GET", "/api/learn/runtime/current")).body);
    await agent.restart();
    const after = LearningRuntimeSnapshotSchema.parse((await call("GET", "/api/learn/runtime/current")).body);
    expect(after.learn_session_id).toBe(id);
    expect(after.latest_receipt_ids).toEqual(mine.slice(-10).map((receipt) => receipt.receipt_id));
    expect(after.latest_receipt_ids).toEqual(before.latest_receipt_ids);
  });

  it("keeps runtime/current.json equal to the session detail after every change", async () => {
    const { learn_session_id: id } = await createSession();
    for (const step of ["start", "mark-step", "pause", "resume", "stop", "cancel"]) {
      const body = step === "mark-step" ? { step_label: "x" } : undefined;
      await call("POST", `/api/learn/sessions/${id}/${step}`, body);
      const snapshot = LearningRuntimeSnapshotSchema.parse((await call("GET", "/api/learn/runtime/current")).body);
      const session = await detail(id);
      expect(snapshot).toMatchObject({
        learn_session_id: id,
        state: session.state,
        entry_mode: session.entry_mode,
        observation_mode: session.observation_mode,
      });
      expect(snapshot.latest_receipt_ids.length).toBeGreaterThan(0);
    }
  });

  it("reads the same truth back from files after an agent restart", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "x" });
    const before = await detail(id);
    const runtimeBefore = await agent.memory.readText(MemoryPaths.runtimeCurrent);
    await agent.restart();
    expect(await detail(id)).toEqual(before);
    const snapshot = LearningRuntimeSnapshotSchema.parse((await call("GET", "/api/learn/runtime/current")).body);
    expect(snapshot.state).toBe("capturing");
    expect(JSON.parse(runtimeBefore ?? "{}").learn_session_id).toBe(snapshot.learn_session_id);
    expect(
      expectError(await call("POST", "/api/learn/sessions", { entry_mode: "coaching_agent" }), 409, "LEARN_SESSION_ALREADY_ACTIVE").active_session_id,
    ).toBe(id);
  });
});

describe("deleting a session", () => {
  it("purges its observations at once and forgets it (privacy rule 7)", async () => {
    const { learn_session_id: id } = await createSession();
    await call("POST", `/api/learn/sessions/${id}/start`);
    await call("POST", `/api/learn/sessions/${id}/mark-step`, { step_label: "x" });
    await agent.memory.append(MemoryPaths.observationEvents(id), { event_id: "0b0f3c1e-6a44-4c1b-9f1e-2f7c8d9e0a11" });
    await call("POST", `/api/learn/sessions/${id}/stop`);
    const deleted = await call("DELETE", `/api/learn/sessions/${id}`);
    expect(deleted).toEqual({ status: 200, body: { deleted: true } });
    expect(await agent.memory.exists(MemoryPaths.observationFolder(id))).toBe(false);
    expectError(await call("GET", `/api/learn/sessions/${id}/detail`), 404, "LEARN_SESSION_NOT_FOUND");
    await agent.restart();
    expectError(await call("GET", `/api/learn/sessions/${id}/detail`), 404, "LEARN_SESSION_NOT_FOUND");
    await createSession();
  });
});
