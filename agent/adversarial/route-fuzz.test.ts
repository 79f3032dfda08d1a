import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FuzzSandbox } from "../test-support/adversarial/fuzz-sandbox";
import { rawRequest, type RawRequest } from "../test-support/adversarial/raw-http";
import { agentsOn, checkAnswer, label, openRouteSandbox } from "../test-support/adversarial/route-fuzz-harness";
import { fuzzRoute, isLearningRoute, printStats } from "../test-support/adversarial/route-fuzz-requests";

/**
 * Issue #8: every route of the local API, fuzzed over a real loopback socket with hostile path
 * parameters, query strings, headers and bodies, against a prepared ELNOR_MEMORY. The route list
 * comes from the agent's own OpenAPI description plus anything it registered without one, so a
 * new route is fuzzed the day it is added. Here every route but the learning ones (those are in
 * `route-fuzz-learning.test.ts`), and what the HTTP parser and router refuse; the guard's refusals
 * are in `route-guard-fuzz.test.ts`.
 *
 * Seeds: fast-check prints `seed` and `path` when a property fails; replay one route with
 * `FUZZ_SEED=<seed> npx vitest run agent/adversarial/route-fuzz.test.ts -t "<METHOD> <path>"`.
 * FUZZ_RUNS raises the number of random requests per route (default 25) for a longer local soak;
 * FUZZ_STATS=1 prints, per route, how many answers had which status and code.
 */
const sandbox = openRouteSandbox("elnor-route-fuzz-");
let box: FuzzSandbox;
const { operations } = await sandbox;
const { withAgent, stop: stopRunning } = agentsOn(() => box);

beforeAll(async () => {
  ({ box } = await sandbox);
  expect(box.escapedFiles(), "escape files exist before the run; remove them").toEqual([]);
});
afterAll(async () => {
  await stopRunning();
  await box?.remove();
  printStats();
});

describe("route fuzzing: every route, hostile input, a real socket", () => {
  it("covers every route the agent registered", () => {
    expect(operations.length).toBeGreaterThan(40);
    for (const route of box.registered) {
      if (route.method === "HEAD") continue;
      const path = route.url.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\*$/, "{*}");
      expect(
        operations.some((operation) => operation.method === route.method && operation.path === path),
        `${route.method} ${route.url}`,
      ).toBe(true);
    }
  });

  it.each(operations.filter((operation) => !isLearningRoute(operation)).map((operation) => [label(operation), operation] as const))(
    "%s: no 5xx, coded envelopes, refused requests change nothing",
    async (_name, operation) => fuzzRoute(box, withAgent, operation),
  );

  it("answers what the HTTP parser and the router refuse with an envelope, and changes nothing", async () => {
    await withAgent("capturing", true, async (agent) => {
      const host: [string, string] = ["host", `127.0.0.1:${agent.port}`];
      const auth: [string, string] = ["authorization", `Bearer ${agent.token}`];
      const session = box.known("capturing").sessionId?.[0] ?? "";
      const garbage: Array<[string, RawRequest]> = [
        ["a raw space in the path", { method: "GET", target: `/api/learn/sessions/${session} x/detail`, headers: [host, auth] }],
        ["a raw NUL in the path", { method: "GET", target: `/api/learn/sessions/a\u0000b/detail`, headers: [host, auth] }],
        ["raw bytes above 0x7f in the path", { method: "GET", target: "/api/learn/sessions/\u00e9\u00ff/detail", headers: [host, auth] }],
        ["a bad percent-encoding", { method: "GET", target: "/api/learn/sessions/%zz/detail", headers: [host, auth] }],
        ["an overlong UTF-8 slash", { method: "GET", target: "/api/learn/sessions/..%c0%af..%c0%afoutside/detail", headers: [host, auth] }],
        ["a path parameter over the router's limit", { method: "GET", target: `/api/learn/sessions/${"a".repeat(200)}/detail`, headers: [host, auth] }],
        ["a 20 KB URL", { method: "GET", target: `/api/learn/sessions?page=${"1".repeat(20_000)}`, headers: [host, auth] }],
        ["a 20 KB header", { method: "GET", target: "/api/learn/sessions", headers: [host, auth, ["x-big", "y".repeat(20_000)]] }],
        ["an invalid header name", { method: "GET", target: "/api/learn/sessions", headers: [host, auth, ["x bad", "1"]] }],
        ["a header value with a bare CR", { method: "GET", target: "/api/learn/sessions", headers: [host, auth, ["x-cr", "a\rb"]] }],
        [
          "two different Content-Lengths",
          {
            method: "POST",
            target: `/api/learn/sessions/${session}/mark-step`,
            headers: [host, auth, ["content-type", "application/json"], ["content-length", "2"], ["content-length", "3"]],
            body: "{}",
            contentLength: false,
          },
        ],
        [
          "Content-Length and chunked together",
          {
            method: "POST",
            target: `/api/learn/sessions/${session}/mark-step`,
            headers: [host, auth, ["content-type", "application/json"], ["content-length", "2"], ["transfer-encoding", "chunked"]],
            body: "2\r\n{}\r\n0\r\n\r\n",
            contentLength: false,
          },
        ],
        [
          "a malformed chunk",
          {
            method: "POST",
            target: `/api/learn/sessions/${session}/mark-step`,
            headers: [host, auth, ["content-type", "application/json"], ["transfer-encoding", "chunked"]],
            body: "zz\r\n{}\r\n0\r\n\r\n",
            contentLength: false,
          },
        ],
        [
          "an oversized chunked body",
          {
            method: "POST",
            target: `/api/learn/sessions/${session}/mark-step`,
            headers: [host, auth, ["content-type", "application/json"], ["transfer-encoding", "chunked"]],
            body: `${(2 * 1024 * 1024).toString(16)}\r\n${"x".repeat(2 * 1024 * 1024)}\r\n0\r\n\r\n`,
            contentLength: false,
          },
        ],
        [
          "a gzip body that is not gzip",
          {
            method: "POST",
            target: `/api/learn/sessions/${session}/mark-step`,
            headers: [host, auth, ["content-type", "application/json"], ["content-encoding", "gzip"]],
            body: '{"step_label":"x"}',
          },
        ],
        ["an unknown method", { method: "BREW", target: "/api/learn/sessions", headers: [host, auth] }],
        ["an absolute-form target to another host", { method: "GET", target: "http://evil.example/api/learn/sessions", headers: [host, auth] }],
        ["an asterisk target", { method: "OPTIONS", target: "*", headers: [host, auth] }],
        ["no Host at all", { method: "GET", target: "/api/learn/sessions", headers: [auth] }],
        ["two Host headers", { method: "GET", target: "/api/learn/sessions", headers: [["host", "evil.example"], host, auth] }],
      ];
      let before = box.snapshot();
      for (const [name, request] of garbage) {
        const response = await rawRequest(agent.port, request);
        const after = box.snapshot();
        checkAnswer(agent, response, before, after, name, request.method);
        before = after;
        expect(response.status, `${name} → ${response.status} ${response.text}`).toBeGreaterThanOrEqual(400);
      }
    });
  });
});
