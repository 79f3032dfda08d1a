import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FuzzSandbox } from "../test-support/adversarial/fuzz-sandbox";
import { agentsOn, label, openRouteSandbox } from "../test-support/adversarial/route-fuzz-harness";
import { fuzzRoute, isLearningRoute, printStats } from "../test-support/adversarial/route-fuzz-requests";

/**
 * Issue #8: the learning routes (`/api/learn/…`, `/api/observation…`: sessions, capture, proposals)
 * fuzzed over a real loopback socket with hostile input, as `route-fuzz.test.ts` fuzzes the rest.
 * Replay one with `FUZZ_SEED=<seed> npx vitest run agent/adversarial/route-fuzz-learning.test.ts -t "<METHOD> <path>"`.
 */
const sandbox = openRouteSandbox("elnor-route-fuzz-learning-");
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
  it.each(operations.filter(isLearningRoute).map((operation) => [label(operation), operation] as const))(
    "%s: no 5xx, coded envelopes, refused requests change nothing",
    async (_name, operation) => fuzzRoute(box, withAgent, operation),
  );
});
