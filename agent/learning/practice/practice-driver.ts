import type { PracticeRepair, PracticeRound, PracticeSetup, PracticeViewport } from "../../../shared/learning/sessions/practice";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { ExecuteInput, ExecuteResult, ExecutionCheckpoint, ExecutionParameter, ExecutionProgress } from "../../execution/contract/executor-contract";
import { countsAsAction } from "../../execution/replay/flow-plan";
import { hostAllowed } from "../../execution/contract/policy-guard";
import type { RecorderStep, RecorderFlow } from "../../../shared/execution/recorder-flow";
import { generaliseCheckpoint, relocateTarget, waitLonger } from "./practice-repairs";

/** What a practice plays: the skill's flow, checkpoints and parameters (a working copy it repairs). */
export interface PracticePlan {
  flow: RecorderFlow;
  checkpoints: ExecutionCheckpoint[];
  parameters: ExecutionParameter[];
}

export interface PracticeDriverInput {
  plan: PracticePlan;
  setup: PracticeSetup;
  policy: TestPolicy;
  /** The one executor (agent/execution/executor.ts) with the managed browser. */
  execute: (input: ExecuteInput) => Promise<ExecuteResult>;
  onProgress?: (round: number, event: ExecutionProgress) => void;
  signal?: AbortSignal;
  now?: () => Date;
}

export interface PracticeDriverResult {
  status: "repaired" | "nothing_to_repair" | "could_not_repair" | "policy_violation" | "failed";
  message: string;
  rounds: PracticeRound[];
  /** Each round's steps and checkpoints as the executor reported them (no input values). */
  results: ExecuteResult[];
  repairs: PracticeRepair[];
  /** What the practice found and could not repair, in words (no input values). */
  findings: string[];
  plan: PracticePlan;
}

/** The flow in this window size (its set-up step), or with one put first when it has none. */
export function withViewport(flow: RecorderFlow, viewport: PracticeViewport): RecorderFlow {
  const size = {
    type: "setViewport" as const,
    width: viewport.width,
    height: viewport.height,
    deviceScaleFactor: 1,
    isMobile: viewport.width < 600,
    hasTouch: false,
    isLandscape: viewport.width >= viewport.height,
  };
  const index = flow.steps.findIndex((step) => step.type === "setViewport");
  if (index >= 0) return { ...flow, steps: flow.steps.map((step, at) => (at === index ? size : step)) };
  return { ...flow, steps: [size, ...flow.steps], step_ids: [null, ...flow.step_ids] };
}

/** The step without a wait of its own (the Recorder `timeout`): it waits as every step does. */
function withoutOwnWait(step: RecorderStep): RecorderStep {
  if (!("timeout" in step)) return step;
  const { timeout: _own, ...rest } = step;
  return rest as RecorderStep;
}

/** Why playing this flow would leave the test policy (a site not allowed, too many actions), or undefined. */
export function policyProblem(flow: RecorderFlow, policy: TestPolicy): string | undefined {
  for (const step of flow.steps) {
    if (step.type !== "navigate") continue;
    let url: URL;
    try {
      url = new URL(step.url);
    } catch {
      continue;
    }
    if (!hostAllowed(url, policy.allowed_domains)) {
      return `The flow opens ${url.host}, which the test policy does not allow (allowed_domains: ${policy.allowed_domains.join(", ") || "none"}).`;
    }
  }
  const actions = flow.steps.filter((step: RecorderStep) => countsAsAction(step)).length;
  if (actions > policy.max_actions) return `The flow takes ${actions} actions; the test policy allows at most ${policy.max_actions} (max_actions).`;
  return undefined;
}

/** What a practice has played and repaired so far; the round functions add to it. */
interface PracticeState {
  plan: PracticePlan;
  rounds: PracticeRound[];
  results: ExecuteResult[];
  repairs: PracticeRepair[];
  /** For each checkpoint, the input sets (0-based) its evidence held and failed with. */
  evidence: Map<string, { held: Set<number>; failed: Set<number> }>;
  findings: string[];
  diagnosed: Set<string>;
}

/** One round as it is played: its number, input set, flow and record. */
interface RoundContext {
  round: number;
  setIndex: number | undefined;
  flow: RecorderFlow;
  record: PracticeRound;
  /** Plays the round's flow (or `playFlow`) with this step wait; `took` learns how long each step took. */
  play: (stepTimeoutMs: number, took?: Map<string, number>, playFlow?: RecorderFlow) => Promise<ExecuteResult>;
}

const finishWith = (state: PracticeState, status: PracticeDriverResult["status"], message: string): PracticeDriverResult => ({
  status,
  message,
  rounds: state.rounds,
  results: state.results,
  repairs: state.repairs,
  findings: state.findings,
  plan: state.plan,
});

/** Plays through the one executor; `took`, when given, learns how long each step took: from the previous step's end to its own. */
function playerFor(
  input: PracticeDriverInput,
  state: PracticeState,
  round: number,
  values: Record<string, string>,
  flow: RecorderFlow,
  now: () => Date,
): RoundContext["play"] {
  return (stepTimeoutMs, took, playFlow = flow) => {
    let last = Date.now();
    const timed = (event: ExecutionProgress) => {
      if (event.kind === "step" && took !== undefined) took.set(`step:${event.step_id}`, Date.now() - last);
      if (event.kind === "step") last = Date.now();
      input.onProgress?.(round, event);
    };
    return input.execute({
      flow: playFlow,
      checkpoints: state.plan.checkpoints,
      parameters: state.plan.parameters,
      values,
      policy: input.policy,
      stepTimeoutMs,
      stopOnCheckpointFailure: false,
      purpose: "rehearsal",
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      ...(input.onProgress === undefined && took === undefined ? {} : { onProgress: timed }),
      now,
    });
  };
}

/** The round's record from what the executor reported (labels and details, never a value). */
function roundRecord(base: Pick<PracticeRound, "round" | "viewport" | "input_set" | "started_at">, result: ExecuteResult): PracticeRound {
  return {
    ...base,
    overall: result.overall,
    held: result.steps.filter((step) => step.result === "passed").map((step) => step.label.slice(0, 240)),
    failed: result.steps
      .filter((step) => step.result === "failed")
      .map((step) => ({ test_case_id: step.test_case_id.slice(0, 160), label: step.label.slice(0, 240), details: step.details.slice(0, 1000) })),
    repairs_made: [],
    started_at: result.started_at,
    completed_at: result.completed_at,
  };
}

/**
 * An element that was not there in time: played again with a longer wait, to tell content that
 * loads late from an element that is gone. Content that loads late is repaired: the step gets its
 * own wait (the Recorder's per-step `timeout`, which the executor honours), and the next round,
 * played with the usual step wait, confirms it. Returns the replay's policy violation, if any.
 */
async function diagnoseMissing(state: PracticeState, setup: PracticeSetup, round: RoundContext, result: ExecuteResult): Promise<string | undefined> {
  const missing = result.steps.filter(
    (step) =>
      step.result === "failed" &&
      step.test_case_id.startsWith("step:") &&
      step.relocated === undefined &&
      /found the element within/.test(step.details) &&
      !state.diagnosed.has(step.test_case_id),
  );
  if (missing.length === 0) return undefined;
  const longer = Math.min(30_000, setup.step_timeout_ms * 4);
  const took = new Map<string, number>();
  const { flow } = round;
  // The missing steps wait the longer wait, whatever wait of their own they had.
  const late = new Set(missing.map((step) => step.test_case_id.slice("step:".length)));
  const waiting = { ...flow, steps: flow.steps.map((step, index) => (late.has(flow.step_ids[index] ?? "") ? withoutOwnWait(step) : step)) };
  const replay = await round.play(longer, took, waiting);
  if (replay.policy_violation !== undefined) return replay.policy_violation.message;
  for (const step of missing) {
    state.diagnosed.add(step.test_case_id);
    const again = replay.steps.find((candidate) => candidate.test_case_id === step.test_case_id);
    if (again?.result !== "passed") {
      state.findings.push(`${step.label}: its element is not on the page, even after ${longer / 1000} s, and nothing like it was found.`);
      continue;
    }
    const repaired =
      again.relocated === undefined
        ? waitLonger(state.plan.flow, step.test_case_id.slice("step:".length), took.get(step.test_case_id) ?? Number.NaN, setup.step_timeout_ms)
        : undefined;
    if (repaired === undefined) {
      state.findings.push(
        `${step.label}: the page shows its element later than the step waits (${setup.step_timeout_ms / 1000} s); it appeared within ${longer / 1000} s, but the step could not be given a longer wait.`,
      );
      continue;
    }
    state.plan = { ...state.plan, flow: repaired.flow };
    state.repairs.push({ kind: "step_waits_longer", subject: step.test_case_id, description: repaired.description.slice(0, 600), made_in_round: round.round });
    round.record.repairs_made.push(step.test_case_id);
  }
  return undefined;
}

/** Confirms earlier repairs: the repaired step passed without being relocated, the repaired checkpoint held. */
function confirmRepairs(state: PracticeState, round: number, result: ExecuteResult): void {
  const outcome = new Map(result.steps.map((step) => [step.test_case_id, step]));
  for (const repair of state.repairs) {
    if (repair.confirmed_in_round !== undefined || repair.made_in_round === round) continue;
    const seen = outcome.get(repair.subject);
    const held = seen?.result === "passed" && seen.relocated === undefined;
    if (held) repair.confirmed_in_round = round;
  }
}

/** A target the executor found again by similarity: the element it found becomes the step's first selector. */
function repairRelocated(state: PracticeState, round: RoundContext, result: ExecuteResult): void {
  for (const step of result.steps) {
    if (!step.test_case_id.startsWith("step:") || step.relocated === undefined) continue;
    const stepId = step.test_case_id.slice("step:".length);
    const repaired = relocateTarget(state.plan.flow, stepId, step.relocated.to);
    if (repaired === undefined) continue;
    state.plan = { ...state.plan, flow: repaired.flow };
    state.repairs.push({ kind: "target_relocated", subject: step.test_case_id, description: repaired.description.slice(0, 600), made_in_round: round.round });
    round.record.repairs_made.push(step.test_case_id);
  }
}

/** A checkpoint whose evidence held for one input set only: the input's value is taken out of its success condition. */
function repairInputSpecific(state: PracticeState, setup: PracticeSetup, round: RoundContext, result: ExecuteResult): void {
  const { setIndex } = round;
  for (const step of result.steps) {
    if (!step.test_case_id.startsWith("checkpoint:") || setIndex === undefined || step.result === "skipped") continue;
    const checkpointId = step.test_case_id.slice("checkpoint:".length);
    const seen = state.evidence.get(checkpointId) ?? { held: new Set<number>(), failed: new Set<number>() };
    (step.result === "passed" ? seen.held : seen.failed).add(setIndex);
    state.evidence.set(checkpointId, seen);
    const heldOnly = [...seen.held].filter((index) => !seen.failed.has(index));
    if (seen.failed.size === 0 || heldOnly.length === 0 || state.repairs.some((repair) => repair.subject === step.test_case_id)) continue;
    const checkpoint = state.plan.checkpoints.find((candidate) => candidate.checkpoint_id === checkpointId);
    const heldWith = setup.input_sets[heldOnly[0] as number];
    if (checkpoint === undefined || heldWith === undefined) continue;
    const repaired = generaliseCheckpoint(checkpoint, heldWith);
    if (repaired === undefined) continue;
    state.plan = {
      ...state.plan,
      checkpoints: state.plan.checkpoints.map((candidate) => (candidate.checkpoint_id === checkpointId ? repaired.checkpoint : candidate)),
    };
    state.repairs.push({
      kind: "checkpoint_input_specific",
      subject: step.test_case_id,
      description: repaired.description.slice(0, 600),
      made_in_round: round.round,
    });
    round.record.repairs_made.push(step.test_case_id);
  }
}

/** Plays one round and repairs what it showed; a result when the practice ends here. */
async function playRound(input: PracticeDriverInput, state: PracticeState, round: number, now: () => Date): Promise<PracticeDriverResult | undefined> {
  const { setup, policy } = input;
  const setIndex = setup.input_sets.length === 0 ? undefined : (round - 1) % setup.input_sets.length;
  const values = setIndex === undefined ? {} : (setup.input_sets[setIndex] ?? {});
  const viewport = setup.viewports[(round - 1) % setup.viewports.length] as PracticeViewport;
  const flow = withViewport(state.plan.flow, viewport);
  const startedAt = now().toISOString();
  const base = { round, viewport, ...(setIndex === undefined ? {} : { input_set: setIndex + 1 }), started_at: startedAt };

  const problem = policyProblem(flow, policy);
  if (problem !== undefined) {
    state.rounds.push({
      ...base,
      overall: "failed",
      held: [],
      failed: [{ test_case_id: "policy:test_policy", label: "Stay within the test policy", details: problem }],
      repairs_made: [],
      completed_at: now().toISOString(),
    });
    return finishWith(state, "policy_violation", `Round ${round} was not played: ${problem}`);
  }
  const play = playerFor(input, state, round, values, flow, now);
  const result = await play(setup.step_timeout_ms);
  state.results.push(result);
  const record = roundRecord(base, result);
  state.rounds.push(record);
  if (result.policy_violation !== undefined) return finishWith(state, "policy_violation", `Round ${round} stopped: ${result.policy_violation.message}`);
  if (result.stopped === "cancelled") return finishWith(state, "failed", "The practice was stopped.");

  const context: RoundContext = { round, setIndex, flow, record, play };
  const violation = await diagnoseMissing(state, setup, context, result);
  if (violation !== undefined) return finishWith(state, "policy_violation", `Round ${round} stopped: ${violation}`);
  confirmRepairs(state, round, result);
  repairRelocated(state, context, result);
  repairInputSpecific(state, setup, context, result);
  return undefined;
}

/** How the practice ended, once no round is left to play. */
function verdict(state: PracticeState): PracticeDriverResult {
  const { rounds, repairs, findings } = state;
  const last = rounds[rounds.length - 1];
  const confirmed = repairs.filter((repair) => repair.confirmed_in_round !== undefined);
  const stillFailing = last?.failed ?? [];
  if (repairs.length === 0 && rounds.every((round) => round.overall === "passed")) {
    return finishWith(state, "nothing_to_repair", `All ${rounds.length} rounds passed as the skill is: nothing to repair, nothing is proposed.`);
  }
  if (confirmed.length > 0 && last?.overall === "passed") {
    return finishWith(
      state,
      "repaired",
      `${confirmed.length} repair${confirmed.length === 1 ? "" : "s"} made and confirmed by a later round; the last round passed.`,
    );
  }
  const why = findings.length > 0 ? findings.join(" ") : stillFailing.map((failure) => `${failure.label}: ${failure.details}`).join("; ");
  return finishWith(state, "could_not_repair", `The practice found failures it could not repair${why === "" ? "" : ` (${why})`}`.slice(0, 600));
}

/**
 * Autonomous Agent Practice (issue #16): plays the skill's flow round after round through the one
 * executor, each round with the next set of test inputs and the next window size, under the test
 * policy; notes what held and what failed; repairs what it can (a target relocated by similarity,
 * a checkpoint whose evidence held for one input only, a step whose element loads late) and plays again to confirm each repair. One
 * round more than asked is played when the last one made a repair. Input values stay in memory.
 */
export async function practise(input: PracticeDriverInput): Promise<PracticeDriverResult> {
  const now = input.now ?? (() => new Date());
  const state: PracticeState = {
    plan: { flow: input.plan.flow, checkpoints: [...input.plan.checkpoints], parameters: [...input.plan.parameters] },
    rounds: [],
    results: [],
    repairs: [],
    evidence: new Map(),
    findings: [],
    diagnosed: new Set(),
  };
  for (let round = 1; round <= input.setup.rounds + 1; round += 1) {
    const unconfirmed = state.repairs.some((repair) => repair.confirmed_in_round === undefined);
    if (round > input.setup.rounds && !unconfirmed) break;
    if (input.signal?.aborted === true) return finishWith(state, "failed", "The practice was stopped.");
    const ended = await playRound(input, state, round, now);
    if (ended !== undefined) return ended;
  }
  return verdict(state);
}
