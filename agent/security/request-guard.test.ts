import { stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { OTHER_EXTENSION_ID, PAIRED_EXTENSION_ID, TEST_PORT, startTestAgent, type TestAgent } from "../test-support/test-agent";

let agent: TestAgent;

beforeEach(async () => {
  agent = await startTestAgent();
});
afterEach(async () => {
  await agent.close();
});

function expectEnvelope(response: { statusCode: number; json(): unknown }, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  const envelope = ApiErrorResponseSchema.parse(response.json());
  expect(envelope.error.code).toBe(code);
  return envelope;
}

async function pair(extensionId = PAIRED_EXTENSION_ID) {
  return agent.app.inject({
    method: "POST",
    url: "/api/pairing",
    headers: agent.headers({ origin: `chrome-extension://${extensionId}` }),
    payload: { extension_id: extensionId, schema_version: 1 },
  });
}

describe("request guard", () => {
  it("answers health without a token", async () => {
    const response = await agent.app.inject({ method: "GET", url: "/api/health", headers: { host: `127.0.0.1:${TEST_PORT}` } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: "ok", service: "elnor-learn-agent" });
  });

  it("rejects a request without a token with AUTH_REQUIRED", async () => {
    const response = await agent.app.inject({ method: "GET", url: "/api/pairing", headers: { host: `127.0.0.1:${TEST_PORT}` } });
    expectEnvelope(response, 401, "AUTH_REQUIRED");
  });

  it("rejects a wrong token with AUTH_INVALID", async () => {
    const response = await agent.app.inject({
      method: "GET",
      url: "/api/learn/runtime/current",
      headers: agent.headers({ authorization: `Bearer ${"x".repeat(43)}` }),
    });
    expectEnvelope(response, 401, "AUTH_INVALID");
  });

  it("rejects a token sent in another scheme", async () => {
    const response = await agent.app.inject({
      method: "GET",
      url: "/api/learn/runtime/current",
      headers: agent.headers({ authorization: `Basic ${agent.token}` }),
    });
    expectEnvelope(response, 401, "AUTH_INVALID");
  });

  it.each([
    ["a rebinding host name", `evil.example:${TEST_PORT}`],
    ["a loopback name on another port", "127.0.0.1:8080"],
    ["a loopback name without a port", "localhost"],
    ["a LAN address", `192.168.1.10:${TEST_PORT}`],
  ])("rejects %s in Host with HOST_NOT_ALLOWED, even with the right token", async (_label, host) => {
    const response = await agent.app.inject({ method: "GET", url: "/api/learn/runtime/current", headers: agent.headers({ host }) });
    expectEnvelope(response, 403, "HOST_NOT_ALLOWED");
  });

  it("rejects a foreign Host on the unauthenticated health route too", async () => {
    const response = await agent.app.inject({ method: "GET", url: "/api/health", headers: { host: `evil.example:${TEST_PORT}` } });
    expectEnvelope(response, 403, "HOST_NOT_ALLOWED");
  });

  it("accepts localhost and [::1] with the agent's port", async () => {
    for (const host of [`localhost:${TEST_PORT}`, `[::1]:${TEST_PORT}`]) {
      const response = await agent.app.inject({ method: "GET", url: "/api/health", headers: { host } });
      expect(response.statusCode).toBe(200);
    }
  });

  it("rejects a web page Origin with ORIGIN_NOT_ALLOWED, even with the right token", async () => {
    const response = await agent.app.inject({
      method: "GET",
      url: "/api/learn/runtime/current",
      headers: agent.headers({ origin: "https://evil.example" }),
    });
    expectEnvelope(response, 403, "ORIGIN_NOT_ALLOWED");
  });

  it("rejects an extension that is not the paired one", async () => {
    expect((await pair()).statusCode).toBe(200);
    const response = await agent.app.inject({
      method: "GET",
      url: "/api/pairing",
      headers: agent.headers({ origin: `chrome-extension://${OTHER_EXTENSION_ID}` }),
    });
    expectEnvelope(response, 403, "ORIGIN_NOT_ALLOWED");
  });

  it("rejects any extension Origin on ordinary routes before pairing", async () => {
    const response = await agent.app.inject({
      method: "GET",
      url: "/api/learn/runtime/current",
      headers: agent.headers({ origin: `chrome-extension://${PAIRED_EXTENSION_ID}` }),
    });
    expectEnvelope(response, 403, "ORIGIN_NOT_ALLOWED");
  });

  it("refuses a token in the query string", async () => {
    const response = await agent.app.inject({ method: "GET", url: `/api/health?token=${agent.token}`, headers: agent.headers() });
    expectEnvelope(response, 400, "TOKEN_IN_URL_REJECTED");
  });

  it("sends no CORS headers, so a web page cannot read any answer", async () => {
    const response = await agent.app.inject({
      method: "OPTIONS",
      url: "/api/learn/runtime/current",
      headers: agent.headers({ origin: "https://evil.example", "access-control-request-method": "GET" }),
    });
    expect(response.statusCode).toBe(403);
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("answers unknown routes with an envelope, and only to an authenticated caller", async () => {
    expectEnvelope(await agent.app.inject({ method: "GET", url: "/api/nope", headers: agent.headers() }), 404, "ROUTE_NOT_FOUND");
    expectEnvelope(await agent.app.inject({ method: "GET", url: "/api/nope", headers: { host: `127.0.0.1:${TEST_PORT}` } }), 401, "AUTH_REQUIRED");
  });
});

describe("pairing", () => {
  it("records the extension id and then accepts that extension's Origin", async () => {
    const paired = await pair();
    expect(paired.statusCode).toBe(200);
    expect(paired.json()).toMatchObject({ paired: true, extension_id: PAIRED_EXTENSION_ID });
    const status = await agent.app.inject({
      method: "GET",
      url: "/api/pairing",
      headers: agent.headers({ origin: `chrome-extension://${PAIRED_EXTENSION_ID}` }),
    });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ extension_id: PAIRED_EXTENSION_ID });
  });

  it("refuses to pair without the token", async () => {
    const response = await agent.app.inject({
      method: "POST",
      url: "/api/pairing",
      headers: { host: `127.0.0.1:${TEST_PORT}`, origin: `chrome-extension://${PAIRED_EXTENSION_ID}` },
      payload: { extension_id: PAIRED_EXTENSION_ID, schema_version: 1 },
    });
    expectEnvelope(response, 401, "AUTH_REQUIRED");
    expect(await agent.memory.exists("system/agent/pairing.json")).toBe(false);
  });

  it("refuses to pair an extension id other than the caller's own", async () => {
    const response = await agent.app.inject({
      method: "POST",
      url: "/api/pairing",
      headers: agent.headers({ origin: `chrome-extension://${OTHER_EXTENSION_ID}` }),
      payload: { extension_id: PAIRED_EXTENSION_ID, schema_version: 1 },
    });
    expectEnvelope(response, 403, "ORIGIN_NOT_ALLOWED");
    expect(await agent.memory.exists("system/agent/pairing.json")).toBe(false);
  });

  it("rejects a malformed extension id with REQUEST_INVALID naming the field, and writes nothing", async () => {
    const response = await agent.app.inject({
      method: "POST",
      url: "/api/pairing",
      headers: agent.headers(),
      payload: { extension_id: "../../etc", schema_version: 1 },
    });
    const envelope = expectEnvelope(response, 400, "REQUEST_INVALID");
    expect(envelope.issues?.[0]?.path).toContain("extension_id");
    expect(await agent.memory.exists("system/agent/pairing.json")).toBe(false);
  });

  it("says no extension is paired yet", async () => {
    expectEnvelope(await agent.app.inject({ method: "GET", url: "/api/pairing", headers: agent.headers() }), 403, "ORIGIN_NOT_ALLOWED");
  });
});

describe("request bodies", () => {
  it("rejects a body that is not JSON", async () => {
    const response = await agent.app.inject({
      method: "POST",
      url: "/api/pairing",
      headers: agent.headers({ "content-type": "application/json" }),
      payload: "{not json",
    });
    expectEnvelope(response, 400, "REQUEST_INVALID");
  });

  it("rejects a body of the wrong media type", async () => {
    const response = await agent.app.inject({
      method: "POST",
      url: "/api/pairing",
      headers: agent.headers({ "content-type": "text/plain" }),
      payload: "hello",
    });
    expectEnvelope(response, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("rejects an oversized body", async () => {
    const response = await agent.app.inject({
      method: "POST",
      url: "/api/pairing",
      headers: agent.headers({ "content-type": "application/json" }),
      payload: JSON.stringify({ extension_id: "a".repeat(2 * 1024 * 1024) }),
    });
    expectEnvelope(response, 413, "PAYLOAD_TOO_LARGE");
  });
});

describe("token and logs", () => {
  it("creates the token file with mode 0600", async () => {
    const file = await stat(path.join(agent.root, "system/agent/token"));
    expect(file.mode & 0o777).toBe(0o600);
    expect(agent.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("never writes the token or a request body to the log", async () => {
    const canary = "CANARY-body-7f3a9c";
    await agent.app.inject({
      method: "POST",
      url: "/api/pairing",
      headers: agent.headers({ origin: `chrome-extension://${PAIRED_EXTENSION_ID}` }),
      payload: { extension_id: PAIRED_EXTENSION_ID, schema_version: 1, note: canary },
    });
    await agent.app.inject({ method: "POST", url: "/api/pairing", headers: agent.headers(), payload: { extension_id: canary } });
    await agent.app.inject({ method: "GET", url: `/api/health?token=${agent.token}`, headers: agent.headers() });
    const log = agent.logs.join("");
    expect(log).toContain("/api/pairing");
    expect(log).not.toContain(agent.token);
    expect(log).not.toContain(canary);
  });
});

describe("runtime truth", () => {
  it("answers LEARN_SESSION_NOT_FOUND before any session exists", async () => {
    expectEnvelope(await agent.app.inject({ method: "GET", url: "/api/learn/runtime/current", headers: agent.headers() }), 404, "LEARN_SESSION_NOT_FOUND");
  });

  it("answers the snapshot stored in runtime/current.json", async () => {
    const snapshot = {
      learn_session_id: "3f1c2b9e-8a4d-4c2e-9b7a-1d2e3f4a5b6c",
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      build_policy: "build_then_review",
      state: "armed",
      observed_data_classes: [],
      latest_receipt_ids: [],
      snapshot_as_of: "2026-11-22T00:00:00.000Z",
      schema_version: 1,
    };
    await agent.memory.writeJson("system/learning/runtime/current.json", snapshot);
    const response = await agent.app.inject({ method: "GET", url: "/api/learn/runtime/current", headers: agent.headers() });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(snapshot);
  });
});
