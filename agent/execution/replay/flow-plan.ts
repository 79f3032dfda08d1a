import { parse as parseRecorderFlow } from "@puppeteer/replay";
import type { ConfirmationReason } from "../../../shared/execution/run-contract";
import type { ConsequenceClass } from "../../../shared/execution/run-grants";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { RecorderStep, RecorderFlow } from "../../../shared/execution/recorder-flow";
import { firstLine } from "../checkpoints/checkpoint-check";
import type { ExecutionCheckpoint } from "../contract/executor-contract";
import { showSelector } from "../contract/execution-util";

/**
 * The flow plan: which Recorder steps make one result, where each checkpoint is checked, which step
 * a dry run leaves out, and which steps have consequences (asked before, when someone can be asked).
 */

export interface StepGroup {
  /** The normalized step's id, or `setup-N` for the flow's set-up steps (viewport, opening page). */
  stepId: string;
  label: string;
  /** Indexes into `flow.steps`: a key press is keyDown + keyUp under one normalized step. */
  indexes: number[];
  /** Checkpoints to check once this group has run. */
  checkpointsAfter: ExecutionCheckpoint[];
  /** Checkpoints whose first step this group runs: a count that changes is read before it. */
  checkpointsStarting: ExecutionCheckpoint[];
  /** Why this step is asked about before it is done, when it is. */
  consequence: ConfirmationReason | undefined;
  /** Issue #33: whether the controls it presses delete or pay (from their names and its label). */
  consequenceClasses: ConsequenceClass[];
}

export interface ExecutionPlan {
  groups: StepGroup[];
  /** Checkpoints to check before the first group (none of their steps is replayed, and nothing comes before). */
  checkpointsBefore: ExecutionCheckpoint[];
  /** The group holding the flow's final committing step (its last click or Enter). */
  committingGroup: number | undefined;
  /** `dry_run_only`: the committing group, which is not performed. */
  dryRunSkips: number | undefined;
}

/** The flow must be one @puppeteer/replay accepts, with a step id (or null) for every step. */
export function flowProblem(flow: RecorderFlow): string | undefined {
  try {
    parseRecorderFlow(JSON.parse(JSON.stringify(flow)));
  } catch (error) {
    return `The recorded flow is not a valid Chrome DevTools Recorder flow: ${firstLine(error)}`;
  }
  if (!Array.isArray(flow.step_ids) || flow.step_ids.length !== flow.steps.length) {
    return `The recorded flow has ${flow.steps.length} steps but ${Array.isArray(flow.step_ids) ? flow.step_ids.length : "no"} step ids: it cannot be matched to its checkpoints.`;
  }
  return undefined;
}

export function planExecution(flow: RecorderFlow, checkpoints: readonly ExecutionCheckpoint[], policy: TestPolicy): ExecutionPlan {
  const groups: StepGroup[] = [];
  let setupCount = 0;
  flow.steps.forEach((step, index) => {
    const stepId = flow.step_ids[index] ?? null;
    const last = groups.at(-1);
    if (stepId !== null && last !== undefined && last.stepId === stepId) {
      last.indexes.push(index);
      return;
    }
    if (stepId === null) setupCount += 1;
    groups.push({
      stepId: stepId === null ? `setup-${setupCount}` : stepId,
      label: stepLabel(step),
      indexes: [index],
      checkpointsAfter: [],
      checkpointsStarting: [],
      consequence: undefined,
      consequenceClasses: [],
    });
  });

  // A checkpoint is checked after the last group that replays one of its steps. One whose steps are
  // not in the flow (the opening navigation is a set-up step) is checked where the previous one was,
  // or after the leading set-up steps.
  const groupOfStep = new Map<string, number>();
  groups.forEach((group, groupIndex) => {
    for (const index of group.indexes) {
      const stepId = flow.step_ids[index];
      if (stepId !== null && stepId !== undefined) groupOfStep.set(stepId, groupIndex);
    }
  });
  const firstReplayed = groups.findIndex((group) => !isSetup(group));
  let previousAnchor = (firstReplayed === -1 ? groups.length : firstReplayed) - 1;
  const checkpointsBefore: ExecutionCheckpoint[] = [];
  for (const checkpoint of checkpoints) {
    const anchors = checkpoint.step_ids.map((stepId) => groupOfStep.get(stepId)).filter((anchor): anchor is number => anchor !== undefined);
    const anchor = anchors.length > 0 ? Math.max(...anchors) : previousAnchor;
    if (anchors.length > 0) groups[Math.min(...anchors)]?.checkpointsStarting.push(checkpoint);
    if (anchor < 0) checkpointsBefore.push(checkpoint);
    else groups[anchor]?.checkpointsAfter.push(checkpoint);
    previousAnchor = anchor;
  }

  let committingGroup: number | undefined;
  groups.forEach((group, groupIndex) => {
    if (group.indexes.some((index) => isCommitting(flow.steps[index]))) committingGroup = groupIndex;
  });
  groups.forEach((group, groupIndex) => {
    const steps = group.indexes.map((index) => flow.steps[index] as RecorderStep);
    if (groupIndex === committingGroup) group.consequence = "committing_submit";
    else if (steps.some((step) => step.type === "click" && soundsConsequential(targetName(step)))) group.consequence = "destructive";
    else if (steps.some((step) => "confirm" in step && step.confirm === true)) group.consequence = "marked";
    const names = steps.map((step) => (step.type === "click" ? targetName(step) : undefined));
    group.consequenceClasses = consequenceClassesOf([group.label, ...names]);
  });
  return { groups, checkpointsBefore, committingGroup, dryRunSkips: policy.mode === "dry_run_only" ? committingGroup : undefined };
}

export function isSetup(group: StepGroup): boolean {
  return /^setup-\d+$/.test(group.stepId);
}

/** A click or Enter is what submits; the last one in the flow is its committing step. */
function isCommitting(step: RecorderStep | undefined): boolean {
  return step !== undefined && (step.type === "click" || (step.type === "keyDown" && step.key === "Enter"));
}

/**
 * What a control says when pressing it sends, pays, deletes or publishes: the one word list of
 * consequences (English only), matched as whole words in its accessible name or text.
 */
const CONSEQUENCE_WORDS =
  /\b(delete|remove|discard|erase|destroy|wipe|pay|purchase|buy|checkout|check out|place (?:the |my )?order|submit (?:the |my )?order|confirm (?:the |my )?(?:order|payment|purchase)|send|publish|post|transfer|unsubscribe|cancel (?:the |my )?(?:subscription|account|order|plan|membership)|close (?:the |my )?account|deactivate)\b/i;

export function soundsConsequential(name: string | undefined): boolean {
  return name !== undefined && CONSEQUENCE_WORDS.test(name);
}

/** The consequences among those words that no standing grant covers unless ticked (issue #33): deleting and paying. */
const CLASS_WORDS: ReadonlyArray<[ConsequenceClass, RegExp]> = [
  [
    "deletes",
    /\b(delete|remove|discard|erase|destroy|wipe|unsubscribe|cancel (?:the |my )?(?:subscription|account|order|plan|membership)|close (?:the |my )?account|deactivate)\b/i,
  ],
  [
    "pays",
    /\b(pay|purchase|buy|checkout|check out|place (?:the |my )?order|submit (?:the |my )?order|confirm (?:the |my )?(?:order|payment|purchase)|transfer)\b/i,
  ],
];

/** Which of deleting and paying the given names (a step's label, the controls it presses) say it does. */
export function consequenceClassesOf(names: ReadonlyArray<string | undefined>): ConsequenceClass[] {
  return CLASS_WORDS.filter(([, words]) => names.some((name) => name !== undefined && words.test(name))).map(([kind]) => kind);
}

/** The name a click's selectors (or its relocation hint) give its target. */
function targetName(step: Extract<RecorderStep, { type: "click" }>): string | undefined {
  for (const parts of step.selectors) {
    const last = parts.at(-1) ?? "";
    const aria = /^aria\/(.*?)(?:\[role="[^"]*"\])?$/.exec(last);
    if (aria?.[1]) return aria[1];
    if (last.startsWith("text/")) return last.slice("text/".length);
  }
  return step.hint?.name;
}

/** Navigation, clicks, typing and key presses count toward `max_actions`; viewport and waits do not. */
export function countsAsAction(step: RecorderStep): boolean {
  return step.type === "navigate" || step.type === "click" || step.type === "change" || step.type === "keyDown";
}

const PLACEHOLDERS_ONLY = /^(\s*\{\{\s*[^{}\s]+\s*\}\}\s*)+$/;

export function stepLabel(step: RecorderStep): string {
  switch (step.type) {
    case "setViewport":
      return `Set the viewport to ${step.width}×${step.height}`;
    case "navigate":
      return `Open ${step.url}`;
    case "click":
      return `Click ${describeTarget(step.selectors)}`;
    case "change":
      // Only placeholders are shown: a literal value in a hand-edited flow could be something once typed.
      return `Fill ${describeTarget(step.selectors)}${step.value === "" ? "" : PLACEHOLDERS_ONLY.test(step.value) ? ` with ${step.value}` : " with a fixed value"}`;
    case "keyDown":
    case "keyUp":
      return `Press ${step.key}`;
    case "waitForElement":
      return `Wait for ${describeTarget(step.selectors)}`;
    default: {
      const unreachable: never = step;
      throw new Error(`unknown Recorder step ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The most readable alternative: an accessible name, then visible text, then the first selector. */
export function describeTarget(selectors: readonly string[][]): string {
  const single = selectors.filter((parts) => parts.length === 1).map((parts) => parts[0] as string);
  const aria = single.map((selector) => /^aria\/(.*?)(?:\[role="([^"]*)"\])?$/.exec(selector)).find((match) => match !== null);
  if (aria?.[1]) return `"${aria[1]}"${aria[2] ? ` (${aria[2]})` : ""}`;
  const text = single.find((selector) => selector.startsWith("text/"));
  if (text !== undefined) return `"${text.slice("text/".length)}"`;
  return selectors[0] !== undefined ? showSelector(selectors[0]) : "an element";
}

/** The longest a step may wait for its element or page, whatever its own `timeout` says. */
export const MAX_STEP_WAIT_MS = 60_000;

/**
 * How long this step waits: its own Recorder `timeout` when it has a usable one (capped at
 * MAX_STEP_WAIT_MS), otherwise the run's step wait.
 */
export function stepWaitMs(step: RecorderStep, stepTimeoutMs: number): number {
  const own = "timeout" in step ? step.timeout : undefined;
  if (typeof own !== "number" || !Number.isFinite(own) || own <= 0) return stepTimeoutMs;
  return Math.min(Math.round(own), MAX_STEP_WAIT_MS);
}
