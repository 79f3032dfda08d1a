import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import type { NormalizedStep } from "./normalize-trace";
import { diffPages, type PageChange } from "./checkpoints/page-diff";

/** A snapshot the capture took on its own (a `browser_snapshot` event): when, and which. */
export interface SnapshotMoment {
  at: string;
  ref: string;
}

export interface StepEvidence {
  step_id: string;
  /** What the page showed, once settled, that it did not show before this action (issue #14). */
  changes: PageChange[];
  /** The settled page after this step (for naming what it shows). */
  settled: PageSnapshot | undefined;
  before: PageSnapshot | undefined;
}

/**
 * Credits each change of the page to the action after which it appeared, and keeps only changes
 * that last (issue #14). The page after action i is the last snapshot taken before action i+1 (the
 * capture takes one when the page settles, so a toast that went away is not in it, and data that
 * arrived after a spinner is); an action followed by another before any snapshot was taken showed
 * nothing of its own (typing, then the Enter that adds the row: the row is the Enter's). Hover- and
 * focus-only controls never count (page-diff.ts).
 */
export function attributeEvidence(
  steps: readonly NormalizedStep[],
  snapshotOf: (ref: string | undefined) => PageSnapshot | undefined,
  moments: readonly SnapshotMoment[],
): StepEvidence[] {
  const ordered = [...moments].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  let cursor = 0; // steps come in time order: one pass over the moments
  return steps.map((step, index) => {
    const next = steps[index + 1];
    const before = snapshotOf(step.before_state_ref);
    let settledRef: string | undefined;
    if (ordered.length > 0) {
      while (cursor < ordered.length && (ordered[cursor] as SnapshotMoment).at < step.created_at) cursor += 1;
      // The last moment before the next action.
      while (cursor < ordered.length && (next === undefined || (ordered[cursor] as SnapshotMoment).at < next.created_at)) {
        settledRef = (ordered[cursor] as SnapshotMoment).ref;
        cursor += 1;
      }
      // A page load the step caused is its own document's first snapshot: the step's after-state.
      if (
        settledRef === undefined &&
        step.after_state_ref !== undefined &&
        step.after_state_ref !== next?.after_state_ref &&
        step.after_state_ref !== next?.before_state_ref
      )
        settledRef = step.after_state_ref;
    } else if (next === undefined || step.after_state_ref === next.before_state_ref || step.after_state_ref !== next.after_state_ref) {
      // No snapshot timeline (an older capture): the after-state is this step's when the next step
      // started from it, or ended elsewhere.
      settledRef = step.after_state_ref;
    }
    const settled = snapshotOf(settledRef);
    const changes = settled === undefined || settledRef === step.before_state_ref ? [] : diffPages(before, settled);
    return { step_id: step.step_id, changes, settled, before };
  });
}
