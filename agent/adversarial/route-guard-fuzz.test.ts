import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODE_TABLE } from "../../shared/common/error-codes";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import type { FuzzSandbox } from "../test-support/adversarial/fuzz-sandbox";
import { conforming } from "../test-support/adversarial/hostile-input";
import { toJsonText } from "../test-support/adversarial/hostile-values";
import { rawRequest } from "../test-support/adversarial/raw-http";
import { targetOf } from "../test-support/adversarial/route-catalog";
import {
  PAIRED_EXTENSION_ID,
  PAIRING_ROUTES,
  PUBLIC_ROUTES,
  RUNS,
  SOCKET_ROUTES,
  agentsOn,
  checkAnswer,
  label,
  openRouteSandbox,
  seeded,
  worldFor,
} from "../test-support/adversarial/route-fuzz-harness";

/**
 * Issue #8: the request guard refuses every route that needs the token — without it, from a
 * rebinding Host or a foreign Origin — over a real loopback socket, and nothing it refuses changes
 * ELNOR_MEMORY. Hostile input to every route: `route-fuzz.test.ts`. Replay a route with
 * `FUZZ_SEED=<seed> npx vitest run agent/adversarial/route-guard-fuzz.test.ts -t "<METHOD> <path>"`.
 */
const sandbox = openRouteSandbox("elnor-route-guard-fuzz-");
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
