import type { WorkflowBoundary } from "../../../shared/learning/boundary";
import type { CreateLearnSessionRequest, CreateLearnSessionResponse } from "../../../shared/learning/create-learn-session";
import type { LearnSession, LearnSessionState } from "../../../shared/learning/learn-session";
import type { LearnStreamEventKind } from "../../../shared/learning/lifecycle-event";
import type { ObservationScopeRuntime } from "../../../shared/learning/observation-scope-runtime";
import type { LearningReceiptKind } from "../../../shared/learning/receipts";
import type {
  AnswerQuestionsRequest,
  AnswerQuestionsResponse,
  MarkGoalRequest,
  MarkStepRequest,
  StartSessionResponse,
  StopSessionResponse,
  TrimRequest,
} from "../../../shared/learning/route-contracts";
import type { StartSessionRequest } from "../../../shared/learning/session-requests";
import type { TestPolicy } from "../../../shared/learning/test-policy";
import type { Clock } from "../../common/clock";
import type { MemoryStore } from "../../memory/memory-store";
import type { AdapterRegistry } from "../../observation/adapter-registry";
import type { LearnEventLog } from "./learn-event-log";
import { createBoundaryOperations } from "./session-boundaries";
import { createSessionCore } from "./session-core";
import { createLaunchOperations, type ModeLauncher } from "./session-launch";
import { createLifecycleOperations } from "./session-lifecycle";
import { createScopeOperations } from "./session-scope";
import { createTraceSeeder, isSeeded, type SeedSources } from "./session-seed";
import type { SourceTrace, TraceSeedSummary } from "../../../shared/learning/trace-seed";

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

export interface SessionService {
  /** Who starts the agent's own work in sessions of this mode (issue #16: practice). */
  setModeLauncher(mode: LearnSession["entry_mode"], launcher: ModeLauncher): void;
  /** Where Learn From This reads a run's trace (set once the run service exists; §0B.6). */
  setSeedSources(sources: SeedSources): void;
  /** What a session seeded with this trace would start from; coded errors as for `create`, nothing written (Use as Example). */
  previewSeed(source: SourceTrace): Promise<TraceSeedSummary>;
  /** What the session was seeded with (Learn From This), or undefined. */
  seedOf(sessionId: string): Promise<TraceSeedSummary | undefined>;
  create(request: CreateLearnSessionRequest): Promise<CreateLearnSessionResponse>;
  list(page: number, pageSize: number): { sessions: LearnSession[]; total: number };
  get(sessionId: string): LearnSession;
  all(): LearnSession[];
  /** When the session entered its current state (§0C.16D TTLs count from here). */
  stateSince(sessionId: string): Date;
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
  /** §0A.12: the first meaningful observed event of an armed session starts the capture. */
  noteMeaningfulEvent(sessionId: string, eventId?: string): Promise<LearnSession>;
  observationScope(sessionId: string): ObservationScopeRuntime;
  boundaries(sessionId: string): Promise<WorkflowBoundary[]>;
  /** Removes a session and purges its observations at once (§0C.22 privacy rule 7). */
  remove(sessionId: string, source: BoundarySource): Promise<void>;
  /** Moves a terminal session out of the live log into `archived/sessions/` (§0C.16D); call inside `exclusive`. */
  archive(sessionId: string): Promise<void>;
  /** Rewrites `runtime/current.json` and `observation_scope_current.json` from the sessions. */
  refreshRuntimeViews(): Promise<void>;
  /** Counts what ingest did for a session's scope: data classes seen, events dropped as off-site. */
  recordIngest(sessionId: string, update: { dataClasses: readonly string[]; offTargetDropped: number }): Promise<void>;
  /** Sets the text-entry masking mode (§0C.22 rule 4); `none` is the user's recorded consent. */
  setRedaction(sessionId: string, textEntry: "mask_text" | "hash_only" | "none"): Promise<ObservationScopeRuntime>;
  /** Called with the current session after every change (the capture clients mirror it). */
  onCurrentChange(listener: (session: LearnSession | undefined, scope: ObservationScopeRuntime | undefined) => void): () => void;
  /** The session the runtime views describe right now. */
  current(): { session: LearnSession; scope: ObservationScopeRuntime | undefined } | undefined;
  /**
   * Moves a session through `path` (each hop checked against §0C.1A), applying `changes` and
   * writing one receipt and stream event per entry of `announcements`. Used by the proposal
   * service, which owns what happens after capture.
   */
  advance(
    sessionId: string,
    path: readonly LearnSessionState[],
    changes: Partial<Pick<LearnSession, "proposal_id" | "interpretation_id" | "validation_run_id" | "ability_id">>,
    announcements: ReadonlyArray<{ receipt: LearningReceiptKind; event?: LearnStreamEventKind; payload?: Record<string, unknown> }>,
  ): Promise<LearnSession>;
  /** Runs `fn` with every other session change held back (used by TTL enforcement). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
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
  await core.refreshRuntimeViews();
  return service;
}
