import { parseSuccessCondition } from "../../../shared/learning/success-conditions";
import type { ExecutionCheckpoint } from "../../execution/executor-contract";
import type { RecorderFlow, RecorderStep } from "../compiler/emit-recorder-flow";

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
    return { ...step, selectors: [selector, ...rest].slice(0, 12), ...(step.type === "waitForElement" ? {} : { hint: { ...step.hint, role, name } }) } as RecorderStep;
  });
  return { flow: { ...flow, steps }, description: `The step's element is now found as the ${role} "${name}" first; the recorded selectors stay as alternatives.` };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A checkpoint whose evidence held for one input set and not another: the part of its success
 * condition that is that input's value is taken out when what remains is still a sentence the page
 * check reads; otherwise the checkpoint is marked as confirmed by a person. Values are matched here
 * only, in memory; the description never holds one.
 */
export function generaliseCheckpoint(checkpoint: ExecutionCheckpoint, heldWith: Readonly<Record<string, string>>): { checkpoint: ExecutionCheckpoint; description: string } | undefined {
  const condition = checkpoint.success_condition;
  const values = Object.entries(heldWith).filter(([, value]) => value.trim().length >= 2 && condition.toLowerCase().includes(value.trim().toLowerCase()));
  if (values.length === 0) {
    if (checkpoint.verification?.by === "person") return undefined;
    return {
      checkpoint: { ...checkpoint, verification: { by: "person", reason: "Its evidence held for one set of test inputs only; a person confirms it." } },
      description: "Its evidence held for one set of test inputs only and no input value could be taken out of it: a person confirms it from now on.",
    };
  }
  let generalised = condition;
  for (const [, value] of values) generalised = generalised.replace(new RegExp(`\\s*${escapeRegExp(value.trim())}\\s*`, "gi"), " ");
  generalised = generalised.replace(/"\s+/g, '"').replace(/\s+"/g, ' "').replace(/\s{2,}/g, " ").replace(/\s+([,.;:!?])/g, "$1").trim();
  const names = values.map(([name]) => `{{${name}}}`).join(", ");
  const check = parseSuccessCondition(generalised);
  const quoted = /"([^"]*)"/.exec(generalised)?.[1]?.replace(/[\s,.;:!?]+/g, "") ?? "";
  if (check.kind !== "by_hand" && quoted.length > 0) {
    return {
      checkpoint: { ...checkpoint, success_condition: generalised, verification: { by: "page" } },
      description: `The part of its success condition that was the value of ${names} is taken out: "${generalised}".`,
    };
  }
  return {
    checkpoint: { ...checkpoint, verification: { by: "person", reason: "Its evidence was the value of a test input; a person confirms it." } },
    description: `Its evidence was the value of ${names} and nothing the page check reads is left without it: a person confirms it from now on.`,
  };
}
