import { z } from "zod";
import {
  CoachingStateSchema,
  type CoachingAnswerRequest,
  type CoachingSetup,
  type CoachingShownRequest,
  type CoachingState,
  type CoachingTurn,
} from "../../../shared/learning/coaching";
import { isTerminalLearnSessionState, type LearnSession } from "../../../shared/learning/learn-session";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { BrowserLease, ExecuteInput, ExecuteResult } from "../../execution/executor-contract";
import type { UserTabProvider } from "../../execution/in-tab/user-tab-provider";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { LearnEventLog } from "../sessions/learn-event-log";
import type { SessionService } from "../sessions/session-service";
import { actOnStep } from "./coaching-act";
import { proposeControl } from "./coaching-matcher";
import { clearHighlight, readPage } from "./coaching-page";
import { assertNever } from "../../../shared/common/assert-never";

export interface CoachingServiceDeps {
  sessions: SessionService;
  memory: MemoryStore;
  events: LearnEventLog;
  clock: Clock;
  /** The one executor ("Do it" is played through it, in the lent tab). */
  execute: (input: ExecuteInput) => Promise<ExecuteResult>;
  /** Tabs of the person's Chrome, lent by the extension. Absent: coaching cannot take turns. */
  userTab?: UserTabProvider | undefined;
  logError?: (fields: Record<string, unknown>, message: string) => void;
}

export interface CoachingService {
  /** `POST /api/learn/sessions/:id/coaching`: the steps, before or after Start. */
  setup(sessionId: string, setup: CoachingSetup): Promise<CoachingState>;
  state(sessionId: string): Promise<CoachingState>;
  answer(sessionId: string, request: CoachingAnswerRequest): Promise<CoachingState>;
  shown(sessionId: string, request: CoachingShownRequest): Promise<CoachingState>;
  /** Resolves when no turn is being worked on (tests; a graceful close); gives every tab back. */
  close(): Promise<void>;
}

const statePath = (sessionId: string) => `${MemoryPaths.observationFolder(sessionId)}/coaching.json`;
const EventIdSchema = z.object({ event_id: z.string() }).passthrough();
const RECORDING = new Set(["armed", "capturing", "paused"]);
const LEASE_WAIT_MS = 20_000;

interface Runtime {
  state: CoachingState;
  /** The person's tab, lent for the whole coaching. */
  lease?: BrowserLease;
  /** One change at a time, in order. */
  work: Promise<void>;
  stop: AbortController;
  /** Events observed when the person chose to show a step: "I did it" needs more than these. */
  eventsAtShowing?: number;
}

/**
 * Coaching Agent (§0B.5, issue #16): takes turns with the person in their own tab. The session is
 * recorded as a demonstration; for each step in the person's words the agent reads the page, proposes
 * the control that fits (coaching-matcher), frames it in the page and waits. "Do it": it marks the
 * step with the person's words and clicks through the executor, then checks the page changed; "Not
 * that — I'll show you": it marks the step and the person does it, recorded by the content script,
 * masked as always; "Skip" moves on. What the agent clicks is recorded by that same content script,
 * so the session compiles like a demonstration, the person's words naming its steps and checkpoints.
 */
export function createCoachingService(deps: CoachingServiceDeps): CoachingService {
  const runtimes = new Map<string, Runtime>();
  const now = () => deps.clock.now().toISOString();

  const save = async (runtime: Runtime, changes: Partial<CoachingState>) => {
    runtime.state = CoachingStateSchema.parse({ ...runtime.state, ...changes, updated_at: now() });
    const sessionId = runtime.state.learn_session_id;
    // A session deleted meanwhile keeps its folder gone (§0C.22 rule 7).
    if (!deps.sessions.all().some((session) => session.learn_session_id === sessionId)) return;
    await deps.memory.writeJson(statePath(sessionId), runtime.state);
  };
  const setTurn = async (runtime: Runtime, turn: CoachingTurn, changes: Partial<CoachingState> = {}) => {
    const turns = runtime.state.turns.filter((entry) => entry.turn !== turn.turn);
    await save(runtime, { ...changes, turns: [...turns, turn].sort((a, b) => a.turn - b.turn) });
    await deps.events
      .emit(runtime.state.learn_session_id, "coaching.turn", { turn: turn.turn, step_index: turn.step_index, status: turn.status })
      .catch(() => undefined);
  };
  const queue = (runtime: Runtime, job: () => Promise<void>) => {
    runtime.work = runtime.work.then(job).catch(async (error: unknown) => {
      deps.logError?.({ err: error, learn_session_id: runtime.state.learn_session_id }, "coaching failed");
      const code = error instanceof AppError ? error.code : "INTERNAL_ERROR";
      await end(runtime, "failed", `The coaching could not go on (${code}).`, code).catch(() => undefined);
    });
  };
  const end = async (runtime: Runtime, status: CoachingState["status"], message: string, errorCode?: string) => {
    runtime.stop.abort();
    const lease = runtime.lease;
    runtime.lease = undefined;
    if (lease !== undefined) {
      await clearHighlight(lease.page).catch(() => undefined);
      await lease.release().catch(() => undefined);
    }
    await save(runtime, { status, message, ...(errorCode === undefined ? {} : { error_code: errorCode }) });
    // An ending (every step had its turn, the tab taken back, a failure) is news to a watching panel too.
    await deps.events.emit(runtime.state.learn_session_id, "coaching.turn", { coaching_status: status }).catch(() => undefined);
  };

  const sitesOf = (session: LearnSession) => session.target_app_whitelist.map((site) => site.replace(/^https?:\/\//i, "").replace(/\/$/, ""));

  /** The session is recording: borrow the tab, open the start page, propose the first step. */
  const begin = async (runtime: Runtime) => {
    const session = deps.sessions.get(runtime.state.learn_session_id);
    if (deps.userTab === undefined)
      return end(runtime, "failed", "This agent cannot act in your browser, so it cannot take turns with you.", "ADAPTER_UNAVAILABLE");
    await save(runtime, { status: "opening", message: "Borrowing your tab." });
    const provider = deps.userTab.lease({
      dispatch_id: `coaching-${session.learn_session_id}`,
      allowed_domains: sitesOf(session),
      label: "taking turns with you (Coaching Agent)",
      coaching_session_id: session.learn_session_id,
    });
    let lease: BrowserLease;
    try {
      lease = await provider({ deadline: Date.now() + LEASE_WAIT_MS });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return end(
        runtime,
        "failed",
        `The assistant could not use a tab: ${error instanceof Error ? error.message.slice(0, 300) : "it was refused"}`,
        typeof code === "string" ? code : "ADAPTER_UNAVAILABLE",
      );
    }
    if (runtime.stop.signal.aborted) {
      await lease.release().catch(() => undefined);
      return;
    }
    runtime.lease = lease;
    lease.onStop?.((stop) => queue(runtime, () => end(runtime, "failed", `The tab was taken back: ${stop.message}.`, "TAB_TAKEN_BACK")));
    await lease.page.goto(runtime.state.start_url, { waitUntil: "domcontentloaded", timeout: 15_000 });
    await save(runtime, { status: "turns", message: "Taking turns." });
    await propose(runtime, 0);
  };

  /** The turn of step `index`: read the page, match the words, frame the control, wait. */
  const propose = async (runtime: Runtime, index: number) => {
    const step = runtime.state.steps[index];
    const lease = runtime.lease;
    if (step === undefined || lease === undefined) {
      if (lease !== undefined) await end(runtime, "finished", "Every step had its turn. Finish to build the ability from what was done.");
      return;
    }
    const number = runtime.state.turns.length + 1;
    const base: CoachingTurn = {
      turn: number,
      step_index: index,
      words: step.words,
      ...(step.hint === undefined ? {} : { hint: step.hint }),
      status: "proposing",
      alternatives: [],
    };
    await setTurn(runtime, base);
    const { controls } = await readPage(lease);
    const { best, alternatives } = proposeControl(step, controls);
    if (best !== undefined) {
      await readPage(lease, {
        order: best.control.order,
        name: best.control.name,
        label: `About to: click '${best.target.name.slice(0, 60)}' (${best.target.role})`,
      }).catch(() => undefined);
    } else {
      await clearHighlight(lease.page).catch(() => undefined);
    }
    await setTurn(runtime, {
      ...base,
      status: "awaiting_answer",
      ...(best === undefined ? { outcome: "Nothing in this page fits these words: show me, or skip." } : { target: best.target }),
      alternatives: alternatives.map((entry) => entry.target),
    });
  };

  const current = (runtime: Runtime) => runtime.state.turns[runtime.state.turns.length - 1];
  const find = async (sessionId: string): Promise<Runtime> => {
    const session = deps.sessions.get(sessionId);
    const runtime = runtimes.get(sessionId);
    if (runtime !== undefined) return runtime;
    const stored = await deps.memory.readJson(statePath(sessionId), CoachingStateSchema);
    if (stored === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `Session ${session.learn_session_id} has no coaching set up.`);
    // Written by an earlier agent process: its tab went with it.
    const restored: Runtime = { state: stored, work: Promise.resolve(), stop: new AbortController() };
    runtimes.set(sessionId, restored);
    if (stored.status === "opening" || stored.status === "turns")
      await save(restored, { status: "ended", message: "The agent restarted; the coaching ended. Finish to build from what was done." });
    return restored;
  };
  const openTurn = (runtime: Runtime, turn: number, status: CoachingTurn["status"]): CoachingTurn => {
    const open = current(runtime);
    if (runtime.state.status !== "turns" || open === undefined || open.turn !== turn || open.status !== status) {
      throw new AppError(
        "COACHING_TURN_MISMATCH",
        `Turn ${turn} is not waiting for this answer${open === undefined ? "" : ` (turn ${open.turn} is ${open.status})`}; nothing was done.`,
      );
    }
    return open;
  };

  // The session decides: recording starts the turns; stopped, cancelled or deleted ends them.
  deps.sessions.onCurrentChange(() => {
    for (const runtime of runtimes.values()) {
      const session = deps.sessions.all().find((candidate) => candidate.learn_session_id === runtime.state.learn_session_id);
      const status = runtime.state.status;
      if (session !== undefined && RECORDING.has(session.state) && status === "waiting_for_capture") {
        runtime.state = { ...runtime.state, status: "opening" };
        queue(runtime, () => begin(runtime));
      } else if (status === "waiting_for_capture" && (session === undefined || isTerminalLearnSessionState(session.state))) {
        runtime.state = { ...runtime.state, status: "ended" };
        queue(runtime, () => end(runtime, "ended", "The session ended before it was started."));
      } else if (
        (session === undefined || !RECORDING.has(session.state)) &&
        (status === "opening" || status === "turns" || (status === "finished" && runtime.lease !== undefined))
      ) {
        runtime.stop.abort();
        queue(runtime, () =>
          end(
            runtime,
            status === "finished" ? "finished" : "ended",
            status === "finished" ? runtime.state.message : "The session ended before every step had its turn.",
          ),
        );
      }
    }
  });

  return {
    async setup(sessionId, setup) {
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
          updated_at: now(),
          schema_version: 1,
        }),
        work: Promise.resolve(),
        stop: new AbortController(),
      };
      runtimes.set(sessionId, runtime);
      await save(runtime, {});
      if (RECORDING.has(session.state)) {
        runtime.state = { ...runtime.state, status: "opening" };
        queue(runtime, () => begin(runtime));
      }
      return runtime.state;
    },

    async state(sessionId) {
      return (await find(sessionId)).state;
    },

    async answer(sessionId, request) {
      const runtime = await find(sessionId);
      const open = openTurn(runtime, request.turn, "awaiting_answer");
      if (request.answer === "do_it" && open.target === undefined) {
        throw new AppError("REQUEST_INVALID", "Nothing was proposed for this step: choose show me or skip.", {
          issues: [{ path: "body/answer", message: "no proposal to do" }],
        });
      }
      const lease = runtime.lease;
      const label = open.words;
      switch (request.answer) {
        case "skip":
          await setTurn(runtime, { ...open, status: "skipped", answer: "skip", outcome: "Skipped." });
          queue(runtime, () => propose(runtime, open.step_index + 1));
          break;
        case "show_me":
          await deps.sessions.markStep(sessionId, { step_label: label, step_kind_hint: "action" }, "user_click");
          runtime.eventsAtShowing = await countEvents(sessionId);
          if (lease !== undefined) await clearHighlight(lease.page).catch(() => undefined);
          await setTurn(runtime, { ...open, status: "user_showing", answer: "show_me", outcome: "Your turn: do this step in the page, then say you did it." });
          break;
        case "do_it": {
          const target = open.target!;
          await deps.sessions.markStep(sessionId, { step_label: label, step_kind_hint: "action" }, "user_click");
          await setTurn(runtime, { ...open, status: "acting", answer: "do_it" });
          queue(runtime, async () => {
            if (runtime.lease === undefined) return;
            await clearHighlight(runtime.lease.page).catch(() => undefined);
            const session = deps.sessions.get(sessionId);
            const acted = await actOnStep({
              words: label,
              target,
              lease: runtime.lease,
              allowedDomains: sitesOf(session),
              execute: deps.execute,
              signal: runtime.stop.signal,
            });
            if (runtime.stop.signal.aborted) return;
            await setTurn(runtime, {
              ...open,
              status: acted.done ? "done" : "failed",
              answer: "do_it",
              outcome: acted.outcome,
              ...(acted.page_check === undefined ? {} : { page_check: acted.page_check }),
            });
            if (acted.done) await propose(runtime, open.step_index + 1);
            // The same step again: the person may show it or skip it.
            else await propose(runtime, open.step_index);
          });
          break;
        }
        default:
          return assertNever(request.answer);
      }
      return runtime.state;
    },

    async shown(sessionId, request) {
      const runtime = await find(sessionId);
      const open = openTurn(runtime, request.turn, "user_showing");
      const events = await countEvents(sessionId);
      if (events <= (runtime.eventsAtShowing ?? 0)) {
        throw new AppError(
          "INSUFFICIENT_TRACES",
          "Nothing was recorded since you chose to show this step: do it in the page first (the toolbar shows REC while it records).",
        );
      }
      await setTurn(runtime, {
        ...open,
        status: "shown",
        outcome: `You showed it (${events - (runtime.eventsAtShowing ?? 0)} recorded action${events - (runtime.eventsAtShowing ?? 0) === 1 ? "" : "s"}).`,
      });
      queue(runtime, () => propose(runtime, open.step_index + 1));
      return runtime.state;
    },

    async close() {
      for (const runtime of runtimes.values()) {
        runtime.stop.abort();
        await runtime.work;
        const lease = runtime.lease;
        runtime.lease = undefined;
        await lease?.release().catch(() => undefined);
      }
    },
  };

  async function countEvents(sessionId: string): Promise<number> {
    return (await deps.memory.readJsonl(MemoryPaths.observationEvents(sessionId), EventIdSchema)).length;
  }
}
