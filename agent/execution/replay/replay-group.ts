import type { RecorderStep } from "../../../shared/execution/recorder-flow";
import { BASELINE_SETTLE_MAX_MS, firstLine, readBaseline } from "../checkpoints/checkpoint-check";
import { Cancelled, Declined, StepFailure, pausableLimit, type PausableLimit } from "../contract/execution-util";
import { consequenceClassesOf, countsAsAction, soundsConsequential, stepWaitMs, type StepGroup } from "./flow-plan";
import { waitForSettledPage } from "../pages/page-settle";
import { checkCheckpoints } from "./replay-checkpoints";
import { remaining, stopShort, unreportedViolation, type Replay } from "./replay-state";
import { describeSignInState, readSignInState, signedInName, type SignInGroups } from "./sign-in-state";
import { runStep, type StepContext, type StepOutcome } from "./step-actions";

/**
 * One group of the plan (the Recorder steps of one normalized step), then the checkpoints after it:
 * a sign-in the browser no longer needs is skipped, a step with consequences is asked about, and a
 * breach, a cancel, a refusal or a failure stops the rest.
 */

type Base = { id: string; label: string };

/** The flow, group by group, with the checkpoints before the first. */
export async function replayFlow(run: Replay): Promise<void> {
  await checkCheckpoints(run, run.plan.checkpointsBefore);
  for (const [groupIndex, group] of run.plan.groups.entries()) {
    const base = { id: group.stepId, label: group.label };
    if (run.stop === undefined && run.cancel.over.signal.aborted) await stopShort(run, "cancelled", "cancelled");
    if (await signInStillToDo(run, groupIndex, group, base)) await replayGroup(run, groupIndex, group, base);
    await checkCheckpoints(run, group.checkpointsAfter);
  }
}

/** Before a sign-in's first group, whether the browser is signed in already; false when that could not be acted on (recorded as the group's failure). */
async function signInStillToDo(run: Replay, groupIndex: number, group: StepGroup, base: Base): Promise<boolean> {
  const signIn = run.signIns.get(groupIndex);
  if (
    run.stop !== undefined ||
    signIn === undefined ||
    run.notNeeded.has(groupIndex) ||
    groupIndex === run.plan.dryRunSkips ||
    run.watch.violation !== undefined
  )
    return true;
  try {
    await signedInAlready(run, signIn);
  } catch (error) {
    if (error instanceof Cancelled) {
      await stopShort(run, "cancelled", "cancelled");
      return true;
    }
    const reason = error instanceof StepFailure ? error.message : firstLine(error);
    run.record.step({ ...base, result: "failed", details: `the browser is already signed in, but the page the sign-in led to could not be opened: ${reason}` });
    await stopShort(run, `${group.stepId} failed`);
    return false;
  }
  return true;
}

async function replayGroup(run: Replay, groupIndex: number, group: StepGroup, base: Base): Promise<void> {
  const earlierBreach = run.stop === undefined ? unreportedViolation(run) : undefined;
  if (earlierBreach !== undefined) {
    run.record.step({ ...base, result: "failed", details: `test policy: ${earlierBreach} (before this step was run)` });
    await stopShort(run, run.stop ?? "the test policy was breached");
  } else if (run.stop !== undefined) {
    run.record.step({ ...base, result: "skipped", details: `not run: ${run.stop}` });
  } else if (groupIndex === run.plan.dryRunSkips) {
    run.record.step({ ...base, result: "skipped", details: "dry run: final committing step not performed" });
    run.stop = "dry run: the final committing step was not performed";
  } else if (run.notNeeded.has(groupIndex)) {
    run.record.step({ ...base, result: "skipped", details: run.notNeeded.get(groupIndex) as string, notNeeded: true });
  } else if (await allowed(run, group, base)) {
    await performGroup(run, group, base);
  }
}

/** Whether the group may be done: asked first when it has consequences and someone can be asked. */
async function allowed(run: Replay, group: StepGroup, base: Base): Promise<boolean> {
  let yes: boolean;
  run.confirmedStep = false;
  try {
    yes = await mayDo(run, group);
  } catch (error) {
    if (error instanceof Cancelled) {
      await stopShort(run, "cancelled", "cancelled");
      run.record.step({ ...base, result: "skipped", details: "not run: cancelled while waiting for confirmation" });
    } else {
      await stopShort(run, `${group.stepId} could not be confirmed`);
      run.record.step({ ...base, result: "failed", details: `not performed: the confirmation could not be asked (${firstLine(error)})` });
    }
    return false;
  }
  if (!yes) {
    await stopShort(run, `${group.stepId} was declined`, "declined");
    run.record.step({ ...base, result: "skipped", details: "not performed: the person declined this step" });
  }
  return yes;
}

/** The host (and port) of the page a step is asked about on, for a standing grant's site term (issue #33). */
function siteHost(run: Replay): string | undefined {
  try {
    const url = new URL(run.page.url());
    return url.protocol === "http:" || url.protocol === "https:" ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/** Asks before a step with consequences; true when it may be done. */
async function mayDo(run: Replay, group: StepGroup): Promise<boolean> {
  const confirm = run.input.confirm;
  if (confirm === undefined || group.consequence === undefined) return true;
  const asked = Date.now();
  try {
    const request = {
      step_id: group.stepId,
      step_label: run.record.clean(group.label, "label"),
      reason: group.consequence,
      site_host: siteHost(run),
      consequence_classes: group.consequenceClasses,
    };
    run.confirmedStep = (await run.cancel.orCancel(confirm(request))) === true;
    return run.confirmedStep;
  } finally {
    // Time spent waiting for the person is not the execution's.
    run.clock.deadline += Date.now() - asked;
  }
}

async function performGroup(run: Replay, group: StepGroup, base: Base): Promise<void> {
  run.watch.notes = [];
  try {
    for (const checkpoint of group.checkpointsStarting)
      run.baselines.set(
        checkpoint.checkpoint_id,
        await run.cancel.orCancel(readBaseline(run.page, checkpoint.success_condition, Math.min(BASELINE_SETTLE_MAX_MS, remaining(run)))),
      );
    const done = await runGroupInTime(run, group);
    const resolved = done.find((outcome) => outcome.resolved !== undefined)?.resolved;
    const relocated = done.find((outcome) => outcome.relocated !== undefined)?.relocated;
    const breach = unreportedViolation(run);
    const details = [...done.map((outcome) => outcome.details), ...run.watch.notes.filter((note) => note !== breach)].join("; ");
    if (breach !== undefined) {
      run.record.step({ ...base, result: "failed", details: `test policy: ${breach}${details ? ` (${details})` : ""}` });
      await stopShort(run, run.stop ?? "the test policy was breached");
    } else {
      run.record.step({
        ...base,
        result: "passed",
        details,
        ...(resolved !== undefined ? { resolved_selector: resolved } : {}),
        ...(relocated !== undefined ? { relocated } : {}),
      });
    }
  } catch (error) {
    await groupFailed(run, group, base, error);
  }
}

/** The group's steps within their time (each step's wait and 2 s more, at most what the execution has left). */
async function runGroupInTime(run: Replay, group: StepGroup): Promise<StepOutcome[]> {
  const needed = group.indexes.reduce((sum, index) => sum + stepWaitMs(run.input.flow.steps[index] as RecorderStep, run.stepTimeoutMs) + 2_000, 0);
  const budget = Math.min(needed, remaining(run));
  const limit =
    budget < needed
      ? `the ${run.purpose} ran out of time (${Math.round(run.timeoutMs / 1000)} s limit)`
      : `the step did not finish within ${Math.round(budget / 1000)} s`;
  // Ended with the group, whichever way: a step still running after its time (or a cancel) must not act any more.
  const groupStop = new AbortController();
  const endGroup = () => groupStop.abort();
  run.cancel.over.signal.addEventListener("abort", endGroup, { once: true });
  const groupLimit = pausableLimit(budget, limit);
  try {
    return await run.cancel.orCancel(Promise.race([runSteps(run, group, groupStop.signal, groupLimit), groupLimit.promise]));
  } finally {
    groupLimit.clear();
    endGroup();
    run.cancel.over.signal.removeEventListener("abort", endGroup);
  }
}

async function groupFailed(run: Replay, group: StepGroup, base: Base, error: unknown): Promise<void> {
  if (error instanceof Cancelled) {
    run.cancel.over.abort();
    await stopShort(run, "cancelled", "cancelled");
    run.record.step({ ...base, result: "skipped", details: "abandoned: cancelled while it ran" });
  } else if (error instanceof Declined) {
    await stopShort(run, `${group.stepId} was declined`, "declined");
    run.record.step({ ...base, result: "skipped", details: "not performed: the person declined this step" });
  } else {
    const reason = error instanceof StepFailure ? error.message : `the step could not be performed: ${firstLine(error)}`;
    const breach = unreportedViolation(run);
    const lead =
      breach !== undefined && !reason.includes(breach) ? `test policy: ${breach}; ${reason}` : breach !== undefined ? `test policy: ${reason}` : reason;
    const notes = run.watch.notes.filter((note) => note !== run.watch.violation && !reason.includes(note));
    run.record.step({ ...base, result: "failed", details: [lead, ...notes].join("; ") });
    run.stop ??= `${group.stepId} failed`;
    await stopShort(run, run.stop);
  }
}

async function runSteps(run: Replay, group: StepGroup, groupSignal: AbortSignal, limit: PausableLimit): Promise<StepOutcome[]> {
  const { policy, values } = run.input;
  const done: StepOutcome[] = [];
  for (const index of group.indexes) {
    const step = run.input.flow.steps[index] as RecorderStep;
    if (groupSignal.aborted) throw new Cancelled("cancelled");
    if (countsAsAction(step)) {
      if (run.actions >= policy.max_actions) {
        run.watch.breach(`the test policy allows at most ${policy.max_actions} actions (max_actions); this step would be action ${run.actions + 1}`);
        throw new StepFailure(run.watch.violation as string);
      }
      run.actions += 1;
    }
    const wait = stepWaitMs(step, run.stepTimeoutMs);
    const stepContext: StepContext = {
      policy,
      where: run.where,
      purpose: run.purpose,
      watch: run.watch,
      values,
      stepTimeoutMs: wait,
      deadline: Date.now() + wait,
      signal: groupSignal,
    };
    if (run.input.confirm !== undefined && group.consequence === undefined)
      stepContext.beforeClick = (element, context) => askAboutElement(run, group, element, context, limit);
    done.push(await runStep(run.page, step, stepContext));
  }
  return done;
}

/** A click whose element's name says it sends, pays, deletes or publishes: asked about with the group's time held. */
async function askAboutElement(run: Replay, group: StepGroup, element: string, context: StepContext, limit: PausableLimit): Promise<void> {
  const confirm = run.input.confirm;
  if (confirm === undefined || !soundsConsequential(element)) return;
  const asked = Date.now();
  limit.pause();
  try {
    const label = `${group.label} (${element})`;
    const answer = await run.cancel.orCancel(
      confirm({
        step_id: group.stepId,
        step_label: run.record.clean(label, "label"),
        reason: "destructive",
        site_host: siteHost(run),
        consequence_classes: consequenceClassesOf([group.label, element]),
      }),
    );
    if (answer !== true) throw new Declined("declined");
    run.confirmedStep = true;
  } finally {
    const waited = Date.now() - asked;
    run.clock.deadline += waited;
    context.deadline += waited;
    limit.resume();
  }
}

/**
 * Before a sign-in's first step: when the page already shows the browser signed in, its steps
 * are not needed (recorded as skipped, saying why) and, if the sign-in led elsewhere in the
 * demonstration, that page is opened. True when they are skipped.
 */
async function signedInAlready(run: Replay, signIn: SignInGroups): Promise<boolean> {
  const { page, input } = run;
  const read = () => run.cancel.orCancel(readSignInState(page, signIn.checkpoint.sign_in, signedInName(signIn.checkpoint, input.values)));
  let state = await read();
  // Neither a sign-out control nor a password field yet: a page still rendering is read again once settled.
  if (!state.signedIn && state.passwordFields === 0) {
    await run.cancel.orCancel(waitForSettledPage(page, { maxMs: Math.max(0, Math.min(3_000, remaining(run))) }).catch(() => false));
    state = await read();
  }
  if (!state.signedIn) return false;
  let note = `not needed: the browser is already signed in (${describeSignInState(state)}), so the sign-in steps were skipped`;
  const to = signIn.checkpoint.sign_in.signed_in_url;
  if (to !== undefined && !to.includes("=*") && sameRoute(to, page.url()) === false) {
    const wait = run.stepTimeoutMs;
    // An opening like any other: it counts toward max_actions.
    if (run.actions >= input.policy.max_actions) throw new StepFailure(`the test policy allows at most ${input.policy.max_actions} actions (max_actions)`);
    run.actions += 1;
    const opened = await run.cancel.orCancel(
      runStep(
        page,
        { type: "navigate", url: to },
        {
          policy: input.policy,
          where: run.where,
          purpose: run.purpose,
          watch: run.watch,
          values: input.values,
          stepTimeoutMs: wait,
          deadline: Date.now() + Math.min(wait, remaining(run)),
          signal: run.cancel.over.signal,
        },
      ),
    );
    note = `${note}; ${opened.details.replace(/^opened/, "opened the page the sign-in led to,")}`;
  }
  for (const index of signIn.groups) run.notNeeded.set(index, note);
  run.alreadySignedIn.add(signIn.checkpoint.checkpoint_id);
  return true;
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
