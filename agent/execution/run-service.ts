import { randomUUID } from "node:crypto";
import { CapabilityUseReceiptSchema } from "../../shared/capabilities/capability-use-receipt";
import { TERMINAL_RUN_STATES, type ConfirmRunStepRequest, type RunCheckpointResult, type RunRecord, type RunState, type StartRunRequest } from "../../shared/execution/run-contract";
import { createTypedValueScrubber } from "../../shared/observation/typed-value-scrubber";
import type { AbilityRegistry } from "../abilities/ability-registry";
import type { AbilityService } from "../abilities/ability-service";
import { appendCheckpointReceipt, recordUsedLater } from "../abilities/checkpoint-receipts";
import type { Clock } from "../common/clock";
import { AppError, isAppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths, resolveMemoryPath } from "../memory/memory-paths";
import { BrowserUnavailable, type ConfirmationRequest, type ExecuteInput, type ExecuteResult, type ExecutionProgress } from "./executor-contract";
import { RUN_FAILURE_CODES, keptPageSeen, outcomeOf } from "./run-outcome";
import { runPolicyOf, validateRunRequest } from "./run-request";
import type { RunSpecSource } from "./run-spec";
import { createRunStore, type RunStore } from "./run-store";
import type { UserTabProvider } from "./user-tab-provider";

export const DEFAULT_CONFIRMATION_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_RUN_TIMEOUT_MS = 5 * 60_000;
/** Runs going at once: each managed run is a Chromium of its own, and this machine is the user's. */
export const DEFAULT_MAX_ACTIVE_RUNS = 3;
const CLOSE_WAIT_MS = 5_000;

export interface RunServiceDeps {
  memory: MemoryStore;
  clock: Clock;
  specs: RunSpecSource;
  registry: Pick<AbilityRegistry, "get">;
  abilities: Pick<AbilityService, "refreshAvailability">;
  /** The one executor (agent/execution); injected so the service is built and tested on its own. */
  execute: (input: ExecuteInput) => Promise<ExecuteResult>;
  /** Acting in the user's own tab through the extension (issue #21 in-tab); absent, `where: user_tab` is refused. */
  userTab?: UserTabProvider | undefined;
  /** How long a step with consequences waits for the person before it is declined (10 minutes). */
  confirmationTimeoutMs?: number | undefined;
  /** The whole execution, confirmations excluded by the executor's own accounting. */
  timeoutMs?: number | undefined;
  stepTimeoutMs?: number | undefined;
  /** At most this many runs going at once (3); one more is refused with RUN_LIMIT_REACHED. */
  maxActiveRuns?: number | undefined;
  /** Where an unexpected executor error is logged (its message scrubbed of input values). */
  logError?: (fields: Record<string, unknown>, message: string) => void;
}

export interface RunService {
  readonly store: RunStore;
  /** Checks the request against the run-spec, writes the run as `starting` and starts it in the background. */
  start(request: StartRunRequest): Promise<RunRecord>;
  get(dispatchId: string): Promise<RunRecord>;
  list(query: { ability_id?: string | undefined; page: number; page_size: number }): Promise<{ runs: RunRecord[]; total: number }>;
  confirm(dispatchId: string, request: ConfirmRunStepRequest): Promise<RunRecord>;
  cancel(dispatchId: string, reason?: string): Promise<RunRecord>;
  /** The page_seen screenshot (PNG) of a run that stopped short. */
  screenshot(dispatchId: string): Promise<Buffer>;
  /** At start-up: every run that was not over when the agent stopped is marked `interrupted`. */
  recover(): Promise<number>;
  /** On close: runs still going are stopped and marked `interrupted`. */
  close(): Promise<void>;
  /**
   * Issue #30: removes the files of every ended run `due` picks (record, events, screenshot), and
   * of runs a purge cut short. A run still going or waiting for the person is never touched;
   * receipts (checkpoint, learning, capability use) are kept, they live in other logs.
   */
  purge(due: (run: RunRecord) => boolean): Promise<RunPurgeReport>;
  /** An ability was deleted: its runs still going are cancelled, then every run of it is purged. */
  purgeAbility(abilityId: string): Promise<RunPurgeReport>;
}

export interface RunPurgeReport {
  /** Dispatch ids whose files were removed. */
  purged: string[];
  /** Runs whose files could not be removed; the next sweep tries again. */
  failures: Array<{ dispatch_id: string; code: string; message: string }>;
}

interface ActiveRun {
  record: RunRecord;
  controller: AbortController;
  pending: { confirmation_id: string; settle(answer: boolean, why?: "declined" | "timeout"): void } | undefined;
  declined: "declined" | "timeout" | undefined;
  confirmed: boolean;
  finished: boolean;
  /** Checkpoint receipts of this run, written in order. */
  receipts: Promise<void>;
  capabilityId: string;
}

type FinalState = Extract<RunState, "succeeded" | "failed" | "cancelled" | "interrupted">;

/**
 * Runs of installed abilities (issue #21): a run is a dispatch. The service checks a start request
 * against the ability's run-spec, hands the flow and the input values to the executor, follows its
 * progress into the run record and its events, pauses for the person's confirmation, writes the
 * receipts of later use (§0C.9B checkpoint receipts, `ability.used_later`, §0.8 capability use) and
 * refreshes availability so `checkpoint_health` follows real runs. Input values live only in the
 * executor's input for the length of the run: never in the record, events, receipts or logs.
 */
export function createRunService(deps: RunServiceDeps): RunService {
  const store = createRunStore(deps.memory);
  const active = new Map<string, ActiveRun>();
  const background = new Set<Promise<void>>();
  const now = () => deps.clock.now().toISOString();
  const confirmationTimeoutMs = deps.confirmationTimeoutMs ?? DEFAULT_CONFIRMATION_TIMEOUT_MS;

  const save = (run: ActiveRun, patch: Partial<RunRecord>, event: Parameters<RunStore["save"]>[1]): Promise<void> => {
    const next: RunRecord = { ...run.record, ...patch, updated_at: now() };
    if (patch.pending_confirmation === undefined && "pending_confirmation" in patch) delete next.pending_confirmation;
    run.record = next;
    return store.save(next, event).catch((error: unknown) => deps.logError?.({ dispatch_id: next.dispatch_id, err: error }, "a run's record could not be written"));
  };

  const writeCheckpointReceipt = (run: ActiveRun, checkpointId: string, status: "reached" | "failed", evidence: string) => {
    run.receipts = run.receipts
      .then(() => appendCheckpointReceipt(deps.memory, { dispatch_id: run.record.dispatch_id, ability_id: run.record.ability_id, checkpoint_id: checkpointId, status, evidence: evidence.slice(0, 1000) }, now()))
      .then(() => undefined)
      .catch((error: unknown) => deps.logError?.({ dispatch_id: run.record.dispatch_id, err: error }, "a checkpoint receipt could not be written"));
  };

  const capabilityReceipt = async (record: RunRecord, capabilityId: string, result: "success" | "failure" | "denied" | "cancelled", confirmed: boolean) => {
    const receipt = CapabilityUseReceiptSchema.parse({
      receipt_id: randomUUID(),
      capability_id: capabilityId,
      provider: `elnor-learn executor (${record.where})`,
      dispatch_id: record.dispatch_id,
      route_trace_id: `${record.caller}:${record.dispatch_id}`,
      approval_mode: confirmed ? "ask_first" : record.caller === "side_panel" ? "manual_click" : "autonomous",
      result,
      created_at: now(),
      schema_version: 1,
    });
    await deps.memory.append(MemoryPaths.capabilityUseReceipts, receipt);
  };

  /** The one way a run ends: receipts, availability, then `run.finished` with the terminal state. Only the first call counts. */
  const finish = async (run: ActiveRun, state: FinalState, failure: RunRecord["failure"], result: "success" | "failure" | "denied" | "cancelled") => {
    if (run.finished) return;
    run.finished = true;
    run.pending?.settle(false);
    await run.receipts;
    const completedAt = now();
    const final = { ...run.record, state, completed_at: completedAt, ...(failure === undefined ? {} : { failure }) };
    await capabilityReceipt(final, run.capabilityId, result, run.confirmed).catch((error: unknown) => deps.logError?.({ dispatch_id: final.dispatch_id, err: error }, "the capability-use receipt could not be written"));
    // §0C.11B: a run's checkpoint receipts are a capability-health trigger.
    await deps.abilities.refreshAvailability().catch((error: unknown) => deps.logError?.({ err: error }, "availability could not be refreshed after a run"));
    await save(run, { state, completed_at: completedAt, pending_confirmation: undefined, ...(failure === undefined ? {} : { failure }) }, "run.finished");
    // Until here reads are answered from memory; the record on disk is now the final one.
    active.delete(run.record.dispatch_id);
  };

  const onProgress = (run: ActiveRun, scrub: (text: string) => string) => (event: ExecutionProgress) => {
    if (run.finished) return;
    switch (event.kind) {
      case "step": {
        const step = {
          step_id: event.step_id.slice(0, 160),
          label: scrub(event.label).slice(0, 240),
          result: event.result,
          details: scrub(event.details).slice(0, 1000),
          ...(event.relocated === undefined ? {} : { relocated: { from: scrub(event.relocated.from).slice(0, 240), to: scrub(event.relocated.to).slice(0, 240) } }),
        };
        void save(run, { steps: [...run.record.steps, step] }, "run.step");
        return;
      }
      case "checkpoint": {
        const evidence = scrub(event.evidence).slice(0, 1000);
        const result: RunCheckpointResult = { checkpoint_id: event.checkpoint_id.slice(0, 80), goal: scrub(event.goal).slice(0, 240), status: event.status, evidence };
        const known = run.record.checkpoints.some((checkpoint) => checkpoint.checkpoint_id === result.checkpoint_id);
        const checkpoints = known ? run.record.checkpoints.map((checkpoint) => (checkpoint.checkpoint_id === result.checkpoint_id ? result : checkpoint)) : [...run.record.checkpoints, result];
        if (event.status !== "skipped") writeCheckpointReceipt(run, result.checkpoint_id, event.status, evidence);
        void save(run, { checkpoints }, "run.checkpoint");
        return;
      }
      default: {
        const unknown: never = event;
        throw new Error(`unknown progress ${JSON.stringify(unknown)}`);
      }
    }
  };

  const askPerson = (run: ActiveRun, scrub: (text: string) => string) => (request: ConfirmationRequest): Promise<boolean> => {
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
        if (!run.finished) void save(run, { state: "running", pending_confirmation: undefined }, "run.state");
        resolve(answer);
      };
      const onAbort = () => settle(false);
      const timer = setTimeout(() => settle(false, "timeout"), confirmationTimeoutMs);
      timer.unref();
      run.controller.signal.addEventListener("abort", onAbort, { once: true });
      run.pending = { confirmation_id: confirmationId, settle };
      void save(
        run,
        { state: "needs_confirmation", pending_confirmation: { confirmation_id: confirmationId, step_label: scrub(request.step_label).slice(0, 240), reason: request.reason, asked_at: now() } },
        "run.needs_confirmation",
      );
    });
  };

  const execute = async (run: ActiveRun, input: Omit<ExecuteInput, "signal" | "confirm" | "onProgress" | "screenshotPath" | "now">) => {
    const dispatchId = run.record.dispatch_id;
    const scrub = createTypedValueScrubber(Object.values(input.values)).scrub;
    // Not waited for: the store writes a run's changes in order, and the browser starts meanwhile.
    void save(run, { state: "running" }, "run.state");
    try {
      const result = await deps.execute({
        ...input,
        signal: run.controller.signal,
        confirm: askPerson(run, scrub),
        onProgress: onProgress(run, scrub),
        screenshotPath: resolveMemoryPath(deps.memory.root, MemoryPaths.runScreenshot(dispatchId)),
        now: () => deps.clock.now(),
      });
      if (run.finished) return;
      reconcile(run, result, scrub);
      const outcome = outcomeOf(result, { declined: run.declined, dryRun: input.policy.mode === "dry_run_only" });
      let failure = outcome.failure;
      if (failure !== undefined) {
        const screenshot = (await deps.memory.exists(MemoryPaths.runScreenshot(dispatchId))) ? `/api/runs/${dispatchId}/screenshot` : undefined;
        failure = { code: failure.code, message: scrub(failure.message).slice(0, 1000), ...(failure.page_seen === undefined ? {} : { page_seen: keptPageSeen(failure.page_seen, scrub, screenshot) }) };
      }
      await finish(run, outcome.state, failure, outcome.receipt);
    } catch (error) {
      if (run.controller.signal.aborted) return;
      const unavailable = error instanceof BrowserUnavailable;
      const message = scrub(error instanceof Error ? error.message : String(error)).split("\n")[0]?.slice(0, 900) ?? "";
      if (!unavailable) deps.logError?.({ dispatch_id: dispatchId, error: message }, "the executor stopped unexpectedly");
      await finish(run, "failed", { code: unavailable ? RUN_FAILURE_CODES.browser : RUN_FAILURE_CODES.internal, message: unavailable ? `No browser to run in: ${message}` : `The run stopped unexpectedly: ${message}` }, "failure");
    }
  };

  /** Checkpoints the executor decided without a progress event (it stopped early) still get their status and receipt. */
  const reconcile = (run: ActiveRun, result: ExecuteResult, scrub: (text: string) => string) => {
    let checkpoints = run.record.checkpoints;
    for (const step of result.steps) {
      if (!step.test_case_id.startsWith("checkpoint:")) continue;
      const id = step.test_case_id.slice("checkpoint:".length);
      const current = checkpoints.find((checkpoint) => checkpoint.checkpoint_id === id);
      if (current === undefined || current.status !== "not_reached") continue;
      const status = step.result === "passed" ? "reached" : step.result;
      const evidence = scrub(step.details).slice(0, 1000);
      if (status !== "skipped") writeCheckpointReceipt(run, id, status, evidence);
      checkpoints = checkpoints.map((checkpoint) => (checkpoint.checkpoint_id === id ? { ...checkpoint, status, evidence } : checkpoint));
    }
    const steps =
      run.record.steps.length > 0
        ? run.record.steps
        : result.steps
            .filter((step) => !step.test_case_id.startsWith("checkpoint:"))
            .map((step) => ({ step_id: step.test_case_id.slice(0, 160), label: scrub(step.label).slice(0, 240), result: step.result, details: scrub(step.details).slice(0, 1000) }));
    run.record = { ...run.record, checkpoints, steps };
  };

  const notFound = (dispatchId: string) => new AppError("RUN_NOT_FOUND", `No run ${dispatchId.slice(0, 200)}.`);

  const service: RunService = {
    store,

    async start(request) {
      const { spec, plan } = await deps.specs.resolve(request.ability_id);
      if (!spec.runnable || plan === undefined) throw new AppError("ABILITY_NOT_RUNNABLE", `"${spec.title}" cannot be run: ${spec.not_runnable_reason ?? "it has no recorded flow"}.`.slice(0, 240));
      validateRunRequest(request, spec);
      if (request.where === "user_tab" && (deps.userTab === undefined || !deps.userTab.connected())) {
        throw new AppError("ADAPTER_UNAVAILABLE", "No browser extension is connected to run in your tab; open Chrome with the extension paired, or run it in the managed browser.");
      }
      const policy = runPolicyOf(request, spec);
      const limit = deps.maxActiveRuns ?? DEFAULT_MAX_ACTIVE_RUNS;
      if (active.size >= limit) throw new AppError("RUN_LIMIT_REACHED", `${active.size} runs are going already (at most ${limit}); wait for one to finish or cancel one, then start again.`);
      const dispatchId = `run-${randomUUID()}`;
      const at = now();
      const run: ActiveRun = {
        record: {
          dispatch_id: dispatchId,
          ability_id: spec.ability_id,
          ability_title: spec.title,
          state: "starting",
          where: request.where,
          caller: request.caller,
          input_names: Object.keys(request.inputs).sort(),
          steps: [],
          checkpoints: spec.checkpoints.map((checkpoint) => ({ checkpoint_id: checkpoint.checkpoint_id, goal: checkpoint.goal, status: "not_reached" as const })),
          started_at: at,
          updated_at: at,
          schema_version: 1,
        },
        controller: new AbortController(),
        pending: undefined,
        declined: undefined,
        confirmed: false,
        finished: false,
        receipts: Promise.resolve(),
        capabilityId: plan.ability.capability_id,
      };
      active.set(dispatchId, run);
      const created = run.record;
      await store.save(created, "run.state");
      run.receipts = recordUsedLater(deps.memory, spec.ability_id, dispatchId, at).then(
        () => undefined,
        (error: unknown) => deps.logError?.({ dispatch_id: dispatchId, err: error }, "the used_later receipt could not be written"),
      );
      const browser = request.where === "user_tab" ? deps.userTab?.lease({ dispatch_id: dispatchId, allowed_domains: policy.allowed_domains, label: spec.title, ...(request.tab_id === undefined ? {} : { tab_id: request.tab_id }) }) : undefined;
      const task = execute(run, {
        flow: plan.flow,
        checkpoints: plan.checkpoints,
        parameters: plan.parameters,
        values: { ...request.inputs },
        policy,
        // Without a test policy the run is the person's own: the page's reads from CDNs go through.
        onBehalfOfPerson: request.test_policy === undefined,
        ...(browser === undefined ? {} : { browser }),
        timeoutMs: deps.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS,
        ...(deps.stepTimeoutMs === undefined ? {} : { stepTimeoutMs: deps.stepTimeoutMs }),
      });
      background.add(task);
      void task.finally(() => background.delete(task));
      return created;
    },

    async get(dispatchId) {
      const live = active.get(dispatchId);
      if (live !== undefined) return live.record;
      const stored = await store.get(dispatchId);
      if (stored === undefined) throw notFound(dispatchId);
      return stored;
    },

    async list({ ability_id, page, page_size }) {
      const runs = (await store.list({ ability_id })).map((run) => active.get(run.dispatch_id)?.record ?? run);
      return { runs: runs.slice((page - 1) * page_size, page * page_size), total: runs.length };
    },

    async confirm(dispatchId, request) {
      const run = active.get(dispatchId);
      if (run === undefined || run.finished) {
        const stored = await service.get(dispatchId);
        throw new AppError("RUN_NOT_ACTIVE", run === undefined ? `The run is ${stored.state}; there is nothing to confirm.` : "The run is ending; there is nothing to confirm.");
      }
      if (run.pending === undefined || run.pending.confirmation_id !== request.confirmation_id) {
        throw new AppError("RUN_CONFIRMATION_MISMATCH", run.pending === undefined ? "The run is not waiting for a confirmation." : "This confirmation_id is not the one the run is waiting for; read the run again.");
      }
      run.pending.settle(request.decision === "confirm", "declined");
      return run.record;
    },

    async cancel(dispatchId) {
      const run = active.get(dispatchId);
      if (run === undefined || run.finished) {
        const stored = await service.get(dispatchId);
        if (run !== undefined || TERMINAL_RUN_STATES.has(stored.state)) throw new AppError("RUN_NOT_ACTIVE", run === undefined ? `The run is already ${stored.state}.` : "The run is ending already.");
        throw notFound(dispatchId);
      }
      run.controller.abort();
      await finish(run, "cancelled", { code: RUN_FAILURE_CODES.cancelled, message: "The run was cancelled." }, "cancelled");
      return run.record;
    },

    async screenshot(dispatchId) {
      await service.get(dispatchId);
      const bytes = await deps.memory.readBytes(MemoryPaths.runScreenshot(dispatchId));
      if (bytes === undefined) throw new AppError("RUN_NOT_FOUND", "This run kept no screenshot: it has one only where it stopped short.");
      return bytes;
    },

    async recover() {
      let count = 0;
      for (const record of await store.list({})) {
        if (TERMINAL_RUN_STATES.has(record.state)) continue;
        const capabilityId = deps.registry.get(record.ability_id)?.capability_id ?? record.ability_id;
        const run: ActiveRun = { record, controller: new AbortController(), pending: undefined, declined: undefined, confirmed: false, finished: false, receipts: Promise.resolve(), capabilityId };
        await finish(run, "interrupted", { code: RUN_FAILURE_CODES.interrupted, message: "The agent stopped while this run was going; it was not resumed. Start it again to run it." }, "failure");
        count += 1;
      }
      return count;
    },

    async purge(due) {
      const report: RunPurgeReport = { purged: [], failures: [] };
      const remove = async (dispatchId: string) => {
        try {
          await store.purge(dispatchId);
          report.purged.push(dispatchId);
        } catch (error) {
          report.failures.push({ dispatch_id: dispatchId, code: isAppError(error) ? error.code : "INTERNAL_ERROR", message: error instanceof Error ? error.message : String(error) });
        }
      };
      for (const record of await store.list({})) {
        if (active.has(record.dispatch_id) || !TERMINAL_RUN_STATES.has(record.state)) continue;
        if (due(record)) await remove(record.dispatch_id);
      }
      // Files whose record is gone belong to no run anyone can read: a purge stopped part-way.
      for (const dispatchId of await store.strays()) {
        if (!active.has(dispatchId)) await remove(dispatchId);
      }
      return report;
    },

    async purgeAbility(abilityId) {
      for (const run of [...active.values()]) {
        if (run.record.ability_id !== abilityId) continue;
        run.controller.abort();
        await finish(run, "cancelled", { code: RUN_FAILURE_CODES.cancelled, message: "The run was cancelled: its ability was deleted." }, "cancelled");
      }
      return service.purge((run) => run.ability_id === abilityId);
    },

    async close() {
      for (const run of [...active.values()]) {
        run.controller.abort();
        await finish(run, "interrupted", { code: RUN_FAILURE_CODES.interrupted, message: "The agent was stopped while this run was going." }, "failure");
      }
      // An aborted execution gives its browser back within moments; a wedged one is not waited for.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...background]), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
      await store.settle();
    },
  };
  return service;
}
