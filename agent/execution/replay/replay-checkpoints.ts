import { BY_HAND_REASON, checkSuccessCondition } from "../checkpoints/checkpoint-check";
import { Cancelled, clamp } from "../contract/execution-util";
import type { ExecutionCheckpoint } from "../contract/executor-contract";
import { remaining, stopShort, unreportedViolation, type Replay } from "./replay-state";
import { checkSignedIn } from "./sign-in-state";

/**
 * Checks checkpoints in the page, in order: skipped once the replay stopped, left to the person when
 * they confirm it, a sign-in proved by the signed-in state. A breach found meanwhile fails the
 * checkpoint and stops the replay; so does one that does not hold, when the run says so.
 */
export async function checkCheckpoints(run: Replay, list: readonly ExecutionCheckpoint[]): Promise<void> {
  for (const checkpoint of list) {
    if (run.stop !== undefined) {
      run.record.checkpoint(checkpoint, { result: "skipped", details: `not checked: ${run.stop}` });
      continue;
    }
    // The person confirms it (their choice, or nothing on the page can show it): not looked for in the page.
    if (checkpoint.verification?.by === "person") {
      run.record.checkpoint(checkpoint, {
        result: "skipped",
        details: `${BY_HAND_REASON}: "${clamp(checkpoint.success_condition, 240)}"${checkpoint.verification.reason === undefined ? "" : ` (${clamp(checkpoint.verification.reason, 200)})`}`,
      });
      continue;
    }
    let verdict: { result: "passed" | "failed" | "skipped"; details: string };
    try {
      verdict = await checkInPage(run, checkpoint);
    } catch (error) {
      if (!(error instanceof Cancelled)) throw error;
      await stopShort(run, "cancelled", "cancelled");
      run.record.checkpoint(checkpoint, { result: "skipped", details: "not checked: cancelled" });
      continue;
    }
    const breach = unreportedViolation(run);
    run.record.checkpoint(
      checkpoint,
      breach === undefined ? verdict : { result: "failed", details: `test policy: ${breach} (while checking: ${verdict.details})` },
    );
    if (breach !== undefined) await stopShort(run, run.stop ?? "the test policy was breached");
    else if (verdict.result === "failed" && run.stopOnCheckpoint) await stopShort(run, `checkpoint ${checkpoint.checkpoint_id} did not hold`);
  }
}

async function checkInPage(run: Replay, checkpoint: ExecutionCheckpoint): Promise<{ result: "passed" | "failed" | "skipped"; details: string }> {
  const options = {
    timeoutMs: Math.max(0, Math.min(run.stepTimeoutMs, remaining(run))),
    shouldStop: () => run.watch.violation !== undefined || run.cancel.over.signal.aborted,
    values: run.input.values,
  };
  const signIn = checkpoint.sign_in;
  // A sign-in is proved by the signed-in state, whether its steps ran or were not needed.
  const verdict = await run.cancel.orCancel(
    signIn !== undefined
      ? checkSignedIn(run.page, { ...checkpoint, sign_in: signIn }, options)
      : checkSuccessCondition(run.page, checkpoint.success_condition, { ...options, baseline: run.baselines.get(checkpoint.checkpoint_id) }),
  );
  return run.alreadySignedIn.has(checkpoint.checkpoint_id)
    ? { ...verdict, details: `already signed in, so its steps were skipped; ${verdict.details}` }
    : verdict;
}
