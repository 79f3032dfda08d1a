import { z } from "zod";
import { CoachingStateSchema, type CoachingState, type CoachingTurn } from "../../../shared/learning/sessions/coaching";
import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { BrowserLease, ExecuteInput, ExecuteResult } from "../../execution/contract/executor-contract";
import type { UserTabProvider } from "../../execution/in-tab/user-tab-provider";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { LearnEventLog } from "../sessions/learn-event-log";
import type { SessionService } from "../sessions/session-service";
import { clearHighlight } from "./coaching-page";

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

/** One coaching in progress, per session. */
export interface Runtime {
  state: CoachingState;
  /** The person's tab, lent for the whole coaching. */
  lease?: BrowserLease;
  /** One change at a time, in order. */
  work: Promise<void>;
  stop: AbortController;
  /** Events observed when the person chose to show a step: "I did it" needs more than these. */
  eventsAtShowing?: number;
}

/** What every coaching part shares: the dependencies and the coachings in progress. */
export interface CoachingContext {
  deps: CoachingServiceDeps;
  runtimes: Map<string, Runtime>;
}

export const statePath = (sessionId: string) => `${MemoryPaths.observationFolder(sessionId)}/coaching.json`;
const EventIdSchema = z.object({ event_id: z.string() }).passthrough();
export const RECORDING = new Set(["armed", "capturing", "paused"]);

export const nowOf = (context: CoachingContext) => context.deps.clock.now().toISOString();

export const sitesOf = (session: LearnSession) => session.target_app_whitelist.map((site) => site.replace(/^https?:\/\//i, "").replace(/\/$/, ""));

export async function save(context: CoachingContext, runtime: Runtime, changes: Partial<CoachingState>): Promise<void> {
  const { deps } = context;
  runtime.state = CoachingStateSchema.parse({ ...runtime.state, ...changes, updated_at: nowOf(context) });
  const sessionId = runtime.state.learn_session_id;
  // A session deleted meanwhile keeps its folder gone (§0C.22 rule 7).
  if (!deps.sessions.all().some((session) => session.learn_session_id === sessionId)) return;
  await deps.memory.writeJson(statePath(sessionId), runtime.state);
}

export async function setTurn(context: CoachingContext, runtime: Runtime, turn: CoachingTurn, changes: Partial<CoachingState> = {}): Promise<void> {
  const turns = runtime.state.turns.filter((entry) => entry.turn !== turn.turn);
  await save(context, runtime, { ...changes, turns: [...turns, turn].sort((a, b) => a.turn - b.turn) });
  await context.deps.events
    .emit(runtime.state.learn_session_id, "coaching.turn", { turn: turn.turn, step_index: turn.step_index, status: turn.status })
    .catch(() => undefined);
}

/** Runs `job` after the runtime's earlier work; a failure ends the coaching. */
export function queue(context: CoachingContext, runtime: Runtime, job: () => Promise<void>): void {
  runtime.work = runtime.work.then(job).catch(async (error: unknown) => {
    context.deps.logError?.({ err: error, learn_session_id: runtime.state.learn_session_id }, "coaching failed");
    const code = error instanceof AppError ? error.code : "INTERNAL_ERROR";
    await end(context, runtime, "failed", `The coaching could not go on (${code}).`, code).catch(() => undefined);
  });
}

/** Ends the coaching: the tab given back, the status saved and announced. */
export async function end(context: CoachingContext, runtime: Runtime, status: CoachingState["status"], message: string, errorCode?: string): Promise<void> {
  runtime.stop.abort();
  const lease = runtime.lease;
  runtime.lease = undefined;
  if (lease !== undefined) {
    await clearHighlight(lease.page).catch(() => undefined);
    await lease.release().catch(() => undefined);
  }
  await save(context, runtime, { status, message, ...(errorCode === undefined ? {} : { error_code: errorCode }) });
  // An ending (every step had its turn, the tab taken back, a failure) is news to a watching panel too.
  await context.deps.events.emit(runtime.state.learn_session_id, "coaching.turn", { coaching_status: status }).catch(() => undefined);
}

/** The coaching of a session: in memory, or as an earlier agent process left it. */
export async function find(context: CoachingContext, sessionId: string): Promise<Runtime> {
  const { deps, runtimes } = context;
  const session = deps.sessions.get(sessionId);
  const runtime = runtimes.get(sessionId);
  if (runtime !== undefined) return runtime;
  const stored = await deps.memory.readJson(statePath(sessionId), CoachingStateSchema);
  if (stored === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `Session ${session.learn_session_id} has no coaching set up.`);
  // Written by an earlier agent process: its tab went with it.
  const restored: Runtime = { state: stored, work: Promise.resolve(), stop: new AbortController() };
  runtimes.set(sessionId, restored);
  if (stored.status === "opening" || stored.status === "turns")
    await save(context, restored, { status: "ended", message: "The agent restarted; the coaching ended. Finish to build from what was done." });
  return restored;
}

const current = (runtime: Runtime) => runtime.state.turns[runtime.state.turns.length - 1];

/** The open turn, if it is turn `turn` with `status`; otherwise the answer is refused. */
export function openTurn(runtime: Runtime, turn: number, status: CoachingTurn["status"]): CoachingTurn {
  const open = current(runtime);
  if (runtime.state.status !== "turns" || open === undefined || open.turn !== turn || open.status !== status) {
    throw new AppError(
      "COACHING_TURN_MISMATCH",
      `Turn ${turn} is not waiting for this answer${open === undefined ? "" : ` (turn ${open.turn} is ${open.status})`}; nothing was done.`,
    );
  }
  return open;
}

export async function countEvents(context: CoachingContext, sessionId: string): Promise<number> {
  return (await context.deps.memory.readJsonl(MemoryPaths.observationEvents(sessionId), EventIdSchema)).length;
}
