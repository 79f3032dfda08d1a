import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import type { FuzzSandbox } from "../test-support/adversarial/fuzz-sandbox";
import {
  applyMutation,
  conforming,
  DEEP_ARRAY_TEXT,
  DEEP_OBJECT_TEXT,
  extraHeaders,
  mutation,
  originHeader,
  pathParam,
  queryString,
  toJsonText,
  wireBody,
  type KnownIds,
  type WireBody,
} from "../test-support/adversarial/hostile-input";
import type { ListeningAgent } from "../test-support/adversarial/listening-agent";
import { rawRequest, type RawRequest, type RawResponse } from "../test-support/adversarial/raw-http";
import { targetOf, type RouteOperation } from "../test-support/adversarial/route-catalog";
import {
  RUNS,
  agentsOn,
  checkAnswer,
  expectHealthy,
  label,
  openRouteSandbox,
  parseJson,
  seeded,
  worldFor,
} from "../test-support/adversarial/route-fuzz-harness";
import { exportClick } from "../test-support/ready-proposal";

/**
 * Issue #8: every route of the local API, fuzzed over a real loopback socket with hostile path
 * parameters, query strings, headers and bodies, against a prepared ELNOR_MEMORY. The route list
 * comes from the agent's own OpenAPI description plus anything it registered without one, so a
 * new route is fuzzed the day it is added. The guard's refusals: `route-guard-fuzz.test.ts`.
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
  if (process.env.FUZZ_STATS !== undefined) {
    // How deep the fuzzing went: a route whose every request dies in validation is only half tested.
    console.table(Object.fromEntries([...stats].map(([route, counts]) => [route, Object.fromEntries([...counts].sort())])));
  }
});

/** Answers per route, by status and code, printed with FUZZ_STATS=1. */
const stats = new Map<string, Map<string, number>>();
function tally(route: string, response: RawResponse): void {
  const code = ApiErrorResponseSchema.safeParse(parseJson(response.text)).data?.error.code;
  const key = `${response.status}${code === undefined ? "" : ` ${code}`}`;
  const counts = stats.get(route) ?? new Map<string, number>();
  counts.set(key, (counts.get(key) ?? 0) + 1);
  stats.set(route, counts);
}

interface FuzzRequest {
  params: Record<string, string>;
  query: string;
  headers: Array<[string, string]>;
  body: WireBody | undefined;
}

/** Whole batches for the ingest route, whose schema leaves events open (`z.unknown()`): real events, one field made hostile. */
function bodySamples(operation: RouteOperation, known: KnownIds): fc.Arbitrary<unknown> | undefined {
  if (operation.path !== "/api/observations/events") return undefined;
  const event = fc
    .record({ event_id: fc.uuid(), session: fc.constantFrom(...(known.sessionId ?? [])), change: mutation })
    .map(({ event_id, session, change }) => applyMutation({ ...exportClick(session), event_id }, change));
  return fc.record({
    batch_id: fc.uuid(),
    events: fc.array(event, { maxLength: 4 }),
    snapshots: fc.array(conforming(undefined, known), { maxLength: 1 }),
    schema_version: fc.constant(1),
  });
}

function requestArbitrary(operation: RouteOperation, known: KnownIds): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    params: fc.record(Object.fromEntries(operation.pathParams.map((name) => [name, pathParam(name, known)]))) as fc.Arbitrary<Record<string, string>>,
    query: queryString(operation.queryParams, known),
    headers: fc
      .tuple(extraHeaders, originHeader)
      .map(([headers, origin]) => (origin === undefined ? headers : [...headers, ["origin", origin] as [string, string]])),
    body: wireBody(operation.body, known, bodySamples(operation, known)),
  });
}

/**
 * The cases every route gets on every run, whatever the seed: the issue's list of attacks, each
 * around an otherwise acceptable request so the attack is the only thing wrong with it.
 */
function explicitCases(operation: RouteOperation, known: KnownIds): FuzzRequest[] {
  const goodParams = Object.fromEntries(operation.pathParams.map((name) => [name, encodeURIComponent(known[name]?.[0] ?? "x")]));
  const goodBody = fc.sample(conforming(operation.body, known), { numRuns: 1, seed: 42 })[0] ?? {};
  const objectBody = goodBody !== null && typeof goodBody === "object" && !Array.isArray(goodBody) ? toJsonText(goodBody).slice(1) : "}";
  const json = (label: string, text: string): WireBody => ({ label, contentType: "application/json", text });
  const plain = { params: goodParams, query: "", headers: [] as Array<[string, string]> };
  const cases: FuzzRequest[] = [
    { ...plain, body: json("deep array", DEEP_ARRAY_TEXT) },
    { ...plain, body: json("deep object", DEEP_OBJECT_TEXT) },
    { ...plain, body: json("proto", `{"__proto__":{"polluted":"yes"}${objectBody === "}" ? "}" : `,${objectBody}`}`) },
    { ...plain, body: json("constructor", `{"constructor":{"prototype":{"polluted":"yes"}}${objectBody === "}" ? "}" : `,${objectBody}`}`) },
    { ...plain, body: json("1.1 MB", JSON.stringify({ value: "x".repeat(1_100_000) })) },
    { ...plain, body: json("5 MB", JSON.stringify({ value: "x".repeat(5 * 1024 * 1024) })) },
    { ...plain, body: { label: "text/plain", contentType: "text/plain", text: toJsonText(goodBody) } },
    { ...plain, body: undefined },
    { ...plain, body: { label: "no content-type", contentType: undefined, text: toJsonText(goodBody) } },
    { ...plain, query: "?__proto__[polluted]=1&constructor[prototype][polluted]=1", body: json("good", toJsonText(goodBody)) },
  ];
  for (const name of operation.pathParams) {
    for (const value of [
      "..%2f..%2f..%2f..%2f..%2foutside%2fcanary.json",
      "../../../../../outside/canary.json",
      "%2e%2e%2f%2e%2e%2fsystem%2fagent%2ftoken",
      "a".repeat(5_000),
      "x%00y",
      "%E2%80%AE%F0%9F%98%80",
      "%ED%A0%80",
    ]) {
      cases.push({ ...plain, params: { ...goodParams, [name]: value }, body: json("good", toJsonText(goodBody)) });
    }
  }
  return cases;
}

function send(agent: ListeningAgent, operation: RouteOperation, request: FuzzRequest): Promise<RawResponse> {
  const headers: Array<[string, string]> = [["host", `127.0.0.1:${agent.port}`], ["authorization", `Bearer ${agent.token}`], ...request.headers];
  if (request.body?.contentType !== undefined) headers.push(["content-type", request.body.contentType]);
  return rawRequest(agent.port, {
    method: operation.method,
    target: targetOf(operation, request.params, request.query),
    headers,
    ...(request.body === undefined ? {} : { body: request.body.text }),
  });
}

function describeRequest(operation: RouteOperation, request: FuzzRequest): string {
  const body =
    request.body === undefined ? "no body" : `${request.body.label} ${request.body.contentType ?? "(no content-type)"}: ${request.body.text.slice(0, 300)}`;
  return `${operation.method} ${targetOf(operation, request.params, request.query).slice(0, 400)} [${request.headers.map(([name, value]) => `${name}: ${value.slice(0, 60)}`).join("; ")}] ${body}`;
}

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

  it.each(operations.map((operation) => [label(operation), operation] as const))(
    "%s: no 5xx, coded envelopes, refused requests change nothing",
    async (_name, operation) => {
      const world = worldFor(operation);
      const known = box.known(world);
      const examples = explicitCases(operation, known).map((request) => [request] as [FuzzRequest]);
      await withAgent(world, true, async (agent) => {
        let before = box.snapshot();
        let sent = 0;
        /** Ids an accepted request answered with (a session it created): their folders are that request's. */
        const acceptedIds = new Set<string>();
        await fc.assert(
          fc.asyncProperty(requestArbitrary(operation, known), async (request) => {
            const response = await send(agent, operation, request);
            const after = box.snapshot();
            tally(label(operation), response);
            try {
              checkAnswer(agent, response, before, after, describeRequest(operation, request), operation.method, acceptedIds);
            } finally {
              before = after;
              if (response.status < 300)
                for (const id of response.text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? []) acceptedIds.add(id);
            }
            // The process stays up: a health request after every batch of ten.
            sent += 1;
            if (sent % 10 === 0) await expectHealthy(agent);
          }),
          // fast-check counts examples in numRuns: RUNS random requests come on top of them.
          { numRuns: RUNS + examples.length, examples, ...seeded, endOnFailure: true },
        );
      });
    },
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
