import type { PageSeen } from "../../../shared/execution/run-contract";
import { clamp, valueRedactor } from "../contract/execution-util";
import type { ExecuteInput, ExecuteResult, ExecutionCheckpoint, ExecutionProgress } from "../contract/executor-contract";
import type { ExecutionPlan } from "./flow-plan";

/**
 * What an execution found, in order, as it happens: every label and detail scrubbed of input values
 * before it is kept or sent on as progress.
 */

const DETAILS_MAX = 1000;
const LABEL_MAX = 240;

type StepEntry = ExecuteResult["steps"][number];
type CheckpointEntry = NonNullable<ExecuteResult["checkpoints"]>[number];

export interface ExecutionRecord {
  /** `notNeeded`: skipped because the page did not need it (already signed in, issue #35): the execution can still pass. */
  step(entry: {
    id: string;
    label: string;
    result: StepEntry["result"];
    details: string;
    resolved_selector?: StepEntry["resolved_selector"];
    relocated?: StepEntry["relocated"];
    notNeeded?: boolean;
  }): void;
  checkpoint(checkpoint: ExecutionCheckpoint, verdict: { result: "passed" | "failed" | "skipped"; details: string }): void;
  /** Every step and checkpoint of the plan, skipped for the one reason (nothing was run); `why` words a checkpoint's own reason. */
  skipRemaining(plan: ExecutionPlan, stop: string, details: string, why?: (checkpoint: ExecutionCheckpoint) => string): void;
  /** Scrubbed and shortened as a label (240) or a text (1000). */
  clean(text: string, as: "label" | "text"): string;
  stopped: ExecuteResult["stopped"];
  pageSeen: PageSeen | undefined;
  finish(violation?: string, readsElsewhere?: ExecuteResult["reads_elsewhere"]): ExecuteResult;
}

export function createExecutionRecord(input: ExecuteInput, startedAt: string, now: () => Date): ExecutionRecord {
  const redact = valueRedactor(input.values);
  const steps: StepEntry[] = [];
  const checkpoints: CheckpointEntry[] = [];
  /** Steps skipped because they were not needed: they do not make the execution partial. */
  const notNeeded = new Set<StepEntry>();
  const clean = (text: string, as: "label" | "text") => clamp(redact(text), as === "label" ? LABEL_MAX : DETAILS_MAX);
  const emit = (event: ExecutionProgress) => {
    try {
      input.onProgress?.(event);
    } catch {
      // A listener that fails does not stop the execution.
    }
  };

  const record: ExecutionRecord = {
    stopped: undefined,
    pageSeen: undefined,
    clean,
    step(entry) {
      const label = clean(entry.label, "label");
      const details = clean(entry.details, "text");
      const relocated = entry.relocated === undefined ? undefined : { from: clean(entry.relocated.from, "label"), to: clean(entry.relocated.to, "label") };
      const kept: StepEntry = {
        test_case_id: `step:${entry.id}`,
        label,
        result: entry.result,
        details,
        ...(entry.resolved_selector !== undefined ? { resolved_selector: entry.resolved_selector } : {}),
        ...(relocated !== undefined ? { relocated } : {}),
      };
      steps.push(kept);
      if (entry.notNeeded === true && entry.result === "skipped") notNeeded.add(kept);
      emit({ kind: "step", step_id: entry.id, label, result: entry.result, details, ...(relocated !== undefined ? { relocated } : {}) });
    },
    checkpoint(checkpoint, verdict) {
      const goal = clean(checkpoint.goal, "label");
      const details = clean(verdict.details, "text");
      const status = verdict.result === "passed" ? "reached" : verdict.result;
      steps.push({
        test_case_id: `checkpoint:${checkpoint.checkpoint_id}`,
        label: clean(`Checkpoint ${checkpoint.checkpoint_id}: ${checkpoint.goal}`, "label"),
        result: verdict.result,
        details,
      });
      checkpoints.push({ checkpoint_id: checkpoint.checkpoint_id, goal, status, evidence: details });
      emit({ kind: "checkpoint", checkpoint_id: checkpoint.checkpoint_id, goal, status, evidence: details });
    },
    skipRemaining(plan, stop, details, why = () => `not checked: ${stop}`) {
      for (const checkpoint of plan.checkpointsBefore) record.checkpoint(checkpoint, { result: "skipped", details: why(checkpoint) });
      for (const group of plan.groups) {
        record.step({ id: group.stepId, label: group.label, result: "skipped", details });
        for (const checkpoint of group.checkpointsAfter) record.checkpoint(checkpoint, { result: "skipped", details: why(checkpoint) });
      }
    },
    finish(violation, readsElsewhere = []) {
      const failed = violation !== undefined || steps.some((step) => step.result === "failed");
      const skipped = steps.some((step) => step.result === "skipped" && !notNeeded.has(step));
      return {
        overall: failed ? "failed" : skipped ? "partial" : "passed",
        steps,
        checkpoints,
        ...(violation !== undefined ? { policy_violation: { code: "TEST_POLICY_VIOLATION" as const, message: clean(violation, "text") } } : {}),
        ...(readsElsewhere.length > 0 ? { reads_elsewhere: readsElsewhere.map((read) => ({ ...read, origin: clean(read.origin, "label") })) } : {}),
        ...(record.stopped !== undefined ? { stopped: record.stopped } : {}),
        ...(record.pageSeen !== undefined ? { page_seen: record.pageSeen } : {}),
        started_at: startedAt,
        completed_at: now().toISOString(),
      };
    },
  };
  return record;
}
