import { randomUUID } from "node:crypto";
import {
  TERMINAL_RUN_STATES,
  type AbilityRunSpec,
  type ConfirmRunStepRequest,
  type RunRecord,
  type StartRunRequest,
} from "../../../shared/execution/run-contract";
import type { AbilityRegistry } from "../../abilities/ability-registry";
import { recordUsedLater } from "../../abilities/checkpoint-receipts";
import { AppError, isAppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import { activeRun, executeRun, finishRun, type RunContext, type RunLifecycleDeps } from "./run-lifecycle";
import { RUN_FAILURE_CODES } from "./run-outcome";
import { runPolicyOf, validateRunRequest } from "./run-request";
import type { RunSpecSource } from "./run-spec";
import { createRunStore, type RunStore } from "./run-store";
import type { UserTabProvider } from "../in-tab/user-tab-provider";

export { DEFAULT_CONFIRMATION_TIMEOUT_MS } from "./run-lifecycle";
export const DEFAULT_RUN_TIMEOUT_MS = 5 * 60_000;
/** Runs going at once: each managed run is a Chromium of its own, and this machine is the user's. */
export const DEFAULT_MAX_ACTIVE_RUNS = 3;
const CLOSE_WAIT_MS = 5_000;

export interface RunServiceDeps extends RunLifecycleDeps {
  specs: RunSpecSource;
  registry: Pick<AbilityRegistry, "get">;
  /** Acting in the user's own tab through the extension (issue #21 in-tab); absent, `where: user_tab` is refused. */
  userTab?: UserTabProvider | undefined;
  /** The whole execution, confirmations excluded by the executor's own accounting. */
  timeoutMs?: number | undefined;
  stepTimeoutMs?: number | undefined;
  /** At most this many runs going at once (3); one more is refused with RUN_LIMIT_REACHED. */
  maxActiveRuns?: number | undefined;
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

/**
 * Runs of installed abilities (issue #21): a run is a dispatch. The service checks a start request
 * against the ability's run-spec, hands the flow and the input values to the executor, follows its
 * progress into the run record and its events, pauses for the person's confirmation, writes the
 * receipts of later use (§0C.9B checkpoint receipts, `ability.used_later`, §0.8 capability use) and
 * refreshes availability so `checkpoint_health` follows real runs (run-lifecycle.ts). Input values
 * live only in the executor's input for the length of the run: never in the record, events,
 * receipts or logs.
 */
export function createRunService(deps: RunServiceDeps): RunService {
  const ctx: ServiceContext = { deps, store: createRunStore(deps.memory), active: new Map(), now: () => deps.clock.now().toISOString() };
  /** Executions still going, waited for (a little) on close. */
  const background = new Set<Promise<void>>();
  const service: RunService = {
    store: ctx.store,
    start: (request) => startRun(ctx, background, request),
    get: (dispatchId) => getRun(ctx, dispatchId),
    async list({ ability_id, page, page_size }) {
      const runs = (await ctx.store.list({ ability_id })).map((run) => ctx.active.get(run.dispatch_id)?.record ?? run);
      return { runs: runs.slice((page - 1) * page_size, page * page_size), total: runs.length };
    },
    confirm: (dispatchId, request) => confirmStep(ctx, dispatchId, request),
    cancel: (dispatchId) => cancelRun(ctx, dispatchId),
    async screenshot(dispatchId) {
      await getRun(ctx, dispatchId);
      const bytes = await deps.memory.readBytes(MemoryPaths.runScreenshot(dispatchId));
      if (bytes === undefined) throw new AppError("RUN_NOT_FOUND", "This run kept no screenshot: it has one only where it stopped short.");
      return bytes;
    },
    recover: () => recoverRuns(ctx, deps.registry),
    purge: (due) => purgeRuns(ctx, due),
    async purgeAbility(abilityId) {
      for (const run of [...ctx.active.values()]) {
        if (run.record.ability_id !== abilityId) continue;
        run.controller.abort();
        await finishRun(ctx, run, "cancelled", { code: RUN_FAILURE_CODES.cancelled, message: "The run was cancelled: its ability was deleted." }, "cancelled");
      }
      // Issue #33: a skill learned again under the same id must not inherit the old one's standing grants.
      await deps.approvals?.revokeAbility(abilityId);
      return purgeRuns(ctx, (run) => run.ability_id === abilityId);
    },
    close: () => closeRuns(ctx, background),
  };
  return service;
}

type ServiceContext = RunContext & { readonly deps: RunServiceDeps };

/** Checks the request against the run-spec, writes the run as `starting` and starts it in the background. */
async function startRun(ctx: ServiceContext, background: Set<Promise<void>>, request: StartRunRequest): Promise<RunRecord> {
  const { deps, active } = ctx;
  const { spec, plan } = await deps.specs.resolve(request.ability_id);
  if (!spec.runnable || plan === undefined)
    throw new AppError("ABILITY_NOT_RUNNABLE", `"${spec.title}" cannot be run: ${spec.not_runnable_reason ?? "it has no recorded flow"}.`.slice(0, 240));
  validateRunRequest(request, spec);
  if (request.where === "user_tab" && (deps.userTab === undefined || !deps.userTab.connected())) {
    throw new AppError(
      "ADAPTER_UNAVAILABLE",
      "No browser extension is connected to run in your tab; open Chrome with the extension paired, or run it in the managed browser.",
    );
  }
  const policy = runPolicyOf(request, spec);
  const limit = deps.maxActiveRuns ?? DEFAULT_MAX_ACTIVE_RUNS;
  if (active.size >= limit)
    throw new AppError(
      "RUN_LIMIT_REACHED",
      `${active.size} runs are going already (at most ${limit}); wait for one to finish or cancel one, then start again.`,
    );
  const dispatchId = `run-${randomUUID()}`;
  const at = ctx.now();
  const run = activeRun(startingRecord(dispatchId, spec, request, at), plan.ability.capability_id, plan.ability.skill_version);
  active.set(dispatchId, run);
  const created = run.record;
  await ctx.store.save(created, "run.state");
  run.receipts = recordUsedLater(deps.memory, spec.ability_id, dispatchId, at).then(
    () => undefined,
    (error: unknown) => deps.logError?.({ dispatch_id: dispatchId, err: error }, "the used_later receipt could not be written"),
  );
  const browser =
    request.where === "user_tab"
      ? deps.userTab?.lease({
          dispatch_id: dispatchId,
          allowed_domains: policy.allowed_domains,
          label: spec.title,
          ...(request.tab_id === undefined ? {} : { tab_id: request.tab_id }),
        })
      : undefined;
  const task = executeRun(ctx, run, {
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
}

function startingRecord(dispatchId: string, spec: AbilityRunSpec, request: StartRunRequest, at: string): RunRecord {
  return {
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
  };
}

const notFound = (dispatchId: string) => new AppError("RUN_NOT_FOUND", `No run ${dispatchId.slice(0, 200)}.`);

async function getRun(ctx: RunContext, dispatchId: string): Promise<RunRecord> {
  const live = ctx.active.get(dispatchId);
  if (live !== undefined) return live.record;
  const stored = await ctx.store.get(dispatchId);
  if (stored === undefined) throw notFound(dispatchId);
  return stored;
}

async function confirmStep(ctx: RunContext, dispatchId: string, request: ConfirmRunStepRequest): Promise<RunRecord> {
  const run = ctx.active.get(dispatchId);
  if (run === undefined || run.finished) {
    const stored = await getRun(ctx, dispatchId);
    throw new AppError(
      "RUN_NOT_ACTIVE",
      run === undefined ? `The run is ${stored.state}; there is nothing to confirm.` : "The run is ending; there is nothing to confirm.",
    );
  }
  if (run.pending === undefined || run.pending.confirmation_id !== request.confirmation_id) {
    throw new AppError(
      "RUN_CONFIRMATION_MISMATCH",
      run.pending === undefined
        ? "The run is not waiting for a confirmation."
        : "This confirmation_id is not the one the run is waiting for; read the run again.",
    );
  }
  const pending = run.pending;
  if (request.always_allow !== undefined) {
    // Issue #33: checked first, so a refused grant leaves the run waiting and nothing written.
    if (request.decision !== "confirm") throw new AppError("REQUEST_INVALID", "always_allow goes only with decision confirm.");
    const approvals = ctx.deps.approvals;
    if (approvals === undefined || pending.grant === undefined)
      throw new AppError(
        "REQUEST_INVALID",
        "This step cannot be allowed for good: the skill has no version or the page no site. Confirm it without always_allow.",
      );
    await approvals.grant(pending.grant, request.always_allow);
  }
  pending.settle(request.decision === "confirm", "declined");
  return run.record;
}

async function cancelRun(ctx: RunContext, dispatchId: string): Promise<RunRecord> {
  const run = ctx.active.get(dispatchId);
  if (run === undefined || run.finished) {
    const stored = await getRun(ctx, dispatchId);
    if (run !== undefined || TERMINAL_RUN_STATES.has(stored.state))
      throw new AppError("RUN_NOT_ACTIVE", run === undefined ? `The run is already ${stored.state}.` : "The run is ending already.");
    throw notFound(dispatchId);
  }
  run.controller.abort();
  await finishRun(ctx, run, "cancelled", { code: RUN_FAILURE_CODES.cancelled, message: "The run was cancelled." }, "cancelled");
  return run.record;
}

/** At start-up: every run that was not over when the agent stopped is marked `interrupted`. */
async function recoverRuns(ctx: RunContext, registry: Pick<AbilityRegistry, "get">): Promise<number> {
  let count = 0;
  for (const record of await ctx.store.list({})) {
    if (TERMINAL_RUN_STATES.has(record.state)) continue;
    const run = activeRun(record, registry.get(record.ability_id)?.capability_id ?? record.ability_id);
    await finishRun(
      ctx,
      run,
      "interrupted",
      { code: RUN_FAILURE_CODES.interrupted, message: "The agent stopped while this run was going; it was not resumed. Start it again to run it." },
      "failure",
    );
    count += 1;
  }
  return count;
}

async function purgeRuns(ctx: RunContext, due: (run: RunRecord) => boolean): Promise<RunPurgeReport> {
  const { store, active } = ctx;
  const report: RunPurgeReport = { purged: [], failures: [] };
  const remove = async (dispatchId: string) => {
    try {
      await store.purge(dispatchId);
      report.purged.push(dispatchId);
    } catch (error) {
      report.failures.push({
        dispatch_id: dispatchId,
        code: isAppError(error) ? error.code : "INTERNAL_ERROR",
        message: error instanceof Error ? error.message : String(error),
      });
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
}

/** On close: runs still going are stopped and marked `interrupted`. */
async function closeRuns(ctx: RunContext, background: ReadonlySet<Promise<void>>): Promise<void> {
  for (const run of [...ctx.active.values()]) {
    run.controller.abort();
    await finishRun(ctx, run, "interrupted", { code: RUN_FAILURE_CODES.interrupted, message: "The agent was stopped while this run was going." }, "failure");
  }
  // An aborted execution gives its browser back within moments; a wedged one is not waited for.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...background]), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
  clearTimeout(timer);
  await ctx.store.settle();
}
