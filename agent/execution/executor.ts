import type { Page } from "puppeteer-core";
import type { PageSeen } from "../../shared/execution/run-contract";
import { createTypedValueScrubber } from "../../shared/observation/typed-value-scrubber";
import type { RecorderStep } from "../../shared/execution/recorder-flow";
import { BASELINE_SETTLE_MAX_MS, BY_HAND_REASON, checkSuccessCondition, firstLine, readBaseline } from "./checkpoint-check";
import { createExecutionRecord, type ExecutionRecord } from "./execution-record";
import { BrowserUnusable, StepFailure, clamp, pausableLimit, within, type PausableLimit } from "./execution-util";
import { BrowserUnavailable, type BrowserLease, type ExecuteInput, type ExecuteResult, type ExecutionCheckpoint } from "./executor-contract";
import { countsAsAction, flowProblem, planExecution, soundsConsequential, stepWaitMs, type StepGroup } from "./flow-plan";
import { managedBrowser } from "./managed-browser";
import { readPageSeen } from "./page-seen";
import { waitForSettledPage } from "./page-settle";
import { createPolicyWatch, guardNetwork, preparePage } from "./policy-guard";
import { checkSignedIn, describeSignInState, readSignInState, signInGroupsOf, signedInName, type SignInGroups } from "./sign-in-state";
import { runStep, type StepContext, type StepOutcome } from "./step-actions";

export const DEFAULT_EXECUTION_TIMEOUT_MS = 60_000;
export const DEFAULT_STEP_TIMEOUT_MS = 5_000;

/** The execution was abandoned: its signal was aborted. */
class Cancelled extends Error {
  override name = "Cancelled";
}

/** The person said no to a step with consequences found only once its element was. */
class Declined extends Error {
  override name = "Declined";
}

/**
 * The one executor (issue #21): replays a recorded flow step by step in the browser a provider
 * lends (a fresh managed Chromium by default), under the test policy, with the given values;
 * checks each checkpoint in the page after its last step; asks before a step with consequences
 * when someone can be asked; stops at once when its signal aborts. Never throws for anything the
 * page or the browser does. What it reports (results, progress, the page seen) never holds an input
 * value: every value is scrubbed, in a run and in a rehearsal alike.
 */
export async function execute(input: ExecuteInput): Promise<ExecuteResult> {
  const { flow, checkpoints, values, policy, signal, confirm } = input;
  const now = input.now ?? (() => new Date());
  const timeoutMs = input.timeoutMs ?? DEFAULT_EXECUTION_TIMEOUT_MS;
  const stepTimeoutMs = input.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  const purpose = input.purpose ?? "run";
  const record = createExecutionRecord(input, now().toISOString(), now);
  /** The whole execution's end; pushed back by the time spent waiting for a person's answer. */
  let deadline = Date.now() + timeoutMs;
  const remaining = () => deadline - Date.now();

  const invalid = flowProblem(flow);
  if (invalid !== undefined) {
    record.step({ id: "flow", label: "Read the recorded flow", result: "failed", details: invalid });
    return record.finish();
  }
  const plan = planExecution(flow, checkpoints, policy);

  // Cancellation: a promise that rejects on abort, raced against every wait.
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
  const orCancel = <T>(work: Promise<T>): Promise<T> => {
    work.catch(() => undefined);
    return signal === undefined ? work : Promise.race([work, aborted]);
  };

  if (signal?.aborted === true) {
    abortListener();
    record.skipRemaining(plan, "cancelled", "not run: cancelled");
    return finishCancelled(record, signal, abortListener);
  }
  // A flow with nothing to do in a page (a desktop routine's flow is only its viewport) needs no browser.
  if (!flow.steps.some((step) => step.type !== "setViewport")) {
    const byHand = (checkpoint: ExecutionCheckpoint) => `${BY_HAND_REASON}: "${clamp(checkpoint.success_condition, 240)}" (nothing in this flow acts in a browser)`;
    // Its only steps are the Recorder's set-up (a viewport a terminal routine never had): not listed
    // as "not replayed". What is left to say is each checkpoint, for the person to confirm.
    for (const checkpoint of [...plan.checkpointsBefore, ...plan.groups.flatMap((group) => group.checkpointsAfter)]) record.checkpoint(checkpoint, { result: "skipped", details: byHand(checkpoint) });
    signal?.removeEventListener("abort", abortListener);
    return record.finish();
  }
  const provider = input.browser ?? managedBrowser();
  const browserLabel = provider.label ?? "Get the browser to act in";
  let lease: BrowserLease;
  const leasing = provider({ deadline });
  try {
    lease = await orCancel(leasing);
  } catch (error) {
    if (error instanceof Cancelled) {
      // The browser may still arrive: give it back.
      void leasing.then((late) => late.release(), () => undefined);
      record.skipRemaining(plan, "cancelled", "not run: cancelled");
      return finishCancelled(record, signal, abortListener);
    }
    const reason = error instanceof BrowserUnavailable ? error.message : `The browser could not be had (${firstLine(error)}).`;
    record.step({ id: "browser", label: browserLabel, result: "skipped", details: `${reason} The flow was not replayed.` });
    signal?.removeEventListener("abort", abortListener);
    return record.finish();
  }

  const watch = createPolicyWatch();
  /** The person said yes to the step now running: a native "Are you sure?" it opens is theirs to accept. */
  let confirmedStep = false;
  const undo: Array<{ dispose(): Promise<void> }> = [];
  try {
    try {
      // Guard the network before the flow's first request.
      undo.push(await within(guardNetwork(lease, policy, watch, { onBehalfOfPerson: input.onBehalfOfPerson === true, personConfirmed: () => confirmedStep }), remaining(), `the ${purpose} ran out of time`));
      undo.push(await within(preparePage(lease.page, policy, watch, { personConfirmed: () => confirmedStep }), remaining(), `the ${purpose} ran out of time`));
    } catch (error) {
      throw new BrowserUnusable(`The browser's page could not be prepared (${firstLine(error)}). The flow was not replayed.`);
    }
    await replay(lease);
  } catch (error) {
    if (error instanceof BrowserUnusable) record.step({ id: "browser", label: browserLabel, result: "skipped", details: error.message });
    else record.step({ id: "error", label: "Replay the recorded flow", result: "failed", details: `the ${purpose} stopped unexpectedly: ${firstLine(error)}` });
  } finally {
    over.abort();
    for (const item of undo.reverse()) await item.dispose().catch(() => undefined);
    await lease.release().catch(() => undefined);
    signal?.removeEventListener("abort", abortListener);
  }
  return record.finish(watch.violation, watch.readsElsewhere());

  // -------------------------------------------------------------------------------------------
  // The loop, with the state of this execution in scope.

  async function replay(leased: BrowserLease): Promise<void> {
    const page = leased.page;
    const stopOnCheckpoint = input.stopOnCheckpointFailure ?? confirm !== undefined;
    let stop: string | undefined;
    let actions = 0;
    let violationReported = false;
    const baselines = new Map<string, Awaited<ReturnType<typeof readBaseline>>>();
    // Issue #35: sign-ins a signed-in browser does without, by their first group; the groups found
    // not needed (with what showed the browser signed in), and the checkpoints proved that way.
    const signIns = signInGroupsOf(plan, flow, checkpoints);
    const notNeeded = new Map<number, string>();
    const alreadySignedIn = new Set<string>();

    /** A breach not yet pinned on a result (a request the page made on its own after a step). */
    const unreportedViolation = (): string | undefined => {
      if (watch.violation === undefined || violationReported) return undefined;
      violationReported = true;
      stop = "the test policy was breached";
      return watch.violation;
    };
    const stopShort = async (why: string, kind?: "cancelled" | "declined") => {
      stop ??= why;
      if (kind !== undefined) record.stopped ??= kind;
      record.pageSeen ??= await seePage(page);
    };

    const checkAll = async (list: readonly ExecutionCheckpoint[]) => {
      for (const checkpoint of list) {
        if (stop !== undefined) {
          record.checkpoint(checkpoint, { result: "skipped", details: `not checked: ${stop}` });
          continue;
        }
        // The person confirms it (their choice, or nothing on the page can show it): not looked for in the page.
        if (checkpoint.verification?.by === "person") {
          record.checkpoint(checkpoint, { result: "skipped", details: `${BY_HAND_REASON}: "${clamp(checkpoint.success_condition, 240)}"${checkpoint.verification.reason === undefined ? "" : ` (${clamp(checkpoint.verification.reason, 200)})`}` });
          continue;
        }
        let verdict: { result: "passed" | "failed" | "skipped"; details: string };
        try {
          const options = { timeoutMs: Math.max(0, Math.min(stepTimeoutMs, remaining())), shouldStop: () => watch.violation !== undefined || over.signal.aborted, values };
          const signIn = checkpoint.sign_in;
          // A sign-in is proved by the signed-in state, whether its steps ran or were not needed.
          verdict = await orCancel(
            signIn !== undefined
              ? checkSignedIn(page, { ...checkpoint, sign_in: signIn }, options)
              : checkSuccessCondition(page, checkpoint.success_condition, { ...options, baseline: baselines.get(checkpoint.checkpoint_id) }),
          );
          if (alreadySignedIn.has(checkpoint.checkpoint_id)) verdict = { ...verdict, details: `already signed in, so its steps were skipped; ${verdict.details}` };
        } catch (error) {
          if (!(error instanceof Cancelled)) throw error;
          await stopShort("cancelled", "cancelled");
          record.checkpoint(checkpoint, { result: "skipped", details: "not checked: cancelled" });
          continue;
        }
        const breach = unreportedViolation();
        record.checkpoint(checkpoint, breach === undefined ? verdict : { result: "failed", details: `test policy: ${breach} (while checking: ${verdict.details})` });
        if (breach !== undefined) await stopShort(stop ?? "the test policy was breached");
        else if (verdict.result === "failed" && stopOnCheckpoint) await stopShort(`checkpoint ${checkpoint.checkpoint_id} did not hold`);
      }
    };

    const runGroup = async (group: StepGroup, groupSignal: AbortSignal, limit: PausableLimit): Promise<StepOutcome[]> => {
      const done: StepOutcome[] = [];
      for (const index of group.indexes) {
        const step = flow.steps[index] as RecorderStep;
        if (groupSignal.aborted) throw new Cancelled("cancelled");
        if (countsAsAction(step)) {
          if (actions >= policy.max_actions) {
            watch.breach(`the test policy allows at most ${policy.max_actions} actions (max_actions); this step would be action ${actions + 1}`);
            throw new StepFailure(watch.violation as string);
          }
          actions += 1;
        }
        const wait = stepWaitMs(step, stepTimeoutMs);
        const stepContext: StepContext = { policy, where: leased.where, purpose, watch, values, stepTimeoutMs: wait, deadline: Date.now() + wait, signal: groupSignal };
        if (confirm !== undefined && group.consequence === undefined) stepContext.beforeClick = (element, context) => askAboutElement(group, element, context, limit);
        done.push(await runStep(page, step, stepContext));
      }
      return done;
    };

    /** Asks before a step with consequences; true when it may be done. */
    const mayDo = async (group: StepGroup): Promise<boolean> => {
      if (confirm === undefined || group.consequence === undefined) return true;
      const asked = Date.now();
      try {
        confirmedStep = (await orCancel(confirm({ step_id: group.stepId, step_label: record.clean(group.label, "label"), reason: group.consequence }))) === true;
        return confirmedStep;
      } finally {
        // Time spent waiting for the person is not the execution's.
        deadline += Date.now() - asked;
      }
    };

    /** A click whose element's name says it sends, pays, deletes or publishes: asked about with the group's time held. */
    const askAboutElement = async (group: StepGroup, element: string, context: StepContext, limit: PausableLimit): Promise<void> => {
      if (confirm === undefined || !soundsConsequential(element)) return;
      const asked = Date.now();
      limit.pause();
      try {
        const label = `${group.label} (${element})`;
        const answer = await orCancel(confirm({ step_id: group.stepId, step_label: record.clean(label, "label"), reason: "destructive" }));
        if (answer !== true) throw new Declined("declined");
        confirmedStep = true;
      } finally {
        const waited = Date.now() - asked;
        deadline += waited;
        context.deadline += waited;
        limit.resume();
      }
    };

    /**
     * Before a sign-in's first step: when the page already shows the browser signed in, its steps
     * are not needed (recorded as skipped, saying why) and, if the sign-in led elsewhere in the
     * demonstration, that page is opened. True when they are skipped.
     */
    const signedInAlready = async (signIn: SignInGroups): Promise<boolean> => {
      const read = () => orCancel(readSignInState(page, signIn.checkpoint.sign_in, signedInName(signIn.checkpoint, values)));
      let state = await read();
      // Neither a sign-out control nor a password field yet: a page still rendering is read again once settled.
      if (!state.signedIn && state.passwordFields === 0) {
        await orCancel(waitForSettledPage(page, { maxMs: Math.max(0, Math.min(3_000, remaining())) }).catch(() => false));
        state = await read();
      }
      if (!state.signedIn) return false;
      let note = `not needed: the browser is already signed in (${describeSignInState(state)}), so the sign-in steps were skipped`;
      const to = signIn.checkpoint.sign_in.signed_in_url;
      if (to !== undefined && !to.includes("=*") && sameRoute(to, page.url()) === false) {
        const wait = stepTimeoutMs;
        // An opening like any other: it counts toward max_actions.
        if (actions >= policy.max_actions) throw new StepFailure(`the test policy allows at most ${policy.max_actions} actions (max_actions)`);
        actions += 1;
        const opened = await orCancel(runStep(page, { type: "navigate", url: to }, { policy, where: leased.where, purpose, watch, values, stepTimeoutMs: wait, deadline: Date.now() + Math.min(wait, remaining()), signal: over.signal }));
        note = `${note}; ${opened.details.replace(/^opened/, "opened the page the sign-in led to,")}`;
      }
      for (const index of signIn.groups) notNeeded.set(index, note);
      alreadySignedIn.add(signIn.checkpoint.checkpoint_id);
      return true;
    };

    await checkAll(plan.checkpointsBefore);
    for (const [groupIndex, group] of plan.groups.entries()) {
      const base = { id: group.stepId, label: group.label };
      if (stop === undefined && over.signal.aborted) await stopShort("cancelled", "cancelled");
      const signIn = signIns.get(groupIndex);
      if (stop === undefined && signIn !== undefined && !notNeeded.has(groupIndex) && groupIndex !== plan.dryRunSkips && watch.violation === undefined) {
        try {
          await signedInAlready(signIn);
        } catch (error) {
          if (error instanceof Cancelled) {
            await stopShort("cancelled", "cancelled");
          } else {
            const reason = error instanceof StepFailure ? error.message : firstLine(error);
            record.step({ ...base, result: "failed", details: `the browser is already signed in, but the page the sign-in led to could not be opened: ${reason}` });
            await stopShort(`${group.stepId} failed`);
            await checkAll(group.checkpointsAfter);
            continue;
          }
        }
      }
      const earlierBreach = stop === undefined ? unreportedViolation() : undefined;
      if (earlierBreach !== undefined) {
        record.step({ ...base, result: "failed", details: `test policy: ${earlierBreach} (before this step was run)` });
        await stopShort(stop ?? "the test policy was breached");
      } else if (stop !== undefined) {
        record.step({ ...base, result: "skipped", details: `not run: ${stop}` });
      } else if (groupIndex === plan.dryRunSkips) {
        record.step({ ...base, result: "skipped", details: "dry run: final committing step not performed" });
        stop = "dry run: the final committing step was not performed";
      } else if (notNeeded.has(groupIndex)) {
        record.step({ ...base, result: "skipped", details: notNeeded.get(groupIndex) as string, notNeeded: true });
      } else {
        let allowed: boolean;
        confirmedStep = false;
        try {
          allowed = await mayDo(group);
        } catch (error) {
          if (error instanceof Cancelled) {
            await stopShort("cancelled", "cancelled");
            record.step({ ...base, result: "skipped", details: "not run: cancelled while waiting for confirmation" });
          } else {
            await stopShort(`${group.stepId} could not be confirmed`);
            record.step({ ...base, result: "failed", details: `not performed: the confirmation could not be asked (${firstLine(error)})` });
          }
          await checkAll(group.checkpointsAfter);
          continue;
        }
        if (!allowed) {
          await stopShort(`${group.stepId} was declined`, "declined");
          record.step({ ...base, result: "skipped", details: "not performed: the person declined this step" });
          await checkAll(group.checkpointsAfter);
          continue;
        }
        watch.notes = [];
        try {
          for (const checkpoint of group.checkpointsStarting) baselines.set(checkpoint.checkpoint_id, await orCancel(readBaseline(page, checkpoint.success_condition, Math.min(BASELINE_SETTLE_MAX_MS, remaining()))));
          const needed = group.indexes.reduce((sum, index) => sum + stepWaitMs(flow.steps[index] as RecorderStep, stepTimeoutMs) + 2_000, 0);
          const budget = Math.min(needed, remaining());
          const limit = budget < needed ? `the ${purpose} ran out of time (${Math.round(timeoutMs / 1000)} s limit)` : `the step did not finish within ${Math.round(budget / 1000)} s`;
          // Ended with the group, whichever way: a step still running after its time (or a cancel) must not act any more.
          const groupStop = new AbortController();
          const endGroup = () => groupStop.abort();
          over.signal.addEventListener("abort", endGroup, { once: true });
          const groupLimit = pausableLimit(budget, limit);
          let done: StepOutcome[];
          try {
            done = await orCancel(Promise.race([runGroup(group, groupStop.signal, groupLimit), groupLimit.promise]));
          } finally {
            groupLimit.clear();
            endGroup();
            over.signal.removeEventListener("abort", endGroup);
          }
          const resolved = done.find((outcome) => outcome.resolved !== undefined)?.resolved;
          const relocated = done.find((outcome) => outcome.relocated !== undefined)?.relocated;
          const breach = unreportedViolation();
          const details = [...done.map((outcome) => outcome.details), ...watch.notes.filter((note) => note !== breach)].join("; ");
          if (breach !== undefined) {
            record.step({ ...base, result: "failed", details: `test policy: ${breach}${details ? ` (${details})` : ""}` });
            await stopShort(stop ?? "the test policy was breached");
          } else {
            record.step({ ...base, result: "passed", details, ...(resolved !== undefined ? { resolved_selector: resolved } : {}), ...(relocated !== undefined ? { relocated } : {}) });
          }
        } catch (error) {
          if (error instanceof Cancelled) {
            over.abort();
            await stopShort("cancelled", "cancelled");
            record.step({ ...base, result: "skipped", details: "abandoned: cancelled while it ran" });
          } else if (error instanceof Declined) {
            await stopShort(`${group.stepId} was declined`, "declined");
            record.step({ ...base, result: "skipped", details: "not performed: the person declined this step" });
          } else {
            const reason = error instanceof StepFailure ? error.message : `the step could not be performed: ${firstLine(error)}`;
            const breach = unreportedViolation();
            const lead = breach !== undefined && !reason.includes(breach) ? `test policy: ${breach}; ${reason}` : breach !== undefined ? `test policy: ${reason}` : reason;
            const notes = watch.notes.filter((note) => note !== watch.violation && !reason.includes(note));
            record.step({ ...base, result: "failed", details: [lead, ...notes].join("; ") });
            stop ??= `${group.stepId} failed`;
            await stopShort(stop);
          }
        }
      }
      await checkAll(group.checkpointsAfter);
    }
  }

  async function seePage(page: Page): Promise<PageSeen | undefined> {
    try {
      // The screenshot covers every value, whichever ones the reported text is scrubbed of.
      const everyValue = createTypedValueScrubber(Object.values(values));
      return await readPageSeen(page, { redact: (text) => record.clean(text, "text"), holdsValue: (text) => everyValue.contains(text), screenshotPath: input.screenshotPath });
    } catch {
      return undefined;
    }
  }
}

/** Whether two addresses name the same page (origin, path, query and fragment); undefined when one is not an address. */
function sameRoute(a: string, b: string): boolean | undefined {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    return x.origin === y.origin && x.pathname === y.pathname && x.hash === y.hash && x.search === y.search;
  } catch {
    return undefined;
  }
}

function finishCancelled(record: ExecutionRecord, signal: AbortSignal | undefined, listener: () => void): ExecuteResult {
  record.stopped = "cancelled";
  signal?.removeEventListener("abort", listener);
  return record.finish();
}
