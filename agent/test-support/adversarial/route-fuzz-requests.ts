import fc from "fast-check";
import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import type { FuzzSandbox, FuzzWorldName } from "./fuzz-sandbox";
import { conforming, extraHeaders, originHeader, pathParam, queryString, wireBody, type KnownIds, type WireBody } from "./hostile-input";
import { applyMutation, DEEP_ARRAY_TEXT, DEEP_OBJECT_TEXT, mutation, toJsonText } from "./hostile-values";
import type { ListeningAgent } from "./listening-agent";
import { rawRequest, type RawResponse } from "./raw-http";
import { targetOf, type RouteOperation } from "./route-catalog";
import { RUNS, checkAnswer, expectHealthy, label, parseJson, seeded, worldFor } from "./route-fuzz-harness";
import { exportClick } from "../ready-proposal";

/**
 * The hostile requests of the route fuzzers (`agent/adversarial/route-fuzz*.test.ts`): random ones
 * from each route's own schema, the issue's list of attacks every route gets, and the property one
 * route is fuzzed with.
 */

/** The learning routes (sessions, proposals, capture), fuzzed in `route-fuzz-learning.test.ts`; the rest in `route-fuzz.test.ts`. */
export const isLearningRoute = (operation: RouteOperation) => /^\/api\/(learn|observations?)\//.test(operation.path);

/** Answers per route, by status and code, printed with FUZZ_STATS=1. */
const stats = new Map<string, Map<string, number>>();
function tally(route: string, response: RawResponse): void {
  const code = ApiErrorResponseSchema.safeParse(parseJson(response.text)).data?.error.code;
  const key = `${response.status}${code === undefined ? "" : ` ${code}`}`;
  const counts = stats.get(route) ?? new Map<string, number>();
  counts.set(key, (counts.get(key) ?? 0) + 1);
  stats.set(route, counts);
}

/** Prints the answers per route with FUZZ_STATS=1: how deep the fuzzing went (a route whose every request dies in validation is only half tested). */
export function printStats(): void {
  if (process.env.FUZZ_STATS !== undefined) {
    console.table(Object.fromEntries([...stats].map(([route, counts]) => [route, Object.fromEntries([...counts].sort())])));
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

/** Bodies over the agent's limit, made once for every route's explicit cases. */
const OVER_A_MEGABYTE_TEXT = JSON.stringify({ value: "x".repeat(1_100_000) });
const FIVE_MEGABYTES_TEXT = JSON.stringify({ value: "x".repeat(5 * 1024 * 1024) });

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
    { ...plain, body: json("1.1 MB", OVER_A_MEGABYTE_TEXT) },
    { ...plain, body: json("5 MB", FIVE_MEGABYTES_TEXT) },
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
 * One route fuzzed on a fresh copy of its world: the explicit cases, then RUNS random requests,
 * every answer checked (`checkAnswer`), a health request after every ten.
 */
export async function fuzzRoute(
  box: FuzzSandbox,
  withAgent: (world: FuzzWorldName, fresh: boolean, run: (agent: ListeningAgent) => Promise<void>) => Promise<void>,
  operation: RouteOperation,
): Promise<void> {
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
}
