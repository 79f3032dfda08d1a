import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { WorkflowBoundary } from "../../../shared/learning/sessions/boundary";
import type { LearnSession, LearnSessionState } from "../../../shared/learning/sessions/learn-session";
import type { LearnStreamEventKind } from "../../../shared/learning/sessions/lifecycle-event";
import type { ObservationScopeRuntime } from "../../../shared/learning/sessions/observation-scope-runtime";
import type { LearningReceipt, LearningReceiptKind } from "../../../shared/learning/sessions/receipts";
import { validateTransition } from "../../../shared/learning/sessions/state-machine";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import type { BoundarySource, SessionServiceDeps, StateGuard } from "./session-service";
import { createLogViewKeeper } from "../../memory/log-view";
import { checkSession, loadSessions, readScope, sessionLogView, type SessionStateMarks } from "./session-load";
import { currentSessionId } from "./session-views";
import { announce, refreshRuntimeViews, writeBoundary, writeReceipt } from "./session-writes";

const EventIdOnlySchema = z.object({ event_id: z.string() }).passthrough();

type CurrentListener = (session: LearnSession | undefined, scope: ObservationScopeRuntime | undefined) => void;

/**
 * What every part of the session runtime shares: the sessions and scopes read from the log, the
 * one queue every change goes through, and the writes (session, boundary, receipt, views, stream
 * event) in the order a reader of the files relies on.
 */
export interface SessionCore {
  deps: SessionServiceDeps;
  newId: () => string;
  /** The live sessions; one the sessions view kept is parsed the first time it is read (issue 32). */
  sessions: Map<string, LearnSession>;
  /** Each live session's state, when it entered it (TTLs count from there, not from the last mark) and when it last changed. */
  states: Map<string, SessionStateMarks>;
  /** The session the runtime views describe (`currentSessionId`), the only one parsed to find it. */
  currentSession(): LearnSession | undefined;
  /** At the agent's stop: the sessions' current view brought up to date (issue 32). */
  settleView(): Promise<void>;
  /**
   * The observation scopes read so far (issue 32: a session's scope file is read the first time
   * the session needs it, not at start). Read a scope through `scopeOf`; this map is for `current()`,
   * which answers synchronously (the current session's scope is always in it, see `put`).
   */
  scopes: Map<string, ObservationScopeRuntime | undefined>;
  /** The session's observation scope, read from its file the first time it is needed. */
  scopeOf(sessionId: string): Promise<ObservationScopeRuntime | undefined>;
  /** A session's last ten receipt ids, read lazily from the receipts log. */
  receiptIds: Map<string, Promise<string[]>>;
  currentListeners: Set<CurrentListener>;
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  now(): Date;
  find(sessionId: string): LearnSession;
  assertTransition(session: LearnSession, to: LearnSessionState): void;
  assertUnchanged(session: LearnSession, guard: StateGuard | undefined): void;
  put(session: LearnSession): Promise<void>;
  withChanges(session: LearnSession, changes: Partial<LearnSession>): LearnSession;
  writeBoundary(
    session: LearnSession,
    kind: WorkflowBoundary["kind"],
    source: BoundarySource,
    extra?: { label?: string | undefined; source_event_id?: string | undefined },
  ): Promise<WorkflowBoundary>;
  writeReceipt(
    session: LearnSession,
    kind: LearningReceiptKind,
    extra?: { reason?: string | undefined; details?: Record<string, unknown> | undefined },
  ): Promise<LearningReceipt>;
  refreshRuntimeViews(): Promise<void>;
  putScope(scope: ObservationScopeRuntime): Promise<void>;
  /** Receipt, then views, then the live event: a subscriber never hears of a change the files lack. */
  announce(
    session: LearnSession,
    receiptKind: LearningReceiptKind,
    streamEvent: LearnStreamEventKind | undefined,
    extra?: { reason?: string | undefined; payload?: Record<string, unknown> },
  ): Promise<void>;
  /** The ids of a session's observed events. */
  countEvents(sessionId: string): Promise<string[]>;
}

/** Reads the sessions log, and returns the shared state and writes of the runtime (no session's own file: issue 32). */
export async function createSessionCore(deps: SessionServiceDeps): Promise<SessionCore> {
  const { sessions, states } = await loadSessions(deps);
  const scopes = new Map<string, ObservationScopeRuntime | undefined>();
  const view = createLogViewKeeper(deps.memory, sessionLogView, checkSession);
  let queue: Promise<unknown> = Promise.resolve();
  const now = () => deps.clock.now();
  const core: SessionCore = {
    deps,
    newId: deps.newId ?? randomUUID,
    sessions,
    states,
    currentSession: () => {
      const id = currentSessionId(states);
      return id === undefined ? undefined : sessions.get(id);
    },
    settleView: () => view.settle(),
    scopes,
    scopeOf: (sessionId) => readScope(deps, scopes, sessions, sessionId),
    receiptIds: new Map<string, Promise<string[]>>(),
    currentListeners: new Set<CurrentListener>(),
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      const result = queue.then(fn, fn);
      queue = result.catch(() => undefined);
      return result;
    },
    now,
    find: (sessionId) => find(sessions, sessionId),
    assertTransition,
    assertUnchanged: (session, guard) => assertUnchanged(states, session, guard),
    put: async (session) => {
      await put(core, session);
      // Issue 32: the log's current view is brought up to date every so many versions.
      await view.noteAppend();
    },
    withChanges: (session, changes) => ({ ...session, ...changes, updated_at: now().toISOString() }),
    writeBoundary: (...args) => writeBoundary(core, ...args),
    writeReceipt: (...args) => writeReceipt(core, ...args),
    refreshRuntimeViews: () => refreshRuntimeViews(core),
    putScope: (scope) => putScope(core, scope),
    announce: (...args) => announce(core, ...args),
    countEvents: async (sessionId) => (await deps.memory.readJsonl(MemoryPaths.observationEvents(sessionId), EventIdOnlySchema)).map((event) => event.event_id),
  };
  return core;
}

function find(sessions: Map<string, LearnSession>, sessionId: string): LearnSession {
  const session = sessions.get(sessionId);
  if (session === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `No learning session ${sessionId}.`);
  return session;
}

function assertTransition(session: LearnSession, to: LearnSessionState): void {
  if (!validateTransition(session.state, to)) {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A session that is ${session.state} cannot become ${to}.`);
  }
}

function assertUnchanged(states: ReadonlyMap<string, SessionStateMarks>, session: LearnSession, guard: StateGuard | undefined): void {
  if (guard === undefined) return;
  const since = states.get(session.learn_session_id)?.since ?? session.updated_at;
  if (session.state !== guard.state || since !== guard.since.toISOString()) {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", `The session changed to ${session.state} in the meantime; nothing was done.`);
  }
}

/**
 * Appends the session's new version and tracks when it entered its state. A session that changes
 * has its scope read (once), so the current session's scope is always at hand for `current()`.
 */
async function put(core: SessionCore, session: LearnSession): Promise<void> {
  if (core.sessions.has(session.learn_session_id)) await core.scopeOf(session.learn_session_id);
  await core.deps.memory.append(MemoryPaths.sessions, { op: "put", session });
  const previous = core.states.get(session.learn_session_id);
  const since = previous === undefined || previous.state !== session.state ? session.updated_at : previous.since;
  core.states.set(session.learn_session_id, { state: session.state, since, updatedAt: session.updated_at, createdAt: session.created_at });
  core.sessions.set(session.learn_session_id, session);
}

async function putScope(core: SessionCore, scope: ObservationScopeRuntime): Promise<void> {
  await core.deps.memory.writeJson(MemoryPaths.observationScope(scope.learn_session_id), scope);
  core.scopes.set(scope.learn_session_id, scope);
}
