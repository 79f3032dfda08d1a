import { expect } from "vitest";
import { ERROR_CODE_TABLE } from "../../../shared/common/error-codes";
import { ApiErrorResponseSchema } from "../../../shared/common/error-envelope";
import { createFuzzSandbox, type FuzzSandbox, type FuzzWorldName } from "./fuzz-sandbox";
import { OUTSIDE_CANARY } from "./hostile-values";
import { startListeningAgent, type ListeningAgent } from "./listening-agent";
import { diffMemoryTrees, type MemoryTree } from "./memory-tree";
import { rawRequest, type RawResponse } from "./raw-http";
import { routeCatalog, type RouteOperation } from "./route-catalog";

/**
 * What the route fuzzers share (`agent/adversarial/route-fuzz.test.ts`, `route-guard-fuzz.test.ts`):
 * the knobs, who may call what, the world each route is fuzzed in, what every answer must be, and
 * one agent at a time on the sandbox's memory.
 */
export const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
export const seeded = SEED === undefined ? {} : { seed: SEED };

/** Who may call what without the token; every other route is `paired` (DESIGN §4, request-guard.ts). */
export const PUBLIC_ROUTES = new Set(["GET /api/health", "HEAD /api/health"]);
export const PAIRING_ROUTES = new Set(["POST /api/pairing"]);
export const SOCKET_ROUTES = new Set(["GET /api/observations/stream"]);
/** 5xx answers the spec asks for (§0C.16B): an adapter that is not connected is a 503, not a bug. */
const EXPECTED_5XX = new Set(["ADAPTER_UNAVAILABLE"]);
export const PAIRED_EXTENSION_ID = "abcdefghijklmnopabcdefghijklmnop";

export const label = (operation: RouteOperation) => `${operation.method} ${operation.path}`;

/** A fuzz sandbox (its worlds built through the API) and every route the agent serves. */
export async function openRouteSandbox(prefix: string): Promise<{ box: FuzzSandbox; operations: RouteOperation[] }> {
  const box = await createFuzzSandbox(prefix);
  return { box, operations: routeCatalog(box.openapi, box.registered) };
}

/**
 * Which prepared world a route is fuzzed in: creating a session needs none open, the capture
 * routes need one capturing, everything else (proposals, abilities, reads) the review world.
 */
export function worldFor(operation: RouteOperation): FuzzWorldName {
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

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What every answer must be, whatever was asked: no 5xx but the spec's own, a coded envelope for
 * every failure (its status the code's row in the table), a redirect only to our own routes,
 * nothing from outside ELNOR_MEMORY and never the token, and — for anything not accepted —
 * ELNOR_MEMORY exactly as it was, byte for byte.
 */
export function checkAnswer(
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

export async function expectHealthy(agent: ListeningAgent): Promise<void> {
  const health = await rawRequest(agent.port, { method: "GET", target: "/api/health", headers: [["host", `127.0.0.1:${agent.port}`]] });
  expect(health.status).toBe(200);
  expect(JSON.parse(health.text)).toMatchObject({ status: "ok" });
  // A `__proto__` key that reached a plain merge would show up on every object of the process.
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/**
 * One agent at a time on `box`'s memory. `withAgent` runs `run` against an agent on `world`: a fresh
 * copy when `fresh` (the fuzzer's accepted requests change the world), else the running one if it is
 * on that world already (the guard tests change nothing, and check that they do not). The process
 * must be healthy afterwards. `stop` closes the running agent.
 */
export function agentsOn(box: () => FuzzSandbox): {
  withAgent(world: FuzzWorldName, fresh: boolean, run: (agent: ListeningAgent) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
} {
  /** The agent now running on the sandbox's memory, and which world it was started on. */
  let running: { world: FuzzWorldName; agent: ListeningAgent } | undefined;
  const stop = async (): Promise<void> => {
    await running?.agent.close();
    running = undefined;
  };
  const withAgent = async (world: FuzzWorldName, fresh: boolean, run: (agent: ListeningAgent) => Promise<void>): Promise<void> => {
    const sandbox = box();
    if (fresh || running?.world !== world) {
      await stop();
      await sandbox.resetMemory(world);
      running = { world, agent: await startListeningAgent(sandbox.memory) };
    }
    const { agent } = running;
    await run(agent);
    await expectHealthy(agent);
    expect(agent.logs.join(""), "the token reached a log line").not.toContain(agent.token);
    expect(sandbox.escapedFiles(), "a path escaped the sandbox").toEqual([]);
  };
  return { withAgent, stop };
}
