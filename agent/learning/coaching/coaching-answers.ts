import {
  CoachingStateSchema,
  type CoachingAnswerRequest,
  type CoachingSetup,
  type CoachingShownRequest,
  type CoachingState,
  type CoachingTurn,
} from "../../../shared/learning/sessions/coaching";
import { isTerminalLearnSessionState } from "../../../shared/learning/sessions/learn-session";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import { assertNever } from "../../../shared/common/assert-never";
import { AppError } from "../../errors/app-error";
import { actOnStep } from "./coaching-act";
import { clearHighlight } from "./coaching-page";
import {
  countEvents,
  find,
  nowOf,
  openTurn,
  queue,
  RECORDING,
  save,
  setTurn,
  sitesOf,
  statePath,
  type CoachingContext,
  type Runtime,
} from "./coaching-runtime";
import { begin, propose } from "./coaching-turns";

/** `POST /api/learn/sessions/:id/coaching`: the steps, before or after Start. */
export async function setupCoaching(context: CoachingContext, sessionId: string, setup: CoachingSetup): Promise<CoachingState> {
  const { deps, runtimes } = context;
  const session = deps.sessions.get(sessionId);
  if (session.entry_mode !== "coaching_agent")
    throw new AppError("REQUEST_INVALID", "Coaching steps are only for a coaching_agent session.", {
      issues: [{ path: "params/sessionId", message: `a ${session.entry_mode} session` }],
    });
  if (isTerminalLearnSessionState(session.state) || !(session.state === "idle" || RECORDING.has(session.state))) {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A ${session.state} session takes no coaching steps.`);
  }
  if (!urlMatchesAllowList(setup.start_url, session.target_app_whitelist)) {
    throw new AppError("REQUEST_INVALID", `The start page is not on the session's sites (${session.target_app_whitelist.join(", ") || "none"}).`, {
      issues: [{ path: "body/start_url", message: "not on the session's sites" }],
    });
  }
  const known = runtimes.get(sessionId) ?? (await deps.memory.readJson(statePath(sessionId), CoachingStateSchema));
  if (known !== undefined) throw new AppError("INVALID_LEARN_STATE_TRANSITION", "This session's coaching steps are already set.");
  const runtime: Runtime = {
    state: CoachingStateSchema.parse({
      learn_session_id: sessionId,
      status: "waiting_for_capture",
      message: "Start the session to take turns.",
      start_url: setup.start_url,
      steps: setup.steps,
      turns: [],
      updated_at: nowOf(context),
      schema_version: 1,
    }),
    work: Promise.resolve(),
    stop: new AbortController(),
  };
  runtimes.set(sessionId, runtime);
  await save(context, runtime, {});
  if (RECORDING.has(session.state)) {
    runtime.state = { ...runtime.state, status: "opening" };
    queue(context, runtime, () => begin(context, runtime));
  }
  return runtime.state;
}

/** The person's answer to the open turn: skip it, show it, or let the agent do it. */
export async function answerTurn(context: CoachingContext, sessionId: string, request: CoachingAnswerRequest): Promise<CoachingState> {
  const runtime = await find(context, sessionId);
  const open = openTurn(runtime, request.turn, "awaiting_answer");
  if (request.answer === "do_it" && open.target === undefined) {
    throw new AppError("REQUEST_INVALID", "Nothing was proposed for this step: choose show me or skip.", {
      issues: [{ path: "body/answer", message: "no proposal to do" }],
    });
  }
  switch (request.answer) {
    case "skip":
      await setTurn(context, runtime, { ...open, status: "skipped", answer: "skip", outcome: "Skipped." });
      queue(context, runtime, () => propose(context, runtime, open.step_index + 1));
      break;
    case "show_me":
      await showMe(context, runtime, sessionId, open);
      break;
    case "do_it":
      await doIt(context, runtime, sessionId, open);
      break;
    default:
      return assertNever(request.answer);
  }
  return runtime.state;
}

/** "Not that — I'll show you": the step is marked and the person does it in the page. */
async function showMe(context: CoachingContext, runtime: Runtime, sessionId: string, open: CoachingTurn): Promise<void> {
  const lease = runtime.lease;
  await context.deps.sessions.markStep(sessionId, { step_label: open.words, step_kind_hint: "action" }, "user_click");
  runtime.eventsAtShowing = await countEvents(context, sessionId);
  if (lease !== undefined) await clearHighlight(lease.page).catch(() => undefined);
  await setTurn(context, runtime, { ...open, status: "user_showing", answer: "show_me", outcome: "Your turn: do this step in the page, then say you did it." });
}

/** "Do it": the step is marked and the agent clicks the proposed control through the executor. */
async function doIt(context: CoachingContext, runtime: Runtime, sessionId: string, open: CoachingTurn): Promise<void> {
  await context.deps.sessions.markStep(sessionId, { step_label: open.words, step_kind_hint: "action" }, "user_click");
  await setTurn(context, runtime, { ...open, status: "acting", answer: "do_it" });
  queue(context, runtime, async () => {
    await actInTab(context, runtime, sessionId, open);
  });
}

async function actInTab(context: CoachingContext, runtime: Runtime, sessionId: string, open: CoachingTurn): Promise<void> {
  const { deps } = context;
  if (runtime.lease === undefined) return;
  await clearHighlight(runtime.lease.page).catch(() => undefined);
  const session = deps.sessions.get(sessionId);
  const acted = await actOnStep({
    words: open.words,
    target: open.target!,
    lease: runtime.lease,
    allowedDomains: sitesOf(session),
    execute: deps.execute,
    signal: runtime.stop.signal,
  });
  if (runtime.stop.signal.aborted) return;
  await setTurn(context, runtime, {
    ...open,
    status: acted.done ? "done" : "failed",
    answer: "do_it",
    outcome: acted.outcome,
    ...(acted.page_check === undefined ? {} : { page_check: acted.page_check }),
  });
  if (acted.done) await propose(context, runtime, open.step_index + 1);
  // The same step again: the person may show it or skip it.
  else await propose(context, runtime, open.step_index);
}

/** "I did it": something must have been recorded since the person chose to show the step. */
export async function shownTurn(context: CoachingContext, sessionId: string, request: CoachingShownRequest): Promise<CoachingState> {
  const runtime = await find(context, sessionId);
  const open = openTurn(runtime, request.turn, "user_showing");
  const events = await countEvents(context, sessionId);
  if (events <= (runtime.eventsAtShowing ?? 0)) {
    throw new AppError(
      "INSUFFICIENT_TRACES",
      "Nothing was recorded since you chose to show this step: do it in the page first (the toolbar shows REC while it records).",
    );
  }
  await setTurn(context, runtime, {
    ...open,
    status: "shown",
    outcome: `You showed it (${events - (runtime.eventsAtShowing ?? 0)} recorded action${events - (runtime.eventsAtShowing ?? 0) === 1 ? "" : "s"}).`,
  });
  queue(context, runtime, () => propose(context, runtime, open.step_index + 1));
  return runtime.state;
}
