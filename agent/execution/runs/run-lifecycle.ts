import { randomUUID } from "node:crypto";
import { CapabilityUseReceiptSchema } from "../../../shared/capabilities/capability-use-receipt";
import type { RunCheckpointResult, RunRecord, RunState } from "../../../shared/execution/run-contract";
import { createTypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";
import type { AbilityService } from "../../abilities/ability-service";
import { appendCheckpointReceipt } from "../../abilities/checkpoint-receipts";
import type { Clock } from "../../common/clock";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths, resolveMemoryPath } from "../../memory/memory-paths";
import type { Approvals, AskPerson, GrantBasis } from "../approvals/approvals";
import { BrowserUnavailable, type ExecuteInput, type ExecuteResult, type ExecutionProgress } from "../contract/executor-contract";
import { RUN_FAILURE_CODES, keptPageSeen, outcomeOf } from "./run-outcome";
import type { RunStore } from "./run-store";

/**
 * One run from its start to its end (issue #21): the executor's progress followed into the run
 * record and its events, the person asked before a step with consequences, the receipts of later
 * use written, and the one way a run ends. Input values live only in the executor's input: every
 * text kept is scrubbed of them first.
 */

export const DEFAULT_CONFIRMATION_TIMEOUT_MS = 10 * 60_000;

export interface RunLifecycleDeps {
  memory: MemoryStore;
  clock: Clock;
  abilities: Pick<AbilityService, "refreshAvailability">;
  /** The one executor (agent/execution); injected so the service is built and tested on its own. */
  execute: (input: ExecuteInput) => Promise<ExecuteResult>;
  /** How long a step with consequences waits for the person before it is declined (10 minutes). */
  confirmationTimeoutMs?: number | undefined;
  /** Where an unexpected executor error is logged (its message scrubbed of input values). */
  logError?: (fields: Record<string, unknown>, message: string) => void;
  /** Issue #33: answers "is this step allowed now?" (standing grants, else the person); without it the person is always asked. */
  approvals?: Approvals | undefined;
}

export interface ActiveRun {
  record: RunRecord;
  controller: AbortController;
  /** `grant`: what an "Always allow" answer would keep (keyed hashes in memory only); absent when this step cannot be allowed for good. */
  pending: { confirmation_id: string; grant: GrantBasis | undefined; settle(answer: boolean, why?: "declined" | "timeout"): void } | undefined;
  declined: "declined" | "timeout" | undefined;
  confirmed: boolean;
  finished: boolean;
  /** Checkpoint receipts of this run, written in order. */
  receipts: Promise<void>;
  capabilityId: string;
  /** The installed skill's version when the run started: a standing grant's version term. */
  skillVersion: string | undefined;
  /** Steps a standing grant let through, by step id → grant id (issue #33). */
  grantedSteps: Map<string, string>;
}

/** What every stage of a run shares: the service's dependencies, its store and the runs going now. */
export interface RunContext {
  readonly deps: RunLifecycleDeps;
  readonly store: RunStore;
  /** Runs going now, by dispatch id; a run leaves once its final record is written. */
  readonly active: Map<string, ActiveRun>;
  now(): string;
}

export function activeRun(record: RunRecord, capabilityId: string, skillVersion?: string): ActiveRun {
  return {
    record,
    controller: new AbortController(),
    pending: undefined,
    declined: undefined,
    confirmed: false,
    finished: false,
    receipts: Promise.resolve(),
    capabilityId,
    skillVersion,
    grantedSteps: new Map(),
  };
}

type FinalState = Extract<RunState, "succeeded" | "failed" | "cancelled" | "interrupted">;
type Scrub = (text: string) => string;

export function saveRun(ctx: RunContext, run: ActiveRun, patch: Partial<RunRecord>, event: Parameters<RunStore["save"]>[1]): Promise<void> {
  const next: RunRecord = { ...run.record, ...patch, updated_at: ctx.now() };
  if (patch.pending_confirmation === undefined && "pending_confirmation" in patch) delete next.pending_confirmation;
  run.record = next;
  return ctx.store
    .save(next, event)
    .catch((error: unknown) => ctx.deps.logError?.({ dispatch_id: next.dispatch_id, err: error }, "a run's record could not be written"));
}

function writeCheckpointReceipt(ctx: RunContext, run: ActiveRun, checkpointId: string, status: "reached" | "failed", evidence: string): void {
  run.receipts = run.receipts
    .then(() =>
      appendCheckpointReceipt(
        ctx.deps.memory,
        { dispatch_id: run.record.dispatch_id, ability_id: run.record.ability_id, checkpoint_id: checkpointId, status, evidence: evidence.slice(0, 1000) },
        ctx.now(),
      ),
    )
    .then(() => undefined)
    .catch((error: unknown) => ctx.deps.logError?.({ dispatch_id: run.record.dispatch_id, err: error }, "a checkpoint receipt could not be written"));
}

async function capabilityReceipt(
  ctx: RunContext,
  record: RunRecord,
  capabilityId: string,
  result: "success" | "failure" | "denied" | "cancelled",
  confirmed: boolean,
  granted: boolean,
): Promise<void> {
  const receipt = CapabilityUseReceiptSchema.parse({
    receipt_id: randomUUID(),
    capability_id: capabilityId,
    provider: `elnor-learn executor (${record.where})`,
    dispatch_id: record.dispatch_id,
    route_trace_id: `${record.caller}:${record.dispatch_id}`,
    // A step the person confirmed in this run outranks one a standing grant let through (issue #33).
    approval_mode: confirmed ? "ask_first" : granted ? "standing_order" : record.caller === "side_panel" ? "manual_click" : "autonomous",
    result,
    created_at: ctx.now(),
    schema_version: 1,
  });
  await ctx.deps.memory.append(MemoryPaths.capabilityUseReceipts, receipt);
}

/** The one way a run ends: receipts, availability, then `run.finished` with the terminal state. Only the first call counts. */
export async function finishRun(
  ctx: RunContext,
  run: ActiveRun,
  state: FinalState,
  failure: RunRecord["failure"],
  result: "success" | "failure" | "denied" | "cancelled",
): Promise<void> {
  if (run.finished) return;
  run.finished = true;
  run.pending?.settle(false);
  await run.receipts;
  const completedAt = ctx.now();
  const final = { ...run.record, state, completed_at: completedAt, ...(failure === undefined ? {} : { failure }) };
  await capabilityReceipt(ctx, final, run.capabilityId, result, run.confirmed, run.grantedSteps.size > 0).catch((error: unknown) =>
    ctx.deps.logError?.({ dispatch_id: final.dispatch_id, err: error }, "the capability-use receipt could not be written"),
  );
  // §0C.11B: a run's checkpoint receipts are a capability-health trigger.
  await ctx.deps.abilities
    .refreshAvailability()
    .catch((error: unknown) => ctx.deps.logError?.({ err: error }, "availability could not be refreshed after a run"));
  await saveRun(ctx, run, { state, completed_at: completedAt, pending_confirmation: undefined, ...(failure === undefined ? {} : { failure }) }, "run.finished");
  // Until here reads are answered from memory; the record on disk is now the final one.
  ctx.active.delete(run.record.dispatch_id);
}

function progressListener(ctx: RunContext, run: ActiveRun, scrub: Scrub): (event: ExecutionProgress) => void {
  return (event) => {
    if (run.finished) return;
    switch (event.kind) {
      case "step": {
        const step = {
          step_id: event.step_id.slice(0, 160),
          label: scrub(event.label).slice(0, 240),
          result: event.result,
          details: scrub(event.details).slice(0, 1000),
          ...(event.relocated === undefined
            ? {}
            : { relocated: { from: scrub(event.relocated.from).slice(0, 240), to: scrub(event.relocated.to).slice(0, 240) } }),
          ...(run.grantedSteps.has(event.step_id) ? { standing_grant_id: run.grantedSteps.get(event.step_id) } : {}),
        };
        void saveRun(ctx, run, { steps: [...run.record.steps, step] }, "run.step");
        return;
      }
      case "checkpoint": {
        const evidence = scrub(event.evidence).slice(0, 1000);
        const result: RunCheckpointResult = {
          checkpoint_id: event.checkpoint_id.slice(0, 80),
          goal: scrub(event.goal).slice(0, 240),
          status: event.status,
          evidence,
        };
        const known = run.record.checkpoints.some((checkpoint) => checkpoint.checkpoint_id === result.checkpoint_id);
        const checkpoints = known
          ? run.record.checkpoints.map((checkpoint) => (checkpoint.checkpoint_id === result.checkpoint_id ? result : checkpoint))
          : [...run.record.checkpoints, result];
        if (event.status !== "skipped") writeCheckpointReceipt(ctx, run, result.checkpoint_id, event.status, evidence);
        void saveRun(ctx, run, { checkpoints }, "run.checkpoint");
        return;
      }
      default: {
        const unknown: never = event;
        throw new Error(`unknown progress ${JSON.stringify(unknown)}`);
      }
    }
  };
}

/** Asks the person before a step with consequences: the run waits (needs_confirmation) until they answer, it is cancelled, or the wait times out. */
function askPerson(ctx: RunContext, run: ActiveRun, scrub: Scrub): AskPerson {
  const confirmationTimeoutMs = ctx.deps.confirmationTimeoutMs ?? DEFAULT_CONFIRMATION_TIMEOUT_MS;
  return (request, grant) => {
    if (run.finished || run.controller.signal.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const confirmationId = randomUUID();
      let settled = false;
      const settle = (answer: boolean, why?: "declined" | "timeout") => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        run.controller.signal.removeEventListener("abort", onAbort);
        run.pending = undefined;
        if (answer) run.confirmed = true;
        else if (why !== undefined) run.declined = why;
        if (!run.finished) void saveRun(ctx, run, { state: "running", pending_confirmation: undefined }, "run.state");
        resolve(answer);
      };
      const onAbort = () => settle(false);
      const timer = setTimeout(() => settle(false, "timeout"), confirmationTimeoutMs);
      timer.unref();
      run.controller.signal.addEventListener("abort", onAbort, { once: true });
      run.pending = { confirmation_id: confirmationId, grant, settle };
      void saveRun(
        ctx,
        run,
        {
          state: "needs_confirmation",
          pending_confirmation: {
            confirmation_id: confirmationId,
            step_label: scrub(request.step_label).slice(0, 240),
            reason: request.reason,
            asked_at: ctx.now(),
            ...(grant === undefined ? {} : { grant_offer: grant.offer }),
          },
        },
        "run.needs_confirmation",
      );
    });
  };
}

/** The executor's `confirm`: the approvals module when there is one (a grant's yes, or the person), else the person. */
function confirmerOf(ctx: RunContext, run: ActiveRun, input: Pick<ExecuteInput, "values" | "parameters">, scrub: Scrub): NonNullable<ExecuteInput["confirm"]> {
  const ask = askPerson(ctx, run, scrub);
  const { approvals } = ctx.deps;
  if (approvals === undefined) return (request) => ask(request, undefined);
  const facts = {
    dispatch_id: run.record.dispatch_id,
    ability_id: run.record.ability_id,
    ability_title: run.record.ability_title,
    skill_version: run.skillVersion,
    values: input.values,
    secret_names: new Set(input.parameters.filter((parameter) => parameter.type_hint === "secret").map((parameter) => parameter.name)),
    scrub,
  };
  return approvals.confirmer(facts, ask, (stepId, grantId) => run.grantedSteps.set(stepId, grantId));
}

/** Hands the run to the executor and ends it with what the executor found (or why it could not). */
export async function executeRun(
  ctx: RunContext,
  run: ActiveRun,
  input: Omit<ExecuteInput, "signal" | "confirm" | "onProgress" | "screenshotPath" | "now">,
): Promise<void> {
  const { deps } = ctx;
  const dispatchId = run.record.dispatch_id;
  const scrub = createTypedValueScrubber(Object.values(input.values)).scrub;
  // Not waited for: the store writes a run's changes in order, and the browser starts meanwhile.
  void saveRun(ctx, run, { state: "running" }, "run.state");
  try {
    const result = await deps.execute({
      ...input,
      signal: run.controller.signal,
      confirm: confirmerOf(ctx, run, input, scrub),
      onProgress: progressListener(ctx, run, scrub),
      screenshotPath: resolveMemoryPath(deps.memory.root, MemoryPaths.runScreenshot(dispatchId)),
      now: () => deps.clock.now(),
    });
    if (run.finished) return;
    reconcile(ctx, run, result, scrub);
    const outcome = outcomeOf(result, { declined: run.declined, dryRun: input.policy.mode === "dry_run_only" });
    let failure = outcome.failure;
    if (failure !== undefined) {
      const screenshot = (await deps.memory.exists(MemoryPaths.runScreenshot(dispatchId))) ? `/api/runs/${dispatchId}/screenshot` : undefined;
      failure = {
        code: failure.code,
        message: scrub(failure.message).slice(0, 1000),
        ...(failure.page_seen === undefined ? {} : { page_seen: keptPageSeen(failure.page_seen, scrub, screenshot) }),
      };
    }
    await finishRun(ctx, run, outcome.state, failure, outcome.receipt);
  } catch (error) {
    if (run.controller.signal.aborted) return;
    const unavailable = error instanceof BrowserUnavailable;
    const message =
      scrub(error instanceof Error ? error.message : String(error))
        .split("\n")[0]
        ?.slice(0, 900) ?? "";
    if (!unavailable) deps.logError?.({ dispatch_id: dispatchId, error: message }, "the executor stopped unexpectedly");
    await finishRun(
      ctx,
      run,
      "failed",
      {
        code: unavailable ? RUN_FAILURE_CODES.browser : RUN_FAILURE_CODES.internal,
        message: unavailable ? `No browser to run in: ${message}` : `The run stopped unexpectedly: ${message}`,
      },
      "failure",
    );
  }
}

/** Checkpoints the executor decided without a progress event (it stopped early) still get their status and receipt. */
function reconcile(ctx: RunContext, run: ActiveRun, result: ExecuteResult, scrub: Scrub): void {
  let checkpoints = run.record.checkpoints;
  for (const step of result.steps) {
    if (!step.test_case_id.startsWith("checkpoint:")) continue;
    const id = step.test_case_id.slice("checkpoint:".length);
    const current = checkpoints.find((checkpoint) => checkpoint.checkpoint_id === id);
    if (current === undefined || current.status !== "not_reached") continue;
    const status = step.result === "passed" ? "reached" : step.result;
    const evidence = scrub(step.details).slice(0, 1000);
    if (status !== "skipped") writeCheckpointReceipt(ctx, run, id, status, evidence);
    checkpoints = checkpoints.map((checkpoint) => (checkpoint.checkpoint_id === id ? { ...checkpoint, status, evidence } : checkpoint));
  }
  const steps =
    run.record.steps.length > 0
      ? run.record.steps
      : result.steps
          .filter((step) => !step.test_case_id.startsWith("checkpoint:"))
          .map((step) => ({
            step_id: step.test_case_id.slice(0, 160),
            label: scrub(step.label).slice(0, 240),
            result: step.result,
            details: scrub(step.details).slice(0, 1000),
          }));
  run.record = { ...run.record, checkpoints, steps };
}
