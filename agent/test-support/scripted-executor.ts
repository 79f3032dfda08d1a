import { RunResponseSchema, type RunRecord } from "../../shared/execution/run-contract";
import type { ExecuteInput, ExecuteResult } from "../execution/contract/executor-contract";
import { planExecution } from "../execution/replay/flow-plan";
import { installContactAbility, type RunFixtureSite } from "./run-fixture";
import { startTestAgent, type TestAgent, type TestAgentOptions } from "./test-agent";

/**
 * The run service's tests through the routes (`agent/execution/runs/run-*.test.ts`), with an executor
 * that follows the plan it is given without a browser (the executor's behaviour in Chromium is proved
 * in run-chromium.test.ts): it reports each step and checkpoint, asks before the flow's committing step
 * and stops when told.
 */
export interface ScriptedExecutor {
  execute: (input: ExecuteInput) => Promise<ExecuteResult>;
  /** Values each execution was given (to prove they reached the executor). */
  seen: Array<Record<string, string>>;
  /** The browser provider and policy each execution was given. */
  given: Array<Pick<ExecuteInput, "browser" | "policy">>;
  /** While set, each execution waits here after its first step. */
  hold: Promise<void> | undefined;
}

export function scriptedExecutor(): ScriptedExecutor {
  const scripted: ScriptedExecutor = {
    seen: [],
    given: [],
    hold: undefined,
    async execute(input) {
      scripted.seen.push({ ...input.values });
      scripted.given.push({ browser: input.browser, policy: input.policy });
      const started = new Date().toISOString();
      const steps: ExecuteResult["steps"] = [];
      const points = new Map(
        planExecution(input.flow, input.checkpoints, input.policy)
          .groups.filter((group) => group.consequence !== undefined)
          .map((group) => [group.indexes[0] as number, { step_label: group.label, reason: group.consequence as NonNullable<typeof group.consequence> }]),
      );
      const done = new Set<string>();
      const aborted = () => input.signal?.aborted === true;
      for (const [index, step] of input.flow.steps.entries()) {
        if (aborted()) return { overall: "failed", steps, stopped: "cancelled", started_at: started, completed_at: new Date().toISOString() };
        const stepId = input.flow.step_ids[index] ?? `setup-${index}`;
        const point = points.get(index);
        if (
          point !== undefined &&
          input.confirm !== undefined &&
          !(await input.confirm({ step_id: stepId, step_label: point.step_label, reason: point.reason }))
        ) {
          steps.push({ test_case_id: stepId, label: point.step_label, result: "skipped", details: "declined" });
          return { overall: "failed", steps, stopped: aborted() ? "cancelled" : "declined", started_at: started, completed_at: new Date().toISOString() };
        }
        const label = step.type === "change" ? `Fill with ${step.value}` : `Do ${step.type}`;
        steps.push({ test_case_id: stepId, label, result: "passed", details: "done" });
        input.onProgress?.({ kind: "step", step_id: stepId, label, result: "passed", details: "done" });
        if (scripted.hold !== undefined && index === 0) {
          const signal = input.signal;
          await Promise.race([scripted.hold, new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }))]);
        }
        done.add(stepId);
        for (const checkpoint of input.checkpoints) {
          const last = checkpoint.step_ids.at(-1);
          if (last === stepId) {
            steps.push({ test_case_id: `checkpoint:${checkpoint.checkpoint_id}`, label: checkpoint.goal, result: "passed", details: "seen" });
            input.onProgress?.({
              kind: "checkpoint",
              checkpoint_id: checkpoint.checkpoint_id,
              goal: checkpoint.goal,
              status: "reached",
              evidence: `page shows it (${Object.values(input.values).join(" ")})`,
            });
          }
        }
      }
      return { overall: "passed", steps, started_at: started, completed_at: new Date().toISOString() };
    },
  };
  return scripted;
}

/** A test agent whose runs go to a fresh scripted executor, with the contact ability of `site` installed. */
export async function bootScriptedAgent(
  site: RunFixtureSite,
  options: TestAgentOptions = {},
): Promise<{ agent: TestAgent; executor: ScriptedExecutor; abilityId: string }> {
  const executor = scriptedExecutor();
  const agent = await startTestAgent({ execute: executor.execute, ...options });
  const { abilityId } = await installContactAbility((method, url, payload) => agent.call(method, url, payload), site);
  return { agent, executor, abilityId };
}

/** POST /api/runs for the ability with a message and an access code, and what `body` adds. */
export const startRun = (agent: TestAgent, abilityId: string, body: Record<string, unknown>) =>
  agent.call("POST", "/api/runs", { ability_id: abilityId, inputs: { message: "Hello there", access_code: "code-1234" }, schema_version: 1, ...body });

/** The run once `done` holds for it, read every 20 ms; throws after `timeoutMs`. */
export async function untilRun(agent: TestAgent, dispatchId: string, done: (run: RunRecord) => boolean, timeoutMs = 10_000): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = RunResponseSchema.parse((await agent.call("GET", `/api/runs/${dispatchId}`)).body).run;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
