import type { Page } from "puppeteer-core";
import type { PageSeen, RunWhere } from "../../../shared/execution/run-contract";
import { createTypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";
import type { readBaseline } from "../checkpoints/checkpoint-check";
import type { ExecutionRecord } from "./execution-record";
import { Cancelled } from "../contract/execution-util";
import type { ExecuteInput } from "../contract/executor-contract";
import type { ExecutionPlan } from "./flow-plan";
import { readPageSeen } from "../pages/page-seen";
import type { PolicyWatch } from "../contract/policy-guard";
import { signInGroupsOf, type SignInGroups } from "./sign-in-state";

/**
 * One execution's cancellation: a promise that rejects on abort, raced against every wait, and
 * `over`, aborted on cancel and when the execution ends (a step still running stops acting).
 */
export interface Cancellation {
  over: AbortController;
  orCancel<T>(work: Promise<T>): Promise<T>;
  /** What the signal's abort does, done now (the signal was aborted before the execution began). */
  abortNow(): void;
  /** Stops listening to the signal. */
  dispose(): void;
}

export function watchCancellation(signal: AbortSignal | undefined): Cancellation {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Cancelled("cancelled"));
  });
  aborted.catch(() => undefined);
  const over = new AbortController();
  const abortListener = () => {
    over.abort();
    onAbort?.();
  };
  signal?.addEventListener("abort", abortListener, { once: true });
  return {
    over,
    orCancel<T>(work: Promise<T>): Promise<T> {
      work.catch(() => undefined);
      return signal === undefined ? work : Promise.race([work, aborted]);
    },
    abortNow: abortListener,
    dispose: () => signal?.removeEventListener("abort", abortListener),
  };
}

/** The state of one replay, passed to each of its stages (replay-group.ts, replay-checkpoints.ts). */
export interface Replay {
  readonly input: ExecuteInput;
  readonly plan: ExecutionPlan;
  readonly record: ExecutionRecord;
  readonly watch: PolicyWatch;
  readonly cancel: Cancellation;
  /** The whole execution's end; pushed back by the time spent waiting for a person's answer. */
  readonly clock: { deadline: number };
  readonly purpose: "rehearsal" | "run";
  readonly timeoutMs: number;
  readonly stepTimeoutMs: number;
  /** Whether a page-verified checkpoint that does not hold stops the execution. */
  readonly stopOnCheckpoint: boolean;
  /** The leased browser's page acted in, and where it is. */
  readonly page: Page;
  readonly where: RunWhere;
  /** The person said yes to the step now running: a native "Are you sure?" it opens is theirs to accept. */
  confirmedStep: boolean;
  /** Why the rest is not run, once something stopped it. */
  stop: string | undefined;
  /** Actions done so far, against the policy's `max_actions`. */
  actions: number;
  violationReported: boolean;
  /** What a count that changes compares against, by checkpoint, read before the checkpoint's first step. */
  readonly baselines: Map<string, Awaited<ReturnType<typeof readBaseline>>>;
  /** Issue #35: sign-ins a signed-in browser does without, by their first group. */
  readonly signIns: Map<number, SignInGroups>;
  /** Groups found not needed (with what showed the browser signed in). */
  readonly notNeeded: Map<number, string>;
  /** Sign-in checkpoints proved by the signed-in state, their steps skipped. */
  readonly alreadySignedIn: Set<string>;
}

export function createReplay(
  parts: Pick<Replay, "input" | "plan" | "record" | "watch" | "cancel" | "clock" | "timeoutMs" | "stepTimeoutMs" | "page" | "where">,
): Replay {
  const { input, plan } = parts;
  return {
    ...parts,
    purpose: input.purpose ?? "run",
    stopOnCheckpoint: input.stopOnCheckpointFailure ?? input.confirm !== undefined,
    confirmedStep: false,
    stop: undefined,
    actions: 0,
    violationReported: false,
    baselines: new Map(),
    signIns: signInGroupsOf(plan, input.flow, input.checkpoints),
    notNeeded: new Map(),
    alreadySignedIn: new Set(),
  };
}

export function remaining(run: Replay): number {
  return run.clock.deadline - Date.now();
}

/** A breach not yet pinned on a result (a request the page made on its own after a step). */
export function unreportedViolation(run: Replay): string | undefined {
  if (run.watch.violation === undefined || run.violationReported) return undefined;
  run.violationReported = true;
  run.stop = "the test policy was breached";
  return run.watch.violation;
}

/** Nothing after this runs; the page where it stopped is kept (once). */
export async function stopShort(run: Replay, why: string, kind?: "cancelled" | "declined"): Promise<void> {
  run.stop ??= why;
  if (kind !== undefined) run.record.stopped ??= kind;
  run.record.pageSeen ??= await seePage(run);
}

async function seePage(run: Replay): Promise<PageSeen | undefined> {
  try {
    // The screenshot covers every value, whichever ones the reported text is scrubbed of.
    const everyValue = createTypedValueScrubber(Object.values(run.input.values));
    return await readPageSeen(run.page, {
      redact: (text) => run.record.clean(text, "text"),
      holdsValue: (text) => everyValue.contains(text),
      screenshotPath: run.input.screenshotPath,
    });
  } catch {
    return undefined;
  }
}
