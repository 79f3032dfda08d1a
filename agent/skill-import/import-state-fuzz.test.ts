import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODE_TABLE } from "../../shared/common/error-codes";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { SkillImportTransitionSchema, canTransitionSkillImport } from "../../shared/skills/import-state";
import { diffMemoryTrees, readMemoryTree } from "../test-support/adversarial/memory-tree";
import { startTestAgent, type TestAgent } from "../test-support/test-agent";
import { publicBundle, uploadThrough } from "../test-support/skill-bundles";

/**
 * The import state machine under random sequences of every decision route, on real imports
 * (some scanning clean, some failing their scan): every answer is a 200 or a coded envelope,
 * every recorded move is an edge of `import-state.ts` (a retry edge only through retry), and a
 * refused request changes nothing.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const seeded = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) };

let agent: TestAgent;
beforeAll(async () => {
  // The periodic skill-folder check (every 30 s) rewrites the availability views once after imports changed the folders;
  // under load this fuzz runs longer than that, and a refusal's "changes nothing" would see that write.
  agent = await startTestAgent({ skillFoldersIntervalMs: 3_600_000 });
});
afterAll(async () => agent?.close());

const action = fc.oneof(
  fc.constant({ route: "stage" }),
  fc.constant({ route: "approve" }),
  fc.constant({ route: "install-private" }),
  fc.constant({ route: "discard" }),
  fc.record({ route: fc.constant("reject"), reason: fc.constantFrom("", "Not needed") }),
  fc.record({ route: fc.constant("retry"), retry_kind: fc.constantFrom("scan", "stage", "install") }),
  fc.constant({ route: "trigger-test" }),
);

type Step = [number, { route: string } & Record<string, unknown>];
const FIXED_PATHS: Array<[Step[], boolean]> = [
  [
    [
      [0, { route: "approve" }],
      [1, { route: "discard" }],
    ],
    false,
  ],
  [
    [
      [0, { route: "reject", reason: "Not needed" }],
      [2, { route: "stage" }],
      [2, { route: "install-private" }],
    ],
    true,
  ],
];

describe("import state machine fuzzing", () => {
  it(
    "moves only along the graph, answers every request with 200 or a coded envelope, and refusals change nothing",
    async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.nat({ max: 2 }), action), { minLength: 1, maxLength: 12 }), fc.boolean(), async (steps, collide) => {
          round += 1;
          // Three imports a round: two of one fresh name (the second collides once the first is in review), one clean.
          const name = `skill-round-${round}`;
          const ids: string[] = [];
          for (const bundleName of [name, collide ? name : `${name}-b`, `${name}-c`]) {
            const uploaded = await uploadThrough(agent, { name: "b.zip", bytes: publicBundle(bundleName) });
            const scanned = await agent.call("POST", "/api/skills/import/scan", {
              source: "manual_upload",
              temp_artifact_ref: uploaded.body.temp_artifact.temp_artifact_ref,
              schema_version: 1,
            });
            ids.push(scanned.body.import_record.import_id as string);
            if (bundleName === name) await agent.call("POST", "/api/skills/import/stage", { import_id: ids[0], schema_version: 1 });
          }
          let before = readMemoryTree(agent.memory.root);
          for (const [which, step] of steps) {
            const importId = ids[which] as string;
            const { route, ...rest } = step as { route: string } & Record<string, unknown>;
            const url = route === "trigger-test" ? "/api/skills/trigger-test" : `/api/skills/import/${route}`;
            const body =
              route === "trigger-test"
                ? { import_id: importId, trigger_text: "fill in a pdf form", schema_version: 1 }
                : { import_id: importId, ...rest, schema_version: 1 };
            const answer = await agent.call("POST", url, body);
            const after = readMemoryTree(agent.memory.root);
            const what = `${route} ${JSON.stringify(rest)} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
            expect(answer.status, what).toBeLessThan(500);
            if (answer.status >= 300) {
              const envelope = ApiErrorResponseSchema.parse(answer.body);
              expect(ERROR_CODE_TABLE[envelope.error.code as keyof typeof ERROR_CODE_TABLE]?.http, what).toBe(answer.status);
              expect(diffMemoryTrees(before, after), what).toEqual([]);
            }
            before = after;
          }
        }),
        // Random sequences alone reach every state only most of the time (a CI run once never approved);
        // these examples take each way out once, so the coverage check below asks something every run.
        { numRuns: RUNS, ...seeded, examples: FIXED_PATHS },
      );
      // Every move ever recorded is an edge of the graph; the retry edges were taken only by retries.
      const moves = await agent.memory.readJsonl("system/skills/import/transitions.jsonl", SkillImportTransitionSchema);
      expect(moves.length).toBeGreaterThan(RUNS * 3);
      for (const move of moves) {
        const retry = /^retry of (scan|stage)$|^install retried$/.exec(move.reason);
        const kind = retry === null ? undefined : retry[1] === undefined ? "install" : (retry[1] as "scan" | "stage");
        expect(canTransitionSkillImport(move.from_state, move.to_state, kind), `${move.from_state} → ${move.to_state} (${move.reason})`).toBe(true);
      }
      // The sequences went somewhere: review, both kinds of install, both ways out, failures and their retries.
      const reached = new Set(moves.map((move) => move.to_state));
      for (const state of ["ready_for_review", "installed_private", "approved", "rejected", "discarded", "scan_failed"] as const)
        expect(reached, state).toContain(state);
    },
    20_000 + RUNS * 1_500,
  );
});
