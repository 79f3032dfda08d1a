import type { NormalizedStep } from "./normalize-trace";
import type { StepEvidence } from "./attribute-evidence";

/** Consecutive steps that reach one lasting state of the page, with the step that reached it. */
export interface SubGoal {
  steps: NormalizedStep[];
  /** The evidence of the step that ended it (empty when nothing observable changed). */
  evidence: StepEvidence | undefined;
}

/**
 * Issue #14: cuts the demonstration where the page's lasting state changed — a new page or route,
 * a list that grew or shrank, an item whose state changed, a dialog that opened or closed, a status
 * or counter text. Typing and the Enter that adds a row are one sub-goal: the row is the Enter's
 * evidence (attribute-evidence.ts). Steps after the last change form a sub-goal of their own that
 * no evidence proves: only a person can say what shows it worked.
 */
export function cutSubGoals(steps: readonly NormalizedStep[], evidence: readonly StepEvidence[]): SubGoal[] {
  const byStep = new Map(evidence.map((entry) => [entry.step_id, entry]));
  const goals: SubGoal[] = [];
  let current: NormalizedStep[] = [];
  for (const step of steps) {
    current.push(step);
    const found = byStep.get(step.step_id);
    const ends = (found !== undefined && found.changes.length > 0) || step.action === "navigate" || step.action === "command" || step.action === "launch";
    if (ends) {
      goals.push({ steps: current, evidence: found });
      current = [];
    }
  }
  if (current.length > 0) goals.push({ steps: current, evidence: undefined });
  return goals;
}
