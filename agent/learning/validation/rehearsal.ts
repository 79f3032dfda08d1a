import type { ErrorCode } from "../../../shared/common/error-codes";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { ValidationStepResult } from "../../../shared/learning/proposals/validation-run";
import { execute } from "../../execution/executor";
import type { BrowserProvider, ExecutionCheckpoint, ExecutionParameter } from "../../execution/contract/executor-contract";
import { DEFAULT_CHROMIUM_PATH, MANAGED_PROFILE_PREFIX, managedBrowser } from "../../execution/managed-browser";
import { describeReadsElsewhere, type ReadElsewhere } from "../../execution/contract/policy-guard";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";

export { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH } from "../../execution/managed-browser";
export { hostAllowed } from "../../execution/contract/policy-guard";
export { toPuppeteerSelector } from "../../execution/replay/target-finder";

export const DEFAULT_REHEARSAL_TIMEOUT_MS = 60_000;
export const DEFAULT_STEP_TIMEOUT_MS = 5_000;
/** Folder-name prefix of the throw-away profiles under the OS temp dir. */
export const REHEARSAL_PROFILE_PREFIX = MANAGED_PROFILE_PREFIX;

export type RehearsalCheckpoint = ExecutionCheckpoint;
export type RehearsalParameter = ExecutionParameter;

export interface RehearsalInput {
  /** The proposal's `flow.recorder.json` (compiler/emit-recorder-flow.ts). */
  flow: RecorderFlow;
  checkpoints: readonly RehearsalCheckpoint[];
  parameters: readonly RehearsalParameter[];
  /** Values the user gave for this validation, by parameter name; never values from the capture. */
  testValues: Readonly<Record<string, string>>;
  policy: TestPolicy;
  /** Where to rehearse; by default a fresh managed headless Chromium (`chromiumPath`, `tempDir`). */
  browser?: BrowserProvider;
  chromiumPath?: string;
  /** The whole rehearsal, browser start included. */
  timeoutMs?: number;
  /** How long one step may wait for its element, and a checkpoint for its state. */
  stepTimeoutMs?: number;
  /** Where the throw-away profile folder is made (the OS temp dir by default); it is removed after. */
  tempDir?: string;
  now?: () => Date;
}

/** One `ValidationStepResult` (§0C.10) without the run's ids and timestamps, which the run adds. */
export interface RehearsalStepResult extends Pick<ValidationStepResult, "test_case_id" | "label" | "result"> {
  /** At most 1000 characters; for a replayed element, which selector alternative resolved. */
  details: string;
  /** The alternative that found the element: `index` into the step's `selectors` (0-based) and its parts. */
  resolved_selector?: { index: number; selector: string[] };
}

export interface RehearsalPolicyViolation {
  code: Extract<ErrorCode, "TEST_POLICY_VIOLATION">;
  message: string;
}

export interface RehearsalResult {
  /** `passed` only when every step ran and every checkpoint was confirmed in the page. */
  overall: "passed" | "failed" | "partial";
  steps: RehearsalStepResult[];
  policy_violation?: RehearsalPolicyViolation;
  /** Reads from other hosts the policy let through (`live_read_safe_write`); also listed as the `policy:reads_elsewhere` row. */
  reads_elsewhere?: ReadElsewhere[];
  started_at: string;
  completed_at: string;
}

/**
 * §0C.14 rehearsal: the executor (agent/execution/executor.ts) replaying the recorded flow in a
 * fresh headless Chromium profile under the session's TestPolicy, with the test values, checking
 * each checkpoint in the page after its last step. Nobody is asked before a committing step: the
 * test policy decides (a dry run leaves it out). Every test value is scrubbed from the result
 * (issue #35: a page that shows the test title back must not put it in the stored step details or
 * receipts). Never throws for anything the page or the browser does: a missing browser gives
 * `partial`, a breach gives `failed` with `TEST_POLICY_VIOLATION`. Reads from other hosts that
 * `live_read_safe_write` let through (an avatar, a web font) end the list as one passed row,
 * `policy:reads_elsewhere`, so the person sees where the page read from.
 */
export async function runRehearsal(input: RehearsalInput): Promise<RehearsalResult> {
  const result = await execute({
    flow: input.flow,
    checkpoints: input.checkpoints,
    parameters: input.parameters,
    values: input.testValues,
    policy: input.policy,
    browser:
      input.browser ??
      managedBrowser({ chromiumPath: input.chromiumPath ?? DEFAULT_CHROMIUM_PATH, ...(input.tempDir !== undefined ? { tempDir: input.tempDir } : {}) }),
    timeoutMs: input.timeoutMs ?? DEFAULT_REHEARSAL_TIMEOUT_MS,
    stepTimeoutMs: input.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
    stopOnCheckpointFailure: false,
    purpose: "rehearsal",
    ...(input.now !== undefined ? { now: input.now } : {}),
  });
  const steps: RehearsalStepResult[] = result.steps.map((step) => ({
    test_case_id: step.test_case_id.startsWith("step:") ? `rehearsal:${step.test_case_id.slice("step:".length)}` : step.test_case_id,
    label: step.label,
    result: step.result,
    details: step.details,
    ...(step.resolved_selector !== undefined ? { resolved_selector: step.resolved_selector } : {}),
  }));
  const reads = result.reads_elsewhere ?? [];
  if (reads.length > 0) {
    const listed = describeReadsElsewhere(reads);
    steps.push({
      test_case_id: "policy:reads_elsewhere",
      label: "Reads from other hosts, let through by the test policy",
      result: "passed",
      details:
        `the page read ${listed} (${input.policy.mode} lets reads from other hosts through; writes there and pages off the allowed sites stay refused)`.slice(
          0,
          1000,
        ),
    });
  }
  return {
    overall: result.overall,
    steps,
    ...(result.policy_violation !== undefined ? { policy_violation: result.policy_violation } : {}),
    ...(reads.length > 0 ? { reads_elsewhere: reads } : {}),
    started_at: result.started_at,
    completed_at: result.completed_at,
  };
}
