import { BY_HAND_REASON, firstLine } from "./checkpoints/checkpoint-check";
import { createExecutionRecord, type ExecutionRecord } from "./replay/execution-record";
import { BrowserUnusable, Cancelled, clamp, within } from "./contract/execution-util";
import { BrowserUnavailable, type BrowserLease, type ExecuteInput, type ExecuteResult, type ExecutionCheckpoint } from "./contract/executor-contract";
import { flowProblem, planExecution, type ExecutionPlan } from "./replay/flow-plan";
import { managedBrowser } from "./managed-browser";
import { createPolicyWatch, guardNetwork, preparePage } from "./contract/policy-guard";
import { replayFlow } from "./replay/replay-group";
import { createReplay, remaining, watchCancellation, type Cancellation } from "./replay/replay-state";

export const DEFAULT_EXECUTION_TIMEOUT_MS = 60_000;
export const DEFAULT_STEP_TIMEOUT_MS = 5_000;

/** What every stage of one execution is given before a browser is leased. */
interface Execution {
  input: ExecuteInput;
  plan: ExecutionPlan;
  record: ExecutionRecord;
  cancel: Cancellation;
  clock: { deadline: number };
  timeoutMs: number;
}

/**
 * The one executor (issue #21): replays a recorded flow step by step in the browser a provider
 * lends (a fresh managed Chromium by default), under the test policy, with the given values;
 * checks each checkpoint in the page after its last step; asks before a step with consequences
 * when someone can be asked; stops at once when its signal aborts. Never throws for anything the
 * page or the browser does. What it reports (results, progress, the page seen) never holds an input
 * value: every value is scrubbed, in a run and in a rehearsal alike.
 */
export async function execute(input: ExecuteInput): Promise<ExecuteResult> {
  const { flow, signal } = input;
  const now = input.now ?? (() => new Date());
  const timeoutMs = input.timeoutMs ?? DEFAULT_EXECUTION_TIMEOUT_MS;
  const record = createExecutionRecord(input, now().toISOString(), now);
  const clock = { deadline: Date.now() + timeoutMs };

  const invalid = flowProblem(flow);
  if (invalid !== undefined) {
    record.step({ id: "flow", label: "Read the recorded flow", result: "failed", details: invalid });
    return record.finish();
  }
  const plan = planExecution(flow, input.checkpoints, input.policy);
  const execution: Execution = { input, plan, record, cancel: watchCancellation(signal), clock, timeoutMs };

  if (signal?.aborted === true) {
    execution.cancel.abortNow();
    record.skipRemaining(plan, "cancelled", "not run: cancelled");
    return finishCancelled(execution);
  }
  // A flow with nothing to do in a page (a desktop routine's flow is only its viewport) needs no browser.
  if (!flow.steps.some((step) => step.type !== "setViewport")) return checkpointsByHand(execution);
  const provider = input.browser ?? managedBrowser();
  const browserLabel = provider.label ?? "Get the browser to act in";
  const leasing = provider({ deadline: clock.deadline });
  let lease: BrowserLease;
  try {
    lease = await execution.cancel.orCancel(leasing);
  } catch (error) {
    if (error instanceof Cancelled) {
      // The browser may still arrive: give it back.
      void leasing.then(
        (late) => late.release(),
        () => undefined,
      );
      record.skipRemaining(plan, "cancelled", "not run: cancelled");
      return finishCancelled(execution);
    }
    const reason = error instanceof BrowserUnavailable ? error.message : `The browser could not be had (${firstLine(error)}).`;
    record.step({ id: "browser", label: browserLabel, result: "skipped", details: `${reason} The flow was not replayed.` });
    execution.cancel.dispose();
    return record.finish();
  }
  return replayIn(execution, lease, browserLabel);
}

/** Its only steps are the Recorder's set-up: what is left to say is each checkpoint, for the person to confirm. */
function checkpointsByHand({ plan, record, cancel }: Execution): ExecuteResult {
  const byHand = (checkpoint: ExecutionCheckpoint) =>
    `${BY_HAND_REASON}: "${clamp(checkpoint.success_condition, 240)}" (nothing in this flow acts in a browser)`;
  // Its set-up (a viewport a terminal routine never had) is not listed as "not replayed".
  for (const checkpoint of [...plan.checkpointsBefore, ...plan.groups.flatMap((group) => group.checkpointsAfter)])
    record.checkpoint(checkpoint, { result: "skipped", details: byHand(checkpoint) });
  cancel.dispose();
  return record.finish();
}

/** The flow replayed in the leased browser, its network guarded first; the lease given back, whatever happened. */
async function replayIn(execution: Execution, lease: BrowserLease, browserLabel: string): Promise<ExecuteResult> {
  const { input, record, cancel } = execution;
  const watch = createPolicyWatch();
  const run = createReplay({ ...execution, watch, stepTimeoutMs: input.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS, page: lease.page, where: lease.where });
  const undo: Array<{ dispose(): Promise<void> }> = [];
  try {
    try {
      // Guard the network before the flow's first request.
      undo.push(
        await within(
          guardNetwork(lease, input.policy, watch, { onBehalfOfPerson: input.onBehalfOfPerson === true, personConfirmed: () => run.confirmedStep }),
          remaining(run),
          `the ${run.purpose} ran out of time`,
        ),
      );
      undo.push(
        await within(
          preparePage(lease.page, input.policy, watch, { personConfirmed: () => run.confirmedStep }),
          remaining(run),
          `the ${run.purpose} ran out of time`,
        ),
      );
    } catch (error) {
      throw new BrowserUnusable(`The browser's page could not be prepared (${firstLine(error)}). The flow was not replayed.`);
    }
    await replayFlow(run);
  } catch (error) {
    if (error instanceof BrowserUnusable) record.step({ id: "browser", label: browserLabel, result: "skipped", details: error.message });
    else
      record.step({
        id: "error",
        label: "Replay the recorded flow",
        result: "failed",
        details: `the ${run.purpose} stopped unexpectedly: ${firstLine(error)}`,
      });
  } finally {
    cancel.over.abort();
    for (const item of undo.reverse()) await item.dispose().catch(() => undefined);
    await lease.release().catch(() => undefined);
    cancel.dispose();
  }
  return record.finish(watch.violation, watch.readsElsewhere());
}

function finishCancelled({ record, cancel }: Execution): ExecuteResult {
  record.stopped = "cancelled";
  cancel.dispose();
  return record.finish();
}
