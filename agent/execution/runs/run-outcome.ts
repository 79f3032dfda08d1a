import type { CapabilityUseReceipt } from "../../../shared/capabilities/capability-use-receipt";
import type { PageSeen, RunRecord, RunState } from "../../../shared/execution/run-contract";
import type { ExecuteResult } from "../contract/executor-contract";

/**
 * Codes in `RunRecord.failure.code`: why a run that is over did not succeed. They name what
 * happened on the page or to the run, not an HTTP answer (the run was accepted with a 202).
 */
export const RUN_FAILURE_CODES = {
  /** A checkpoint the page should confirm did not hold: `page_seen` says what the page showed. */
  checkpoint: "CHECKPOINT_NOT_CONFIRMED",
  /** A step's element could not be found or acted on. */
  step: "STEP_FAILED",
  /** The run's policy refused a request or an action (sites, writes, `max_actions`). */
  policy: "TEST_POLICY_VIOLATION",
  /** No browser could be had (no Chromium, or the user's tab went away). */
  browser: "BROWSER_UNAVAILABLE",
  /** The run's test policy is a dry run: its final committing step was left undone, as asked. */
  dryRun: "DRY_RUN_COMMIT_SKIPPED",
  /** Steps were left undone for a reason the executor gave (in the message). */
  notAllRun: "STEPS_NOT_RUN",
  /** The person declined a step with consequences: it was not done. */
  declined: "CONFIRMATION_DECLINED",
  /** Nobody answered a confirmation in time: treated as declined. */
  confirmationTimeout: "CONFIRMATION_TIMED_OUT",
  /** Cancelled through `POST …/cancel` (or Stop). */
  cancelled: "RUN_CANCELLED",
  /** The agent stopped while the run was going (crash, SIGKILL, restart). */
  interrupted: "AGENT_STOPPED",
  /** The executor stopped for a reason of its own. */
  internal: "EXECUTION_ERROR",
} as const;

export interface RunOutcome {
  state: Extract<RunState, "succeeded" | "failed" | "cancelled">;
  failure?: NonNullable<RunRecord["failure"]>;
  /** §0.8 `result` of the run's capability-use receipt. */
  receipt: CapabilityUseReceipt["result"];
}

/**
 * A finished execution as a run's end state. A declined confirmation ends the run `cancelled`
 * (the person chose not to go on; nothing on the page failed, so it does not count against the
 * ability's checkpoint health) and its receipt says `denied`.
 */
export function outcomeOf(result: ExecuteResult, context: { declined?: "declined" | "timeout" | undefined; dryRun?: boolean }): RunOutcome {
  const pageSeen = result.page_seen === undefined ? {} : { page_seen: result.page_seen };
  if (result.stopped === "cancelled")
    return { state: "cancelled", failure: { code: RUN_FAILURE_CODES.cancelled, message: "The run was cancelled.", ...pageSeen }, receipt: "cancelled" };
  if (result.stopped === "declined" || context.declined !== undefined) {
    const timedOut = context.declined === "timeout";
    return {
      state: "cancelled",
      failure: {
        code: timedOut ? RUN_FAILURE_CODES.confirmationTimeout : RUN_FAILURE_CODES.declined,
        message: timedOut
          ? "Nobody confirmed the step in time, so it was not done and the run stopped."
          : "The step was declined, so it was not done and the run stopped.",
        ...pageSeen,
      },
      receipt: "denied",
    };
  }
  if (result.policy_violation !== undefined)
    return {
      state: "failed",
      failure: { code: RUN_FAILURE_CODES.policy, message: result.policy_violation.message.slice(0, 1000), ...pageSeen },
      receipt: "denied",
    };
  if (result.overall === "passed") return { state: "succeeded", receipt: "success" };
  const failedStep = result.steps.find((step) => step.result === "failed");
  if (failedStep !== undefined) {
    const checkpoint = failedStep.test_case_id.startsWith("checkpoint:");
    return {
      state: "failed",
      failure: {
        code: checkpoint ? RUN_FAILURE_CODES.checkpoint : RUN_FAILURE_CODES.step,
        message: `${failedStep.label}: ${failedStep.details}`.slice(0, 1000),
        ...pageSeen,
      },
      receipt: "failure",
    };
  }
  const skipped = result.steps.find((step) => step.result === "skipped");
  const message = (skipped === undefined ? "The run did not finish." : `${skipped.label}: ${skipped.details}`).slice(0, 1000);
  // A dry-run policy was obeyed: nothing failed, the policy held the committing step back (§0.8 "denied").
  if (context.dryRun === true && skipped !== undefined && skipped.test_case_id !== "step:browser") {
    return {
      state: "failed",
      failure: { code: RUN_FAILURE_CODES.dryRun, message: `The test policy is a dry run: ${message}`.slice(0, 1000), ...pageSeen },
      receipt: "denied",
    };
  }
  const noBrowser = skipped === undefined || skipped.test_case_id === "step:browser";
  return { state: "failed", failure: { code: noBrowser ? RUN_FAILURE_CODES.browser : RUN_FAILURE_CODES.notAllRun, message, ...pageSeen }, receipt: "failure" };
}

/** The page_seen a run keeps: input values scrubbed, the screenshot named by the route that serves it. */
export function keptPageSeen(pageSeen: PageSeen, scrub: (text: string) => string, screenshotRef: string | undefined): PageSeen {
  return {
    url: scrub(pageSeen.url).slice(0, 2000),
    title: scrub(pageSeen.title).slice(0, 240),
    headings: pageSeen.headings.slice(0, 20).map((heading) => scrub(heading).slice(0, 160)),
    buttons: pageSeen.buttons.slice(0, 40).map((button) => scrub(button).slice(0, 160)),
    ...(screenshotRef === undefined ? {} : { screenshot_ref: screenshotRef }),
  };
}
