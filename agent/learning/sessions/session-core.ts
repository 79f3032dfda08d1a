import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { WorkflowBoundary } from "../../../shared/learning/boundary";
import type { LearnSession, LearnSessionState } from "../../../shared/learning/learn-session";
import type { LearnStreamEventKind } from "../../../shared/learning/lifecycle-event";
import { ObservationScopeRuntimeSchema, type ObservationScopeRuntime } from "../../../shared/learning/observation-scope-runtime";
import { LearningReceiptSchema, type LearningReceipt, type LearningReceiptKind } from "../../../shared/learning/receipts";
import { validateTransition } from "../../../shared/learning/state-machine";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import type { BoundarySource, SessionServiceDeps, StateGuard } from "./session-service";
import { SessionLogRecordSchema } from "./session-log";
import { currentSession, runtimeSnapshotOf } from "./session-views";

const EventIdOnlySchema = z.object({ event_id: z.string() }).passthrough();

/** What folding `sessions.jsonl` needs of each line; the winning versions are then parsed in full. */
const SessionLogFoldSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("put"), session: z.object({ learn_session_id: z.string(), state: z.string(), updated_at: z.string() }).passthrough() }),
  z.object({ op: z.literal("delete"), learn_session_id: z.string() }),
]);

type CurrentListener = (session: LearnSession | undefined, scope: ObservationScopeRuntime | undefined) => void;

/**
 * What every part of the session runtime shares: the sessions and scopes read from the log, the
 * one queue every change goes through, and the writes (session, boundary, receipt, views, stream
 * event) in the order a reader of the files relies on.
 */
export interface SessionCore {
  deps: SessionServiceDeps;
  newId: () => string;
  sessions: Map<string, LearnSession>;
  /** When each session entered its current state: TTLs count from there, not from the last mark. */
  stateEnteredAt: Map<string, string>;
  scopes: Map<string, ObservationScopeRuntime>;
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

/** Reads the sessions log and the scopes, and returns the shared state and writes of the runtime. */
export async function createSessionCore(deps: SessionServiceDeps): Promise<SessionCore> {
  const newId = deps.newId ?? randomUUID;
  const sessions = new Map<string, LearnSession>();
  // When each session entered its current state: TTLs count from there, not from the last mark.
  const stateEnteredAt = new Map<string, string>();
  const track = (session: LearnSession) => {
    const previous = sessions.get(session.learn_session_id);
    if (previous === undefined || previous.state !== session.state) stateEnteredAt.set(session.learn_session_id, session.updated_at);
    sessions.set(session.learn_session_id, session);
  };
  // The log keeps every version of every session: it is folded on the fields the fold needs, and
  // only the version that wins (the last per id) is checked against the full schema.
  const latest = new Map<string, Extract<z.infer<typeof SessionLogFoldSchema>, { op: "put" }>["session"]>();
  // Folded as it is read (issue 17): the versions a session left behind die young.
  await deps.memory.forEachJsonl(MemoryPaths.sessions, SessionLogFoldSchema, (record) => {
    if (record.op === "put") {
      const previous = latest.get(record.session.learn_session_id);
      if (previous === undefined || previous.state !== record.session.state) stateEnteredAt.set(record.session.learn_session_id, record.session.updated_at);
      latest.set(record.session.learn_session_id, record.session);
    } else {
      latest.delete(record.learn_session_id);
      stateEnteredAt.delete(record.learn_session_id);
    }
  });
  for (const [id, session] of latest) {
    const parsed = SessionLogRecordSchema.safeParse({ op: "put", session });
    if (!parsed.success || parsed.data.op !== "put") {
      throw new AppError(
        "MEMORY_RECORD_CORRUPT",
        `A record in ${MemoryPaths.sessions} is not valid (the last version of session ${id} does not match its schema).`,
      );
    }
    sessions.set(id, parsed.data.session);
  }
  const scopes = new Map<string, ObservationScopeRuntime>();
  // One small file per session: read a few at a time rather than one after another.
  const ids = [...sessions.keys()];
  for (let start = 0; start < ids.length; start += 32) {
    await Promise.all(
      ids.slice(start, start + 32).map(async (id) => {
        const scope = await deps.memory.readJson(MemoryPaths.observationScope(id), ObservationScopeRuntimeSchema);
        if (scope !== undefined) scopes.set(id, scope);
      }),
    );
  }
  // A session's last ten receipt ids (the runtime view lists them), read from the receipts log the
  // first time that session needs them, not at start: the log holds every receipt ever written, so
  // it is read from its end, only as far back as those ten (issue 17).
  const receiptIds = new Map<string, Promise<string[]>>();
  const recentReceiptIds = (sessionId: string): Promise<string[]> => {
    let list = receiptIds.get(sessionId);
    if (list === undefined) {
      list = deps.memory
        .readJsonlLast(MemoryPaths.receipts, LearningReceiptSchema, sessionId, 10, (receipt) => receipt.learn_session_id === sessionId)
        .then((receipts) => receipts.map((receipt) => receipt.receipt_id));
      receiptIds.set(sessionId, list);
      list.catch(() => receiptIds.delete(sessionId));
    }
    return list;
  };

  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const result = queue.then(fn, fn);
    queue = result.catch(() => undefined);
    return result;
  };

  const now = () => deps.clock.now();
  const find = (sessionId: string): LearnSession => {
    const session = sessions.get(sessionId);
    if (session === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `No learning session ${sessionId}.`);
    return session;
  };
  const assertTransition = (session: LearnSession, to: LearnSessionState) => {
    if (!validateTransition(session.state, to)) {
      throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A session that is ${session.state} cannot become ${to}.`);
    }
  };

  const assertUnchanged = (session: LearnSession, guard: StateGuard | undefined) => {
    if (guard === undefined) return;
    const since = stateEnteredAt.get(session.learn_session_id) ?? session.updated_at;
    if (session.state !== guard.state || since !== guard.since.toISOString()) {
      throw new AppError("INVALID_LEARN_STATE_TRANSITION", `The session changed to ${session.state} in the meantime; nothing was done.`);
    }
  };

  const put = async (session: LearnSession) => {
    await deps.memory.append(MemoryPaths.sessions, { op: "put", session });
    track(session);
  };
  const withChanges = (session: LearnSession, changes: Partial<LearnSession>): LearnSession => ({
    ...session,
    ...changes,
    updated_at: now().toISOString(),
  });

  const writeBoundary = async (
    session: LearnSession,
    kind: WorkflowBoundary["kind"],
    source: BoundarySource,
    extra: { label?: string | undefined; source_event_id?: string | undefined } = {},
  ): Promise<WorkflowBoundary> => {
    const boundary: WorkflowBoundary = {
      boundary_id: newId(),
      learn_session_id: session.learn_session_id,
      kind,
      source,
      ...(extra.label === undefined ? {} : { label: extra.label }),
      ...(extra.source_event_id === undefined ? {} : { source_event_id: extra.source_event_id }),
      created_at: now().toISOString(),
      schema_version: 1,
    };
    await deps.memory.append(MemoryPaths.boundaries, boundary);
    return boundary;
  };

  const writeReceipt = async (
    session: LearnSession,
    kind: LearningReceiptKind,
    extra: { reason?: string | undefined; details?: Record<string, unknown> | undefined } = {},
  ): Promise<LearningReceipt> => {
    const receipt: LearningReceipt = {
      receipt_id: newId(),
      receipt_kind: kind,
      learn_session_id: session.learn_session_id,
      ...(session.proposal_id === undefined ? {} : { proposal_id: session.proposal_id }),
      ...(extra.reason === undefined ? {} : { reason: extra.reason }),
      ...(extra.details === undefined ? {} : { details: extra.details }),
      created_at: now().toISOString(),
      schema_version: 1,
    };
    // Known before the append, so the list read from the log never misses or repeats this receipt.
    const list = await recentReceiptIds(session.learn_session_id);
    await deps.memory.append(MemoryPaths.receipts, receipt);
    list.push(receipt.receipt_id);
    list.splice(0, Math.max(0, list.length - 10));
    return receipt;
  };

  const currentListeners = new Set<(session: LearnSession | undefined, scope: ObservationScopeRuntime | undefined) => void>();
  const refreshRuntimeViews = async () => {
    const current = currentSession(sessions.values());
    const notify = () => {
      for (const listener of currentListeners) listener(current, current === undefined ? undefined : scopes.get(current.learn_session_id));
    };
    try {
      await writeRuntimeViews(current);
    } finally {
      notify();
    }
  };
  const writeRuntimeViews = async (current: LearnSession | undefined) => {
    if (current === undefined) {
      await deps.memory.remove(MemoryPaths.runtimeCurrent);
      await deps.memory.remove(MemoryPaths.observationScopeCurrent);
      return;
    }
    const scope = scopes.get(current.learn_session_id);
    await deps.memory.writeJson(MemoryPaths.runtimeCurrent, runtimeSnapshotOf(current, scope, [...(await recentReceiptIds(current.learn_session_id))], now()));
    if (scope === undefined) await deps.memory.remove(MemoryPaths.observationScopeCurrent);
    else await deps.memory.writeJson(MemoryPaths.observationScopeCurrent, scope);
  };

  const putScope = async (scope: ObservationScopeRuntime) => {
    await deps.memory.writeJson(MemoryPaths.observationScope(scope.learn_session_id), scope);
    scopes.set(scope.learn_session_id, scope);
  };

  /** Receipt, then views, then the live event: a subscriber never hears of a change the files lack. */
  const announce = async (
    session: LearnSession,
    receiptKind: LearningReceiptKind,
    streamEvent: LearnStreamEventKind | undefined,
    extra: { reason?: string | undefined; payload?: Record<string, unknown> } = {},
  ) => {
    await writeReceipt(session, receiptKind, { reason: extra.reason });
    await refreshRuntimeViews();
    if (streamEvent !== undefined) {
      await deps.events.emit(session.learn_session_id, streamEvent, {
        state: session.state,
        ...(extra.reason === undefined ? {} : { reason: extra.reason }),
        ...extra.payload,
      });
    }
  };

  const countEvents = async (sessionId: string): Promise<string[]> =>
    (await deps.memory.readJsonl(MemoryPaths.observationEvents(sessionId), EventIdOnlySchema)).map((event) => event.event_id);

  return {
    deps,
    newId,
    sessions,
    stateEnteredAt,
    scopes,
    receiptIds,
    currentListeners,
    exclusive,
    now,
    find,
    assertTransition,
    assertUnchanged,
    put,
    withChanges,
    writeBoundary,
    writeReceipt,
    refreshRuntimeViews,
    putScope,
    announce,
    countEvents,
  };
}
