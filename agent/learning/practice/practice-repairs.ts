import { parseSuccessCondition } from "../../../shared/learning/checkpoints/success-conditions";
import type { ExecutionCheckpoint } from "../../execution/contract/executor-contract";
import { MAX_STEP_WAIT_MS } from "../../execution/replay/flow-plan";
import type { RecorderStep, RecorderFlow } from "../../../shared/execution/recorder-flow";

/**
 * The repairs a practice can make (issue #16), as pure changes to a copy of the skill's flow and
 * checkpoints. Each returns the new flow or checkpoint and what it changed in words, or undefined
 * when it cannot repair; the driver re-runs the flow to confirm it.
 */

type TargetStep = Extract<RecorderStep, { selectors: string[][] }>;

const hasTarget = (step: RecorderStep): step is TargetStep => "selectors" in step;

/** The indexes of the Recorder steps that replay normalized step `stepId` and look for an element. */
function targetIndexes(flow: RecorderFlow, stepId: string): number[] {
  return flow.steps.flatMap((step, index) => (flow.step_ids[index] === stepId && hasTarget(step) ? [index] : []));
}

/** `"Send message now" (button)` — how the executor names the element it relocated to. */
const DESCRIBED = /^"(.+)" \(([a-z]+)\)$/;

/**
 * A target the executor found again by similarity: the element it found, by its accessible role and
 * name, becomes the step's first selector alternative (and its hint), so the next run resolves it
 * at once instead of by similarity. The older alternatives stay, after it.
 */
export function relocateTarget(flow: RecorderFlow, stepId: string, relocatedTo: string): { flow: RecorderFlow; description: string } | undefined {
  const match = DESCRIBED.exec(relocatedTo.trim());
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  const [name, role] = [match[1], match[2]];
  // A name the executor scrubbed held an input value: it is not a selector to keep.
  if (/\[(?:masked|redacted)[^\]]*\]|•{3,}/i.test(name)) return undefined;
  const indexes = targetIndexes(flow, stepId);
  if (indexes.length === 0) return undefined;
  const selector = [`aria/${name}[role="${role}"]`];
  const steps = flow.steps.map((step, index) => {
    if (!indexes.includes(index) || !hasTarget(step)) return step;
    const rest = step.selectors.filter((parts) => parts.join(" ") !== selector.join(" "));
    return {
      ...step,
      selectors: [selector, ...rest].slice(0, 12),
      ...(step.type === "waitForElement" ? {} : { hint: { ...step.hint, role, name } }),
    } as RecorderStep;
  });
  return {
    flow: { ...flow, steps },
    description: `The step's element is now found as the ${role} "${name}" first; the recorded selectors stay as alternatives.`,
  };
}

/**
 * A step whose element appears later than the run's step wait, and did appear when waited for
 * longer (`appearedAfterMs`): the step gets its own wait, the Recorder's per-step `timeout`, of
 * twice the time it took (at least the run's step wait, which it missed), rounded up to whole
 * seconds, at most the executor's cap (MAX_STEP_WAIT_MS). Undefined when the step has no element to wait
 * for or the time it took is unknown.
 */
export function waitLonger(
  flow: RecorderFlow,
  stepId: string,
  appearedAfterMs: number,
  stepTimeoutMs: number,
): { flow: RecorderFlow; description: string; timeoutMs: number } | undefined {
  if (!Number.isFinite(appearedAfterMs) || appearedAfterMs <= 0) return undefined;
  const indexes = targetIndexes(flow, stepId);
  if (indexes.length === 0) return undefined;
  // It failed with the step wait, so it took at least that long once.
  const took = Math.max(appearedAfterMs, stepTimeoutMs);
  const timeoutMs = Math.min(MAX_STEP_WAIT_MS, Math.ceil((took * 2) / 1000) * 1000);
  const steps = flow.steps.map((step, index) => (indexes.includes(index) && hasTarget(step) ? ({ ...step, timeout: timeoutMs } as RecorderStep) : step));
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  return {
    flow: { ...flow, steps },
    timeoutMs,
    description: `The step's element loads late (it took about ${seconds(took)}, longer than the ${seconds(stepTimeoutMs)} every step waits): the step now waits up to ${seconds(timeoutMs)} for it (its own Recorder timeout).`,
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A checkpoint whose evidence held for one input set and not another: the part of its success
 * condition that is that input's value is taken out, when what remains is still a sentence the page
 * check reads. Otherwise nothing is repaired: marking it for a person would not change what the
 * executor checks (it checks every checkpoint's condition in the page), so a re-run could not
 * confirm it. Values are matched here only, in memory; the description never holds one.
 */
export function generaliseCheckpoint(
  checkpoint: ExecutionCheckpoint,
  heldWith: Readonly<Record<string, string>>,
): { checkpoint: ExecutionCheckpoint; description: string } | undefined {
  const condition = checkpoint.success_condition;
  const values = Object.entries(heldWith).filter(([, value]) => value.trim().length >= 2 && condition.toLowerCase().includes(value.trim().toLowerCase()));
  if (values.length === 0) return undefined;
  // The page shows the rest around the value: keep the longest piece of the quoted text without it,
  // which the page shows whatever the input (a piece cut out of the middle would not be on the page).
  const quotedText = /"([^"]*)"/.exec(condition)?.[1];
  if (quotedText === undefined) return undefined;
  const pattern = new RegExp(values.map(([, value]) => escapeRegExp(value.trim())).join("|"), "gi");
  const pieces = quotedText.split(pattern).map((piece) => piece.replace(/^[\s,.;:!?'-]+|[\s,;:'-]+$/g, "").trim());
  const longest = pieces.reduce((best, piece) => (piece.length > best.length ? piece : best), "");
  const generalised = condition.replace(`"${quotedText}"`, `"${longest}"`);
  if (parseSuccessCondition(generalised).kind === "by_hand" || longest.replace(/\W+/g, "").length < 3) return undefined;
  const names = values.map(([name]) => `{{${name}}}`).join(", ");
  return {
    checkpoint: { ...checkpoint, success_condition: generalised },
    description: `The part of its success condition that was the value of ${names} is taken out: "${generalised}".`,
  };
}
