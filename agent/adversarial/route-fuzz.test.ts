import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODE_TABLE } from "../../shared/common/error-codes";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { createFuzzSandbox, type FuzzSandbox, type FuzzWorldName } from "../test-support/adversarial/fuzz-sandbox";
import {
  applyMutation,
  conforming,
  DEEP_ARRAY_TEXT,
  DEEP_OBJECT_TEXT,
  extraHeaders,
  mutation,
  originHeader,
  OUTSIDE_CANARY,
  pathParam,
  queryString,
  toJsonText,
  wireBody,
  type KnownIds,
  type WireBody,
} from "../test-support/adversarial/hostile-input";
import { startListeningAgent, type ListeningAgent } from "../test-support/adversarial/listening-agent";
import { diffMemoryTrees, type MemoryTree } from "../test-support/adversarial/memory-tree";
import { rawRequest, type RawRequest, type RawResponse } from "../test-support/adversarial/raw-http";
import { routeCatalog, targetOf, type RouteOperation } from "../test-support/adversarial/route-catalog";
import { exportClick } from "../test-support/ready-proposal";

/**
 * Issue #8: every route of the local API, fuzzed over a real loopback socket with hostile path
 * parameters, query strings, headers and bodies, against a prepared ELNOR_MEMORY. The route list
 * comes from the agent's own OpenAPI description plus anything it registered without one, so a
 * new route is fuzzed the day it is added.
 *
 * Seeds: fast-check prints `seed` and `path` when a property fails; replay one route with
 * `FUZZ_SEED=<seed> npx vitest run agent/adversarial/route-fuzz.test.ts -t "<METHOD> <path>"`.
 * FUZZ_RUNS raises the number of random requests per route (default 25) for a longer local soak;
 * FUZZ_STATS=1 prints, per route, how many answers had which status and code.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const seeded = SEED === undefined ? {} : { seed: SEED };

/** Who may call what without the token; every other route is `paired` (DESIGN §4, request-guard.ts). */
const PUBLIC_ROUTES = new Set(["GET /api/health", "HEAD /api/health"]);
const PAIRING_ROUTES = new Set(["POST /api/pairing"]);
const SOCKET_ROUTES = new Set(["GET /api/observations/stream"]);
/** 5xx answers the spec asks for (§0C.16B): an adapter that is not connected is a 503, not a bug. */
const EXPECTED_5XX = new Set(["ADAPTER_UNAVAILABLE"]);
const PAIRED_EXTENSION_ID = "abcdefghijklmnopabcdefghijklmnop";

const box$ = createFuzzSandbox("elnor-route-fuzz-");
let box: FuzzSandbox;
const operations: RouteOperation[] = await box$.then(({ openapi, registered }) => routeCatalog(openapi, registered));
const label = (operation: RouteOperation) => `${operation.method} ${operation.path}`;

beforeAll(async () => {
  box = await box$;
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

/**
 * Which prepared world a route is fuzzed in: creating a session needs none open, the capture
 * routes need one capturing, everything else (proposals, abilities, reads) the review world.
 */
function worldFor(operation: RouteOperation): FuzzWorldName {
  if (operation.path === "/api/learn/sessions" && operation.method === "POST") return "idle";
  if (
    operation.path.startsWith("/api/learn/sessions/{sessionId}") ||
    operation.path.startsWith("/api/learn/session/") ||
    operation.path.startsWith("/api/observations")
  ) {
    return "capturing";
  }
  return "review";
}

/** Answers per route, by status and code, printed with FUZZ_STATS=1. */
const stats = new Map<string, Map<string, number>>();
function tally(route: string, response: RawResponse): void {
  const code = ApiErrorResponseSchema.safeParse(parseJson(response.text)).data?.error.code;
  const key = `${response.status}${code === undefined ? "" : ` ${code}`}`;
  const counts = stats.get(route) ?? new Map<string, number>();
  counts.set(key, (counts.get(key) ?? 0) + 1);
  stats.set(route, counts);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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

/**
 * What every answer must be, whatever was asked: no 5xx but the spec's own, a coded envelope for
 * every failure (its status the code's row in the table), a redirect only to our own routes,
 * nothing from outside ELNOR_MEMORY and never the token, and — for anything not accepted —
 * ELNOR_MEMORY exactly as it was, byte for byte.
 */
function checkAnswer(
  agent: ListeningAgent,
  response: RawResponse,
  before: MemoryTree,
  after: MemoryTree,
  what: string,
  method: string,
  acceptedIds: ReadonlySet<string> = new Set(),
): void {
  const context = `${what}\n→ ${response.status} ${response.text.slice(0, 400)}`;
  expect(response.status, context).toBeGreaterThanOrEqual(200);
  expect(response.text, context).not.toContain(OUTSIDE_CANARY);
  expect(response.text, context).not.toContain(agent.token);
  expect(response.text, context).not.toMatch(/PATH=\/|HOME=\//);
  const envelope = ApiErrorResponseSchema.safeParse(parseJson(response.text));
  // A HEAD answer has no body by definition (RFC 9110 §9.3.2); its status still counts.
  if (response.status >= 400 && method !== "HEAD") {
    expect(envelope.success, `not an ApiErrorEnvelope: ${context}`).toBe(true);
    const code = envelope.data?.error.code ?? "";
    expect(Object.keys(ERROR_CODE_TABLE), context).toContain(code);
    expect(ERROR_CODE_TABLE[code as keyof typeof ERROR_CODE_TABLE].http, `status does not match the code's table row: ${context}`).toBe(response.status);
  }
  if (response.status >= 500) expect(EXPECTED_5XX, `unexpected 5xx: ${context}`).toContain(envelope.data?.error.code);
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.location ?? "";
    // Our own route, RFC 3986 characters only: no `//host` open redirect, no header injection.
    expect(location, context).toMatch(/^\/api\/[A-Za-z0-9\-._~%!$&'()*+,;=:@/?]*$/);
    expect(location.split("?")[0]?.split("/"), context).not.toContain("..");
  }
  // Work an earlier accepted request started (a practice session's report) may still be writing its own files.
  const changed = diffMemoryTrees(before, after).filter((entry) => ![...acceptedIds].some((id) => entry.includes(`/${id}/`)));
  if (response.status >= 300) expect(changed, `a refused request changed ELNOR_MEMORY: ${context}`).toEqual([]);
}

async function expectHealthy(agent: ListeningAgent): Promise<void> {
  const health = await rawRequest(agent.port, { method: "GET", target: "/api/health", headers: [["host", `127.0.0.1:${agent.port}`]] });
  expect(health.status).toBe(200);
  expect(JSON.parse(health.text)).toMatchObject({ status: "ok" });
  // A `__proto__` key that reached a plain merge would show up on every object of the process.
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** The agent now running on the sandbox's memory, and which world it was started on. */
let running: { world: FuzzWorldName; agent: ListeningAgent } | undefined;

async function stopRunning(): Promise<void> {
  await running?.agent.close();
  running = undefined;
}

/**
 * Runs `run` against an agent on `world`: a fresh copy when `fresh` (the fuzzer's accepted
 * requests change the world), else the running one if it is on that world already (the guard
 * tests change nothing, and check that they do not). The process must be healthy afterwards.
 */
async function withAgent(world: FuzzWorldName, fresh: boolean, run: (agent: ListeningAgent) => Promise<void>): Promise<void> {
  if (fresh || running?.world !== world) {
    await stopRunning();
    await box.resetMemory(world);
    running = { world, agent: await startListeningAgent(box.memory) };
  }
  const { agent } = running;
  await run(agent);
  await expectHealthy(agent);
  expect(agent.logs.join(""), "the token reached a log line").not.toContain(agent.token);
  expect(box.escapedFiles(), "a path escaped the sandbox").toEqual([]);
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

describe("route fuzzing: the guard refuses every route that needs the token", () => {
  /** Ways in that the guard itself must refuse, before any body is read, with these codes. */
  const refusals = (port: number, token: string): Array<{ name: string; headers: Array<[string, string]>; query?: string; code: string }> => [
    { name: "no token", headers: [["host", `127.0.0.1:${port}`]], code: "AUTH_REQUIRED" },
    {
      name: "a wrong token",
      headers: [
        ["host", `127.0.0.1:${port}`],
        ["authorization", `Bearer ${"A".repeat(43)}`],
      ],
      code: "AUTH_INVALID",
    },
    {
      name: "the token with another scheme",
      headers: [
        ["host", `127.0.0.1:${port}`],
        ["authorization", `Token ${token}`],
      ],
      code: "AUTH_INVALID",
    },
    {
      name: "the token without a scheme",
      headers: [
        ["host", `127.0.0.1:${port}`],
        ["authorization", token],
      ],
      code: "AUTH_INVALID",
    },
    {
      name: "the token plus a suffix",
      headers: [
        ["host", `127.0.0.1:${port}`],
        ["authorization", `Bearer ${token}x`],
      ],
      code: "AUTH_INVALID",
    },
    { name: "the token in the query string", headers: [["host", `127.0.0.1:${port}`]], query: `?token=${token}`, code: "TOKEN_IN_URL_REJECTED" },
    {
      name: "the token in the query string too",
      headers: [
        ["host", `127.0.0.1:${port}`],
        ["authorization", `Bearer ${token}`],
      ],
      query: `?Access_Token=${token}`,
      code: "TOKEN_IN_URL_REJECTED",
    },
    ...[
      `evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      "127.0.0.1",
      `0.0.0.0:${port}`,
      `127.1:${port}`,
      `2130706433:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `localhost.:${port}`,
      `evil.example:${port}@127.0.0.1`,
      "",
    ].map((host) => ({
      name: `Host ${JSON.stringify(host)}`,
      headers: [
        ["host", host],
        ["authorization", `Bearer ${token}`],
      ] as Array<[string, string]>,
      code: "HOST_NOT_ALLOWED",
    })),
    ...[
      "https://evil.example",
      "null",
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba",
      `chrome-extension://${PAIRED_EXTENSION_ID}/`,
      `moz-extension://${PAIRED_EXTENSION_ID}`,
    ].map((origin) => ({
      name: `Origin ${origin}`,
      headers: [
        ["host", `127.0.0.1:${port}`],
        ["authorization", `Bearer ${token}`],
        ["origin", origin],
      ] as Array<[string, string]>,
      code: "ORIGIN_NOT_ALLOWED",
    })),
  ];

  // Grouped by world, so one agent per world serves them all.
  const guarded = operations
    .filter((operation) => !PUBLIC_ROUTES.has(label(operation)) && !SOCKET_ROUTES.has(label(operation)))
    .sort((a, b) => worldFor(a).localeCompare(worldFor(b)));

  it.each(guarded.map((operation) => [label(operation), operation] as const))(
    "%s: refused without the token, from a rebinding Host or a foreign Origin",
    async (_name, operation) => {
      const world = worldFor(operation);
      const known = box.known(world);
      await withAgent(world, false, async (agent) => {
        const params = Object.fromEntries(operation.pathParams.map((name) => [name, encodeURIComponent(known[name]?.[0] ?? "x")]));
        // A body the route would accept from a good client: only the guard can be the reason for a refusal.
        const body = fc.sample(conforming(operation.body, known), { numRuns: 1, seed: 7 })[0];
        let before = box.snapshot();
        for (const refusal of refusals(agent.port, agent.token)) {
          // A pairing route accepts any extension Origin by design (that is how pairing starts).
          if (PAIRING_ROUTES.has(label(operation)) && refusal.name.startsWith("Origin chrome-extension://")) continue;
          const response = await rawRequest(agent.port, {
            method: operation.method,
            target: targetOf(operation, params, refusal.query ?? ""),
            headers: [...refusal.headers, ...(operation.body === undefined ? [] : ([["content-type", "application/json"]] as Array<[string, string]>))],
            ...(operation.body === undefined ? {} : { body: toJsonText(body) }),
          });
          const after = box.snapshot();
          const what = `${refusal.name} → ${response.status} ${response.text.slice(0, 300)}`;
          checkAnswer(agent, response, before, after, what, operation.method);
          before = after;
          expect(response.status, what).toBe(ERROR_CODE_TABLE[refusal.code as keyof typeof ERROR_CODE_TABLE].http);
          if (operation.method !== "HEAD") expect(ApiErrorResponseSchema.parse(JSON.parse(response.text)).error.code, what).toBe(refusal.code);
        }
      });
    },
  );

  it("refuses any Host that is not a loopback name with the agent's port, on every route (fuzzed Host)", async () => {
    await withAgent("review", false, async (agent) => {
      const loopback = new Set([`127.0.0.1:${agent.port}`, `localhost:${agent.port}`, `[::1]:${agent.port}`]);
      const host = fc.oneof(
        fc.domain().map((name) => `${name}:${agent.port}`),
        fc
          .tuple(fc.constantFrom("127.0.0.1", "localhost", "[::1]"), fc.string({ unit: "grapheme-ascii", maxLength: 12 }))
          .map(([name, rest]) => `${name}${rest}`),
        fc
          .tuple(fc.string({ unit: "grapheme-ascii", maxLength: 12 }), fc.constantFrom("127.0.0.1", "localhost"))
          .map(([rest, name]) => `${rest}${name}:${agent.port}`),
        fc.ipV4().map((ip) => `${ip}:${agent.port}`),
      );
      const known = box.known("review");
      let before = box.snapshot();
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...guarded), host, async (operation, value) => {
          const clean = value.replace(/[^\x21-\x7e]/g, "");
          const params = Object.fromEntries(operation.pathParams.map((name) => [name, encodeURIComponent(known[name]?.[0] ?? "x")]));
          const response = await rawRequest(agent.port, {
            method: operation.method,
            target: targetOf(operation, params),
            headers: [
              ["host", clean],
              ["authorization", `Bearer ${agent.token}`],
            ],
          });
          const after = box.snapshot();
          const what = `${label(operation)} Host ${JSON.stringify(clean)} → ${response.status} ${response.text.slice(0, 200)}`;
          try {
            checkAnswer(agent, response, before, after, what, operation.method);
          } finally {
            before = after;
          }
          if (!loopback.has(clean.toLowerCase())) {
            expect(response.status, what).toBe(403);
            if (operation.method !== "HEAD") expect(ApiErrorResponseSchema.parse(JSON.parse(response.text)).error.code, what).toBe("HOST_NOT_ALLOWED");
          }
        }),
        { numRuns: RUNS * 4, ...seeded, endOnFailure: true },
      );
    });
  });
});
