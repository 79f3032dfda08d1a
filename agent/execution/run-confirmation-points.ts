import type { ConfirmationReason } from "../../shared/execution/run-contract";
import type { RecorderFlow, RecorderStep } from "../learning/compiler/emit-recorder-flow";

export interface ConfirmationPoint {
  /** Index into `flow.steps`. */
  index: number;
  /** The normalized step it replays (`flow.step_ids`), or a set-up step's index. */
  step_id: string;
  step_label: string;
  reason: ConfirmationReason;
}

/** Words of a control whose click deletes something. */
const DESTRUCTIVE = /\b(delete|remove|erase|destroy|discard|unsubscribe|close account|cancel (?:order|subscription|account))\b/i;
/** Words of a control whose click sends, pays or publishes. */
const COMMITTING = /\b(send|submit|pay|purchase|buy|order|checkout|check out|publish|post|transfer|sign|book|place|confirm)\b/i;

/** The control's accessible name or text, from its `aria/…` or `text/…` selector or its relocation hint. */
export function targetNameOf(step: RecorderStep): string | undefined {
  if (step.type !== "click") return undefined;
  for (const parts of step.selectors) {
    const single = parts.length === 1 ? parts[0] : undefined;
    if (single === undefined) continue;
    const aria = /^aria\/(.*?)(?:\[role="[^"]*"\])?$/.exec(single);
    if (aria?.[1]) return aria[1];
    if (single.startsWith("text/")) return single.slice("text/".length);
  }
  return step.hint?.name;
}

function labelOf(step: RecorderStep): string {
  const name = targetNameOf(step);
  if (step.type === "keyDown") return `Press ${step.key}`;
  return name === undefined ? "Click the recorded control" : `Click "${name}"`;
}

/**
 * The steps of a flow that wait for the person's confirmation in a run (issue #21 "Confirmation
 * before consequences"), as the run-spec lists them: a click on a control that deletes, sends,
 * pays or publishes, and the flow's committing submit — its last click or Enter after a field
 * was filled, the step a `dry_run_only` rehearsal leaves out.
 */
export function confirmationPointsOf(flow: Pick<RecorderFlow, "steps" | "step_ids">): ConfirmationPoint[] {
  const points: ConfirmationPoint[] = [];
  const stepIdOf = (index: number) => flow.step_ids[index] ?? `setup-${index}`;
  let lastCommitting: number | undefined;
  let filled = false;
  flow.steps.forEach((step, index) => {
    if (step.type === "change") filled = true;
    if ((step.type === "click" || (step.type === "keyDown" && step.key === "Enter")) && filled) lastCommitting = index;
    const name = targetNameOf(step);
    if (name === undefined) return;
    if (DESTRUCTIVE.test(name)) points.push({ index, step_id: stepIdOf(index), step_label: labelOf(step), reason: "destructive" });
    else if (COMMITTING.test(name)) points.push({ index, step_id: stepIdOf(index), step_label: labelOf(step), reason: "committing_submit" });
  });
  if (lastCommitting !== undefined && !points.some((point) => point.index === lastCommitting)) {
    const step = flow.steps[lastCommitting] as RecorderStep;
    points.push({ index: lastCommitting, step_id: stepIdOf(lastCommitting), step_label: labelOf(step), reason: "committing_submit" });
  }
  return points.sort((a, b) => a.index - b.index);
}
