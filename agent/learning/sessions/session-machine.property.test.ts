import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isLearnSessionInProgress, LearnSessionSchema, type LearnSessionState } from "../../../shared/learning/sessions/learn-session";
import { LearningRuntimeSnapshotSchema } from "../../../shared/learning/sessions/runtime-snapshot";
import { validateTransition } from "../../../shared/learning/sessions/state-machine";
import { MemoryPaths } from "../../memory/memory-paths";
import { startTestAgent } from "../../test-support/test-agent";

type Command =
  { kind: "create" } | { kind: "action"; action: "start" | "pause" | "resume" | "stop" | "cancel" | "mark-step" | "mark-goal" | "delete"; pick: number };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Command>({ kind: "create" }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("action" as const),
      action: fc.constantFrom("start", "pause", "resume", "stop", "cancel", "mark-step", "mark-goal", "delete") as fc.Arbitrary<
        "start" | "pause" | "resume" | "stop" | "cancel" | "mark-step" | "mark-goal" | "delete"
      >,
      pick: fc.nat(),
    }),
  },
);

const BODIES: Record<string, unknown> = { "mark-step": { step_label: "step" }, "mark-goal": { goal_description: "goal" } };

describe("session command sequences (property)", () => {
  it("never leave the state machine, never hold two open sessions, and keep runtime/current.json equal to the detail", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 25 }), async (commands) => {
        const agent = await startTestAgent();
        try {
          const known: string[] = [];
          const states = new Map<string, LearnSessionState>();
          for (const command of commands) {
            let id: string | undefined;
            let response;
            if (command.kind === "create") {
              response = await agent.app.inject({
                method: "POST",
                url: "/api/learn/sessions",
                headers: agent.headers(),
                payload: { entry_mode: "demonstrating_skill" },
              });
              if (response.statusCode === 201) {
                id = (response.json() as { session: { learn_session_id: string } }).session.learn_session_id;
                known.push(id);
                states.set(id, "idle");
              } else {
                expect((response.json() as { error: { code: string } }).error.code).toBe("LEARN_SESSION_ALREADY_ACTIVE");
              }
            } else if (known.length > 0) {
              id = known[command.pick % known.length] as string;
              const body = BODIES[command.action];
              response = await agent.app.inject({
                method: command.action === "delete" ? "DELETE" : "POST",
                url: command.action === "delete" ? `/api/learn/sessions/${id}` : `/api/learn/sessions/${id}/${command.action}`,
                headers: agent.headers(),
                ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
              });
              expect(response.statusCode, response.body).toBeLessThan(500);
            }
            // Every session still known moved only along the §0C.1A table (possibly several steps,
            // e.g. armed → capturing → … via a mark), and the transitions it made are all valid.
            for (const knownId of [...known]) {
              const detail = await agent.app.inject({ method: "GET", url: `/api/learn/sessions/${knownId}/detail`, headers: agent.headers() });
              if (detail.statusCode === 404) {
                known.splice(known.indexOf(knownId), 1);
                states.delete(knownId);
                continue;
              }
              const session = LearnSessionSchema.parse(detail.json());
              const before = states.get(knownId) as LearnSessionState;
              if (before !== session.state) {
                const viaCapture = before === "armed" && ["capturing", "paused"].includes(session.state);
                expect(validateTransition(before, session.state) || viaCapture, `${before} → ${session.state}`).toBe(true);
              }
              states.set(knownId, session.state);
            }
            const open = [...states.entries()].filter(([, state]) => isLearnSessionInProgress(state));
            expect(open.length).toBeLessThanOrEqual(1);
            const current = await agent.memory.readJson(MemoryPaths.runtimeCurrent, LearningRuntimeSnapshotSchema);
            if (known.length === 0) {
              expect(current).toBeUndefined();
            } else {
              expect(current).toBeDefined();
              // The snapshot describes the open session whenever there is one.
              if (open.length === 1) expect(current?.learn_session_id).toBe(open[0]?.[0]);
              const detail = await agent.app.inject({
                method: "GET",
                url: `/api/learn/sessions/${current?.learn_session_id}/detail`,
                headers: agent.headers(),
              });
              const session = LearnSessionSchema.parse(detail.json());
              expect(current).toMatchObject({ state: session.state, entry_mode: session.entry_mode, build_policy: session.build_policy });
            }
          }
        } finally {
          await agent.close();
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
