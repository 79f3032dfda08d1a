import { createHash, randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { ObservationScopeRuntimeSchema } from "../../shared/learning/sessions/observation-scope-runtime";
import { AgentFrameSchema, ObservationBatchAckSchema, type AgentFrame } from "../../shared/observation/capture-protocol";
import { canonicalJson, type PageSnapshot } from "../../shared/observation/page-snapshot";
import { openMemoryStore, type MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { agentLoggerOptions, buildApp, startTestAgent, type AgentApp, type TestAgent } from "../test-support/test-agent";
import { makeTempMemoryRoot } from "../test-support/temp-memory";

const SITE = "http://127.0.0.1:8123";

function domEvent(sessionId: string, overrides: Record<string, unknown> = {}, detail: Record<string, unknown> = {}) {
  return {
    event_id: randomUUID(),
    learn_session_id: sessionId,
    adapter_kind: "browser_dom",
    app_family: "browser",
    action_label: "Click 'Place order'",
    redaction_mode: "mask_text",
    created_at: new Date().toISOString(),
    schema_version: 1,
    browser_detail: {
      page_url: `${SITE}/checkout?step=*`,
      target_role: "button",
      target_name: "Place order",
      selectors: [['aria/Place order[role="button"]'], ["#place"]],
      dom_event_kind: "click",
      ...detail,
    },
    ...overrides,
  };
}

function snapshot(title: string): PageSnapshot {
  return {
    url: `${SITE}/checkout`,
    title,
    headings: [{ level: 1, text: title }],
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: ["Place order"],
    links: [],
    status_messages: [],
    schema_version: 1,
  };
}

function upload(sessionId: string, page: PageSnapshot) {
  return { sha256: createHash("sha256").update(canonicalJson(page)).digest("hex"), learn_session_id: sessionId, snapshot: page };
}

describe("POST /api/observations/events", () => {
  let agent: TestAgent;
  let sessionId: string;

  async function post(events: unknown[], snapshots: unknown[] = []) {
    const response = await agent.app.inject({
      method: "POST",
      url: "/api/observations/events",
      headers: agent.headers(),
      payload: { batch_id: randomUUID(), events, snapshots, schema_version: 1 },
    });
    expect(response.statusCode, response.body).toBe(200);
    return ObservationBatchAckSchema.parse(response.json());
  }
  const call = (method: "POST" | "GET" | "PUT", url: string, payload?: Record<string, unknown>) =>
    agent.app.inject({ method, url, headers: agent.headers(), ...(payload === undefined ? {} : { payload }) });

  beforeEach(async () => {
    agent = await startTestAgent();
    await call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "ext", kind: "browser_dom", schema_version: 1 });
    const created = await call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: [SITE],
    });
    sessionId = created.json().session.learn_session_id;
    await call("POST", `/api/learn/sessions/${sessionId}/start`);
  });
  afterEach(async () => {
    await agent.close();
  });

  it("stores a valid event durably, and the first meaningful one starts the capture", async () => {
    const event = domEvent(sessionId);
    const ack = await post([event]);
    expect(ack.accepted).toEqual([event.event_id]);
    const stored = await agent.memory.readText(MemoryPaths.observationEvents(sessionId));
    expect(stored).toContain(event.event_id);
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).json().state).toBe("capturing");
  });

  it("does not start the capture on a page load alone (§0A.12)", async () => {
    const ack = await post([domEvent(sessionId, { action_label: "Open 'Checkout'" }, { dom_event_kind: "navigation" })]);
    expect(ack.accepted).toHaveLength(1);
    expect((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).json().state).toBe("armed");
  });

  it("de-duplicates a resent event by event_id, within a batch and across batches", async () => {
    const event = domEvent(sessionId);
    const first = await post([event, event]);
    expect(first.accepted).toEqual([event.event_id]);
    expect(first.duplicates).toEqual([event.event_id]);
    const again = await post([event]);
    expect(again.duplicates).toEqual([event.event_id]);
    const lines = (await agent.memory.readText(MemoryPaths.observationEvents(sessionId)))?.trim().split("\n");
    expect(lines).toHaveLength(1);
  });

  it("rejects a bad event with a coded reason and keeps the good ones of the same batch", async () => {
    const good = domEvent(sessionId);
    const bad = { ...domEvent(sessionId), action_label: 42 };
    const ack = await post([bad, good]);
    expect(ack.accepted).toEqual([good.event_id]);
    expect(ack.rejected).toEqual([expect.objectContaining({ index: 0, event_id: bad.event_id, code: "REQUEST_INVALID" })]);
    expect(ack.rejected[0]?.reason).toContain("action_label");
  });

  it("drops and counts events from sites not on the allow-list", async () => {
    const foreign = domEvent(sessionId, {}, { page_url: "https://evil.example/steal" });
    const ack = await post([foreign, domEvent(sessionId)]);
    expect(ack.dropped_off_target).toEqual([foreign.event_id]);
    const scope = ObservationScopeRuntimeSchema.parse((await call("GET", `/api/learn/sessions/${sessionId}/observation-scope`)).json());
    expect(scope.off_target_events_dropped).toBe(1);
    expect(await agent.memory.readText(MemoryPaths.observationEvents(sessionId))).not.toContain(foreign.event_id);
  });

  it("takes terminal commands in a session that watches this computer and a site, still drops other sites, and needs both adapters to start", async () => {
    await call("POST", `/api/learn/sessions/${sessionId}/cancel`, { reason: "next test" });
    const body = { entry_mode: "demonstrating_skill", observation_mode: "outside_agent", target_app_family: "desktop", target_app_whitelist: [SITE] };
    const mixed = (await call("POST", "/api/learn/sessions", body)).json().session.learn_session_id as string;
    // Only the extension is connected: the terminal half has no adapter yet.
    const noTerminal = await call("POST", `/api/learn/sessions/${mixed}/start`);
    expect(noTerminal.statusCode).toBe(503);
    expect(noTerminal.json().error.message).toContain("desktop observation adapter");
    // Only the terminal adapter: the sites have no extension.
    await call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "cli", kind: "terminal_command", schema_version: 1 });
    await call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "ext", kind: "browser_dom", enabled: false, schema_version: 1 });
    const noExtension = await call("POST", `/api/learn/sessions/${mixed}/start`);
    expect(noExtension.statusCode).toBe(503);
    expect(noExtension.json().error.message).toContain("No browser extension");
    await call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "ext", kind: "browser_dom", schema_version: 1 });
    const started = await call("POST", `/api/learn/sessions/${mixed}/start`);
    expect(started.statusCode, started.body).toBe(200);
    const command = {
      event_id: randomUUID(),
      learn_session_id: mixed,
      adapter_kind: "terminal_command",
      app_family: "git",
      action_label: "Run 'git status'",
      redaction_mode: "mask_text",
      created_at: new Date().toISOString(),
      schema_version: 1,
      desktop_detail: { program: "git", args: ["status"], exit_code: 0 },
    };
    const foreign = domEvent(mixed, {}, { page_url: "https://evil.example/steal" });
    const ack = await post([command, foreign, domEvent(mixed)]);
    expect(ack.accepted).toContain(command.event_id);
    expect(ack.accepted).toHaveLength(2);
    expect(ack.dropped_off_target).toEqual([foreign.event_id]);
  });

  it("refuses URLs with a secret left raw or credentials, and typed values without consent", async () => {
    const leakyToken = domEvent(sessionId, {}, { page_url: `${SITE}/doku.php?id=start&sectok=9a8b7c6d5e` });
    const leakyCredentials = domEvent(sessionId, {}, { page_url: "http://user:pw@127.0.0.1:8123/" });
    const leakyEmail = domEvent(sessionId, {}, { page_url: `${SITE}/profile?user=alice%40example.com` });
    const leakyValue = domEvent(
      sessionId,
      { action_label: "Fill 'Notes'" },
      { dom_event_kind: "change", masked_field: { masked: false, value: "typed text" } },
    );
    const leakySnapshot = upload(sessionId, { ...snapshot("Callback"), url: `${SITE}/callback#access_token=ya29abc` });
    const ack = await post([leakyToken, leakyCredentials, leakyEmail, leakyValue], [leakySnapshot]);
    expect(ack.rejected.map((entry) => entry.code)).toEqual([
      "OBSERVATION_NOT_MASKED",
      "OBSERVATION_NOT_MASKED",
      "OBSERVATION_NOT_MASKED",
      "OBSERVATION_NOT_MASKED",
    ]);
    expect(ack.accepted).toEqual([]);
    expect(ack.snapshots_rejected).toEqual([expect.objectContaining({ index: 0 })]);
  });

  it("accepts an address that keeps what routes, names typed values by their reference and masks its secrets (issue #35)", async () => {
    const routed = domEvent(sessionId, {}, { page_url: `${SITE}/doku.php?id=start&do=login` });
    const typed = domEvent(sessionId, {}, { page_url: `${SITE}/doku.php?id=*typed-0123456789ab*&do=edit&sectok=*#/page/*typed-0123456789ab*?tab=history` });
    const page = upload(sessionId, { ...snapshot("Edit"), url: `${SITE}/doku.php?id=*typed-0123456789ab*&do=edit` });
    const ack = await post([routed, typed], [page]);
    expect(ack.accepted).toEqual([routed.event_id, typed.event_id]);
    expect(ack.snapshots_stored).toEqual([page.sha256]);
  });

  it("accepts a typed value once the user consented to recording text for the session, and records the consent", async () => {
    const refused = await call("PUT", `/api/learn/sessions/${sessionId}/redaction`, { text_entry: "none" });
    expect(refused.statusCode).toBe(400);
    const consented = await call("PUT", `/api/learn/sessions/${sessionId}/redaction`, { text_entry: "none", consent: true });
    expect(consented.json().redaction_modes).toEqual({ text_entry: "none" });
    const event = domEvent(
      sessionId,
      { redaction_mode: "none", action_label: "Fill 'Notes'" },
      { dom_event_kind: "change", masked_field: { masked: false, value: "hello" } },
    );
    expect((await post([event])).accepted).toEqual([event.event_id]);
    const receipts = (await call("GET", `/api/learn/receipts?session_id=${sessionId}`)).json().receipts as Array<{ receipt_kind: string }>;
    expect(receipts.some((receipt) => receipt.receipt_kind === "learn.capture.redaction_set")).toBe(true);
  });

  it("refuses and counts events for a paused session", async () => {
    await post([domEvent(sessionId)]);
    await call("POST", `/api/learn/sessions/${sessionId}/pause`);
    const late = domEvent(sessionId);
    const ack = await post([late]);
    expect(ack.refused).toEqual([late.event_id]);
    expect(await agent.memory.readText(MemoryPaths.observationEvents(sessionId))).not.toContain(late.event_id);
  });

  it("keeps an event made before Pause but delivered after it (lossless delivery)", async () => {
    await post([domEvent(sessionId)]);
    const madeBeforePause = domEvent(sessionId, { created_at: new Date(Date.now() - 1000).toISOString() });
    await call("POST", `/api/learn/sessions/${sessionId}/pause`);
    const ack = await post([madeBeforePause]);
    expect(ack.accepted).toEqual([madeBeforePause.event_id]);
  });

  it("stores snapshots content-addressed and computes caused_state_change from the refs", async () => {
    const before = upload(sessionId, snapshot("Checkout"));
    const after = upload(sessionId, snapshot("Order placed"));
    const changed = domEvent(sessionId, {
      before_state_ref: `snapshot:${before.sha256}`,
      after_state_ref: `snapshot:${after.sha256}`,
      caused_state_change: false,
    });
    const same = domEvent(sessionId, { before_state_ref: `snapshot:${after.sha256}`, after_state_ref: `snapshot:${after.sha256}`, caused_state_change: true });
    const ack = await post([changed, same], [before, after, { ...after, sha256: "0".repeat(64) }]);
    expect(ack.snapshots_stored).toEqual([before.sha256, after.sha256]);
    expect(ack.snapshots_rejected).toEqual([expect.objectContaining({ index: 2 })]);
    expect(await agent.memory.exists(MemoryPaths.observationSnapshot(sessionId, before.sha256))).toBe(true);
    const stored = (await agent.memory.readText(MemoryPaths.observationEvents(sessionId)))
      ?.trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event_id: string; caused_state_change: boolean });
    expect(stored?.find((event) => event.event_id === changed.event_id)?.caused_state_change).toBe(true);
    expect(stored?.find((event) => event.event_id === same.event_id)?.caused_state_change).toBe(false);
  });

  it("never writes an observation body to the log", async () => {
    const canary = "CANARY-observed-9d1e";
    await post([domEvent(sessionId, { action_label: `Fill '${canary}'` })]);
    expect(agent.logs.join("")).not.toContain(canary);
  });
});

describe("the observation WebSocket", () => {
  let app: AgentApp;
  let memory: MemoryStore;
  let cleanup: () => Promise<void>;
  let base: string;
  let token: string;

  beforeEach(async () => {
    const temp = await makeTempMemoryRoot();
    cleanup = temp.cleanup;
    memory = await openMemoryStore({ root: temp.root });
    app = await buildApp({ memory, port: 0, logger: agentLoggerOptions("silent") });
    base = (await app.listen({ host: "127.0.0.1", port: 0 })).replace("http", "ws");
    token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
  });
  afterEach(async () => {
    await app.close();
    await memory.close();
    await cleanup();
  });

  function connect(headers: Record<string, string> = {}) {
    const socket = new WebSocket(`${base}/api/observations/stream`, { headers });
    const frames: AgentFrame[] = [];
    const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
    socket.on("message", (data) => frames.push(AgentFrameSchema.parse(JSON.parse(data.toString()))));
    const opened = new Promise<void>((resolve, reject) => {
      socket.on("open", () => resolve());
      socket.on("error", reject);
    });
    const next = async (type: AgentFrame["type"]) => {
      for (let i = 0; i < 100; i += 1) {
        const found = frames.find((frame) => frame.type === type);
        if (found !== undefined) {
          frames.splice(frames.indexOf(found), 1);
          return found;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no ${type} frame; got ${JSON.stringify(frames)}`);
    };
    return { socket, frames, closed, opened, next };
  }

  const http = (method: string, path: string, body?: unknown) =>
    fetch(`${base.replace("ws", "http")}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then((response) => response.json() as Promise<Record<string, any>>);

  it("closes a socket whose first frame lacks the right token", async () => {
    const client = connect();
    await client.opened;
    client.socket.send(JSON.stringify({ type: "hello", token: "wrong", adapter_id: "ext", adapter_kinds: ["browser_dom"], schema_version: 1 }));
    expect(await client.closed).toBe(4401);
  });

  it("refuses the upgrade from a web page Origin", async () => {
    const client = connect({ origin: "https://evil.example" });
    await expect(client.opened).rejects.toThrow(/403/);
  });

  it("welcomes the extension, counts it as a healthy adapter, acks batches, and pushes session changes", async () => {
    const client = connect();
    await client.opened;
    client.socket.send(JSON.stringify({ type: "hello", token, adapter_id: "ext", adapter_kinds: ["browser_dom", "browser_snapshot"], schema_version: 1 }));
    const welcome = await client.next("welcome");
    expect(welcome).toMatchObject({ type: "welcome", session: null });
    const adapters = await http("GET", "/api/observation/adapters");
    expect(
      adapters.adapters
        .filter((adapter: { healthy: boolean }) => adapter.healthy)
        .map((adapter: { kind: string }) => adapter.kind)
        .sort(),
    ).toEqual(["browser_dom", "browser_snapshot"]);

    const created = await http("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: [SITE],
    });
    const id = created.session.learn_session_id as string;
    expect(await client.next("session")).toMatchObject({ session: { learn_session_id: id, state: "idle" } });
    await http("POST", `/api/learn/sessions/${id}/start`);
    expect(await client.next("session")).toMatchObject({
      session: { state: "armed", target_app_whitelist: [SITE], redaction_modes: { text_entry: "mask_text" } },
    });

    const event = domEvent(id);
    client.socket.send(JSON.stringify({ type: "batch", batch: { batch_id: randomUUID(), events: [event], snapshots: [], schema_version: 1 } }));
    const ack = await client.next("ack");
    expect(ack).toMatchObject({ ack: { accepted: [event.event_id] } });
    expect(await client.next("session")).toMatchObject({ session: { state: "capturing" } });

    client.socket.close();
    await client.closed;
    const after = await http("GET", "/api/observation/adapters");
    expect(after.adapters.every((adapter: { healthy: boolean }) => !adapter.healthy)).toBe(true);
  });
});
