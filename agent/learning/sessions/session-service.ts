import type { WorkflowBoundary } from "../../../shared/learning/sessions/boundary";
import type { CreateLearnSessionRequest, CreateLearnSessionResponse } from "../../../shared/learning/sessions/create-learn-session";
import type { LearnSession, LearnSessionState } from "../../../shared/learning/sessions/learn-session";
import type {
  AnswerQuestionsRequest,
  AnswerQuestionsResponse,
  MarkGoalRequest,
  MarkStepRequest,
  StartSessionResponse,
  StopSessionResponse,
  TrimRequest,
} from "../../../shared/learning/route-contracts";
import type { StartSessionRequest } from "../../../shared/learning/sessions/session-requests";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { Clock } from "../../common/clock";
import type { MemoryStore } from "../../memory/memory-store";
import type { AdapterRegistry } from "../../observation/adapter-registry";
import type { ObservedSessions } from "../../observation/observed-sessions";
import type { InstallingSessions } from "../../abilities/learning-ports";
import type { LearnEventLog } from "./learn-event-log";
import { createBoundaryOperations } from "./session-boundaries";
import { restoreRuntimeViews } from "./session-runtime-restore";
import { createSessionCore } from "./session-core";
import { createLaunchOperations, type ModeLauncher } from "./session-launch";
import { createLifecycleOperations } from "./session-lifecycle";
import { createScopeOperations } from "./session-scope";
import { createTraceSeeder, isSeeded, type SeedSources } from "./session-seed";
import type { SourceTrace, TraceSeedSummary } from "../../../shared/learning/sessions/trace-seed";

export type BoundarySource = WorkflowBoundary["source"];

/**
 * "Only if the session is still in this state, entered at this time": a TTL decision taken before
 * the lock must not apply to a session a user has moved on in the meantime.
 */
export interface StateGuard {
  state: LearnSessionState;
  since: Date;
}

export interface SessionServiceDeps {
  memory: MemoryStore;
  clock: Clock;
  events: LearnEventLog;
  adapters: AdapterRegistry;
  newId?: () => string;
}

/**
 * The session service's operations. What ingest needs of it (`get`, `all`, `stateSince`, the scope,
 * `noteMeaningfulEvent`, `recordIngest`, `setRedaction`, `onCurrentChange`, `current`) is declared
 * by agent/observation's ObservedSessions, and `advance` (used by the proposal service and the
 * install saga) by agent/abilities' InstallingSessions.
 */
export interface SessionService extends ObservedSessions, InstallingSessions {
  /** Who starts the agent's own work in sessions of this mode (issue #16: practice). */
  setModeLauncher(mode: LearnSession["entry_mode"], launcher: ModeLauncher): void;
  /** Where Learn From This reads a run's trace (set once the run service exists; §0B.6). */
  setSeedSources(sources: SeedSources): void;
  /** What a session seeded with this trace would start from; coded errors as for `create`, nothing written (Use as Example). */
  previewSeed(source: SourceTrace): Promise<TraceSeedSummary>;
  /** What the session was seeded with (Learn From This), or undefined. */
  seedOf(sessionId: string): Promise<TraceSeedSummary | undefined>;
  create(request: CreateLearnSessionRequest): Promise<CreateLearnSessionResponse>;
  /** Each live session's id and state, in the log's order, from the sessions view's marks (issue 32: no session is parsed for it). */
  states(): Array<{ learn_session_id: string; state: LearnSessionState }>;
  list(page: number, pageSize: number): { sessions: LearnSession[]; total: number };
  start(sessionId: string, request: StartSessionRequest, source: BoundarySource): Promise<StartSessionResponse>;
  pause(sessionId: string, source: BoundarySource, reason?: string, unchangedSince?: StateGuard): Promise<LearnSession>;
  resume(sessionId: string, source: BoundarySource): Promise<LearnSession>;
  stop(sessionId: string, source: BoundarySource): Promise<StopSessionResponse>;
  cancel(sessionId: string, source: BoundarySource, reason?: string, unchangedSince?: StateGuard): Promise<LearnSession>;
  markGoal(sessionId: string, request: MarkGoalRequest, source: BoundarySource): Promise<LearnSession>;
  markStep(sessionId: string, request: MarkStepRequest, source: BoundarySource): Promise<LearnSession>;
  trim(sessionId: string, request: TrimRequest, source: BoundarySource): Promise<LearnSession>;
  setTestPolicy(sessionId: string, policy: TestPolicy): Promise<LearnSession>;
  answerQuestions(sessionId: string, request: AnswerQuestionsRequest): Promise<AnswerQuestionsResponse>;
  boundaries(sessionId: string): Promise<WorkflowBoundary[]>;
  /** Removes a session and purges its observations at once (§0C.22 privacy rule 7). */
  remove(sessionId: string, source: BoundarySource): Promise<void>;
  /** Moves a terminal session out of the live log into `archived/sessions/` (§0C.16D); call inside `exclusive`. */
  archive(sessionId: string): Promise<void>;
  /** Rewrites `runtime/current.json` and `observation_scope_current.json` from the sessions. */
  refreshRuntimeViews(): Promise<void>;
  /** Runs `fn` with every other session change held back (used by TTL enforcement). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** At the agent's stop: the sessions' current view brought up to date, once every other change is done (issue 32). */
  settleView(): Promise<void>;
}

/**
 * The LearnSession runtime (§0C.1–§0C.8): the single writer of sessions, boundaries, receipts
 * and the runtime views. Every change is checked against the §0C.1A table first and writes nothing
 * when refused; accepted changes append the session, then its boundary and receipt, then rewrite
 * the current views and tell live subscribers.
 */
export async function createSessionService(deps: SessionServiceDeps): Promise<SessionService> {
  const core = await createSessionCore(deps);
  const seeder = createTraceSeeder(core);
  const lifecycle = createLifecycleOperations(core);
  const boundaries = createBoundaryOperations(core);
  const service: SessionService = {
    exclusive: core.exclusive,
    refreshRuntimeViews: () => core.exclusive(core.refreshRuntimeViews),
    settleView: () => core.exclusive(core.settleView),
    ...createLaunchOperations(core, seeder),
    ...lifecycle,
    ...boundaries,
    ...createScopeOperations(core),
    setSeedSources: (sources) => seeder.setSources(sources),
    previewSeed: async (source) => (await seeder.prepare(source)).summary,
    seedOf: (sessionId) => {
      core.find(sessionId);
      return seeder.summary(sessionId);
    },
    // A seeded session's trace is its first meaningful event: Start begins the capture at once.
    async start(sessionId, request, source) {
      const started = await lifecycle.start(sessionId, request, source);
      if (!(await isSeeded(seeder, started.session))) return started;
      return { ...started, session: await boundaries.noteMeaningfulEvent(sessionId) };
    },
  };
  // Issue 32: the runtime views kept on write, rebuilt only when they do not describe the current session.
  await restoreRuntimeViews(core);
  return service;
}
