import type { ValidationRunsResponse } from "../../../shared/learning/route-contracts";
import type { WorkflowCheckpoint } from "../../../shared/learning/checkpoints/semantic-workflow-interpretation";

/**
 * Issue #35 "a failed validation says what to do": each thing the newest validation found wrong,
 * in the person's words, with the fixes that apply to it. A checkpoint that did not hold can be
 * confirmed by hand at each run or given other evidence; a step the rehearsal could not do is
 * demonstrated again (a new session seeded with this one's steps and sites); anything else is
 * revised.
 */
export type AdviceFix = "confirm_by_hand" | "other_evidence" | "demonstrate_again" | "revise";

export interface ValidationAdviceItem {
  test_case_id: string;
  /** What went wrong, said as the person would: "The check “The page says Saved” did not hold." */
  what: string;
  /** The validation's own details, when it gave any. */
  why?: string;
  /** The checkpoint it is about, for the checkpoint fixes. */
  checkpoint?: Pick<WorkflowCheckpoint, "checkpoint_id" | "goal" | "success_condition">;
  fixes: AdviceFix[];
}

export interface ValidationAdvice {
  /** When the validation that found these ran (the newest run's start). */
  at: string;
  items: ValidationAdviceItem[];
}

const quoted = (text: string) => `“${text}”`;

/**
 * The newest validation's failures: the newest run of each kind, taken together (one validate
 * request writes a lint, a trigger and a rehearsal run). None when the newest of them all passed.
 */
export function validationAdvice(validation: ValidationRunsResponse, checkpoints: readonly WorkflowCheckpoint[]): ValidationAdvice | null {
  const newestOfKind = new Map<string, ValidationRunsResponse["runs"][number]>();
  for (const run of validation.runs) {
    const seen = newestOfKind.get(run.run_kind);
    if (seen === undefined || run.started_at >= seen.started_at) newestOfKind.set(run.run_kind, run);
  }
  const runs = [...newestOfKind.values()].filter((run) => run.overall_result === "failed" || run.overall_result === "partial");
  if (runs.length === 0) return null;
  const ids = new Set(runs.map((run) => run.validation_run_id));
  const items = validation.steps
    .filter((step) => ids.has(step.validation_run_id) && step.result === "failed")
    .map((step): ValidationAdviceItem => {
      const why = step.details !== undefined && step.details.trim() !== "" ? { why: step.details } : {};
      if (step.test_case_id.startsWith("checkpoint:")) {
        const id = step.test_case_id.slice("checkpoint:".length);
        const checkpoint = checkpoints.find((candidate) => candidate.checkpoint_id === id);
        if (checkpoint !== undefined) {
          const byPerson = checkpoint.verification?.by === "person";
          return {
            test_case_id: step.test_case_id,
            what: `The check ${quoted(checkpoint.goal)} did not hold (expected: ${checkpoint.success_condition}).`,
            ...why,
            checkpoint: { checkpoint_id: checkpoint.checkpoint_id, goal: checkpoint.goal, success_condition: checkpoint.success_condition },
            fixes: byPerson ? ["other_evidence"] : ["other_evidence", "confirm_by_hand"],
          };
        }
      }
      if (step.test_case_id.startsWith("rehearsal:")) {
        return { test_case_id: step.test_case_id, what: `The rehearsal could not do the step ${quoted(step.label)}.`, ...why, fixes: ["demonstrate_again"] };
      }
      if (step.test_case_id === "lint:checkpoints") {
        return {
          test_case_id: step.test_case_id,
          what: "A check's evidence is not something a page shows (a selector, a typed value or a click).",
          ...why,
          fixes: ["revise"],
        };
      }
      if (step.test_case_id.startsWith("trigger:") || step.test_case_id.startsWith("collision:")) {
        return { test_case_id: step.test_case_id, what: `${step.label}: the wording that calls this skill needs changing.`, ...why, fixes: ["revise"] };
      }
      return { test_case_id: step.test_case_id, what: `${step.label} did not pass.`, ...why, fixes: ["revise"] };
    });
  if (items.length === 0) return null;
  return {
    at: runs
      .map((run) => run.started_at)
      .sort()
      .at(-1)!,
    items,
  };
}
