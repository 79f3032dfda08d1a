import { randomUUID } from "node:crypto";
import { z } from "zod";
import { WorkflowBoundarySchema, type WorkflowBoundary } from "../../shared/learning/boundary";
import type { CreateLearnSessionRequest, CreateLearnSessionResponse } from "../../shared/learning/create-learn-session";
import {
  isLearnSessionInProgress,
  isTerminalLearnSessionState,
  LearnSessionStateSchema,
  type LearnSession,
  type LearnSessionState,
  type LearningEntryMode,
} from "../../shared/learning/learn-session";
import type { LearnStreamEventKind } from "../../shared/learning/lifecycle-event";
import { OBSERVATION_ADAPTER_PHASES, type ObservationAdapterKind } from "../../shared/learning/observation-adapter";
import { ObservationScopeRuntimeSchema, type ObservationScopeRuntime } from "../../shared/learning/observation-scope-runtime";
import { LearningAnswerSchema, LearningQuestionSchema } from "../../shared/learning/proposal";
import { LearningReceiptSchema, type LearningReceipt, type LearningReceiptKind } from "../../shared/learning/receipts";
import type {
  AnswerQuestionsRequest,
  AnswerQuestionsResponse,
  MarkGoalRequest,
  MarkStepRequest,
  StartSessionResponse,
  StopSessionResponse,
  TrimRequest,
} from "../../shared/learning/route-contracts";
import type { StartSessionRequest } from "../../shared/learning/session-requests";
import { validateTransition } from "../../shared/learning/state-machine";
import type { TestPolicy } from "../../shared/learning/test-policy";
import type { Clock } from "../clock";
import { AppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { watchesThisComputer } from "../../shared/observation/desktop-detail";
import { DESKTOP_PHASE_1_KINDS, PHASE_1_ALTERNATIVE, type AdapterRegistry } from "../observation/adapter-registry";
import type { LearnEventLog } from "./learn-event-log";
import { SessionLogRecordSchema } from "./session-log";
import { currentSession, runtimeSnapshotOf } from "./session-views";

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

/** §0C.2 / §0C.3: the panel layout and first step that fit each entry mode. */
const ENTRY_MODE_UI: Record<LearningEntryMode, Pick<CreateLearnSessionResponse, "ui_mode" | "next_action">> = {
  demonstrating_skill: { ui_mode: "overlay", next_action: "wait_for_first_meaningful_event" },
  coaching_agent: { ui_mode: "drawer", next_action: "wait_for_first_meaningful_event" },
  autonomous_agent_practice: { ui_mode: "exploratory", next_action: "launch_exploration" },
  improving_existing_skill: { ui_mode: "drawer", next_action: "show_skill_delta_editor" },
  import_skill: { ui_mode: "import", next_action: "show_import_configurator" },
};

/** The adapters of the browser extension. */
const BROWSER_KINDS: readonly ObservationAdapterKind[] = ["browser_dom", "browser_snapshot"];

/** App families that mean "a web page in the browser" (the browser extension observes them). */
const WEB_FAMILIES = new Set(["browser", "web", "chrome", "chromium"]);

/** States in which capture has already ended, so Stop answers CAPTURE_ALREADY_STOPPED (§0C.28). */
const CAPTURE_ENDED: ReadonlySet<LearnSessionState> = new Set(
  LearnSessionStateSchema.options.filter((state) => !["idle", "armed", "capturing", "paused"].includes(state)),
);

/** States in which trims and exclusions still shape what a proposal will be built from. */
const TRIMMABLE: ReadonlySet<LearnSessionState> = new Set(["capturing", "paused", "stopped", "reviewing", "awaiting_questions"]);

const EventIdOnlySchema = z.object({ event_id: z.string() }).passthrough();

/** What folding `sessions.jsonl` needs of each line; the winning versions are then parsed in full. */
const SessionLogFoldSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("put"), session: z.object({ learn_session_id: z.string(), state: z.string(), updated_at: z.string() }).passthrough() }),
  z.object({ op: z.literal("delete"), learn_session_id: z.string() }),
]);

function isWebTarget(session: LearnSession): boolean {
  if (session.target_app_family !== undefined) return WEB_FAMILIES.has(session.target_app_family.toLowerCase());
  // No family given: an allow-list of sites (host names or origins) means the browser.
  return session.target_app_whitelist.length > 0 && session.target_app_whitelist.every((entry) => /^(https?:\/\/)?[\w.*-]+(:\d+)?\/?$/i.test(entry));
}

export interface SessionService {
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
  for (const record of await deps.memory.readJsonl(MemoryPaths.sessions, SessionLogFoldSchema)) {
    if (record.op === "put") {
      const previous = latest.get(record.session.learn_session_id);
      if (previous === undefined || previous.state !== record.session.state) stateEnteredAt.set(record.session.learn_session_id, record.session.updated_at);
      latest.set(record.session.learn_session_id, record.session);
    } else {
      latest.delete(record.learn_session_id);
      stateEnteredAt.delete(record.learn_session_id);
    }
  }
  for (const [id, session] of latest) {
    const parsed = SessionLogRecordSchema.safeParse({ op: "put", session });
    if (!parsed.success || parsed.data.op !== "put") {
      throw new AppError("MEMORY_RECORD_CORRUPT", `A record in ${MemoryPaths.sessions} is not valid (the last version of session ${id} does not match its schema).`);
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
  // first time that session needs them, not at start: the log holds every receipt ever written.
  const receiptIds = new Map<string, Promise<string[]>>();
  const recentReceiptIds = (sessionId: string): Promise<string[]> => {
    let list = receiptIds.get(sessionId);
    if (list === undefined) {
      list = deps.memory
        .readJsonlContaining(MemoryPaths.receipts, LearningReceiptSchema, sessionId)
        .then((receipts) => receipts.filter((receipt) => receipt.learn_session_id === sessionId).map((receipt) => receipt.receipt_id).slice(-10));
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
    await deps.memory.writeJson(
      MemoryPaths.runtimeCurrent,
      runtimeSnapshotOf(current, scope, [...(await recentReceiptIds(current.learn_session_id))], now()),
    );
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

  const beginCapture = async (session: LearnSession, eventId: string | undefined): Promise<LearnSession> => {
    assertTransition(session, "capturing");
    const next = withChanges(session, { state: "capturing" });
    await put(next);
    await announce(next, "learn.capture.started", "learn.capture.started", {
      payload: { adapter_count: scopes.get(session.learn_session_id)?.adapters_active.length ?? 0, ...(eventId ? { first_event_id: eventId } : {}) },
    });
    return next;
  };

  const checkAdapters = (session: LearnSession, requested: readonly ObservationAdapterKind[]): ObservationAdapterKind[] => {
    for (const kind of requested) {
      const phase = OBSERVATION_ADAPTER_PHASES[kind];
      if (phase !== "phase_1") {
        throw new AppError(
          "ADAPTER_UNAVAILABLE",
          `The ${kind} adapter (${phase.replace("_", " ")}) is not available yet; capture with ${PHASE_1_ALTERNATIVE[kind]} instead.`,
        );
      }
    }
    if (session.observation_mode !== "outside_agent" && session.observation_mode !== "mixed") return [];
    const needed: readonly ObservationAdapterKind[] = isWebTarget(session) ? BROWSER_KINDS : DESKTOP_PHASE_1_KINDS;
    const healthy = deps.adapters.healthyOf(needed);
    for (const kind of requested) {
      if (!healthy.some((status) => status.kind === kind)) {
        throw new AppError("ADAPTER_UNAVAILABLE", `The ${kind} adapter is not connected; start it, then press Start again.`);
      }
    }
    if (healthy.length === 0) {
      throw new AppError(
        "ADAPTER_UNAVAILABLE",
        isWebTarget(session)
          ? "No browser extension is connected to observe these sites; open the extension and pair it, then press Start again."
          : "No desktop observation adapter is connected for this app; start one, then press Start again.",
      );
    }
    // "This computer" and sites together: the sites need the extension as well.
    const alongside = watchesThisComputer(session) && session.target_app_whitelist.length > 0 ? deps.adapters.healthyOf(BROWSER_KINDS) : [];
    if (watchesThisComputer(session) && session.target_app_whitelist.length > 0 && alongside.length === 0) {
      throw new AppError("ADAPTER_UNAVAILABLE", "No browser extension is connected to observe the sites; open the extension and pair it, then press Start again.");
    }
    return [...new Set([...healthy, ...alongside].map((status) => status.kind))].sort();
  };

  const service: SessionService = {
    exclusive,
    refreshRuntimeViews: () => exclusive(refreshRuntimeViews),

    advance: (sessionId, path, changes, announcements) =>
      exclusive(async () => {
        const session = find(sessionId);
        let from = session.state;
        for (const to of path) {
          if (!validateTransition(from, to)) {
            throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A session that is ${from} cannot become ${to}.`);
          }
          from = to;
        }
        const next = withChanges(session, { ...changes, state: from });
        await put(next);
        for (const announcement of announcements) {
          await writeReceipt(next, announcement.receipt, { details: announcement.payload });
          if (announcement.event !== undefined) {
            await deps.events.emit(sessionId, announcement.event, { state: next.state, ...announcement.payload });
          }
        }
        await refreshRuntimeViews();
        return next;
      }),

    recordIngest: (sessionId, update) =>
      exclusive(async () => {
        const scope = scopes.get(sessionId);
        if (scope === undefined) return;
        const dataClasses = [...new Set([...scope.data_classes_observed, ...update.dataClasses])].sort();
        if (update.offTargetDropped === 0 && dataClasses.length === scope.data_classes_observed.length) return;
        await putScope({
          ...scope,
          data_classes_observed: dataClasses,
          off_target_events_dropped: scope.off_target_events_dropped + update.offTargetDropped,
        });
        await refreshRuntimeViews();
      }),

    setRedaction: (sessionId, textEntry) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (!["idle", "armed", "capturing", "paused"].includes(session.state)) {
          throw new AppError("INVALID_LEARN_STATE_TRANSITION", `Masking is chosen before capture ends, not when ${session.state}.`);
        }
        const scope = scopes.get(sessionId);
        if (scope === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `No observation scope for session ${sessionId}.`);
        const next = { ...scope, redaction_modes: { ...scope.redaction_modes, text_entry: textEntry } };
        await putScope(next);
        await writeReceipt(session, "learn.capture.redaction_set", {
          details: { text_entry: textEntry, ...(textEntry === "none" ? { consent: "user consented to record typed text for this session" } : {}) },
        });
        await refreshRuntimeViews();
        return next;
      }),

    onCurrentChange(listener) {
      currentListeners.add(listener);
      return () => currentListeners.delete(listener);
    },

    current() {
      const session = currentSession(sessions.values());
      return session === undefined ? undefined : { session, scope: scopes.get(session.learn_session_id) };
    },

    create: (request) =>
      exclusive(async () => {
        const active = [...sessions.values()].find((session) => isLearnSessionInProgress(session.state));
        if (active !== undefined) {
          throw new AppError("LEARN_SESSION_ALREADY_ACTIVE", "Another learning session is still open; cancel or finish it first.", {
            activeSessionId: active.learn_session_id,
          });
        }
        if (request.entry_mode === "improving_existing_skill" && request.target_skill_id === undefined) {
          throw new AppError("REQUEST_INVALID", "Improving an existing skill needs target_skill_id: the skill to improve.", {
            issues: [{ path: "body/target_skill_id", message: "required for improving_existing_skill" }],
          });
        }
        const at = now().toISOString();
        const session: LearnSession = {
          learn_session_id: newId(),
          entry_mode: request.entry_mode,
          observation_mode: request.observation_mode,
          build_policy: request.build_policy,
          execution_mode: request.execution_mode,
          target_kind: request.target_kind,
          state: "idle",
          actor_mode: "mixed",
          ...(request.project_id === undefined ? {} : { project_id: request.project_id }),
          ...(request.room_id === undefined ? {} : { room_id: request.room_id }),
          ...(request.target_skill_id === undefined ? {} : { target_skill_id: request.target_skill_id }),
          ...(request.target_app_family === undefined ? {} : { target_app_family: request.target_app_family }),
          target_app_whitelist: [...new Set(request.target_app_whitelist.map((entry) => entry.trim().toLowerCase()))],
          active_trace_ids: [],
          active_observation_batch_ids: [],
          created_at: at,
          updated_at: at,
          schema_version: 1,
        };
        // A session made just now has no receipts in the log: nothing to look for there.
        receiptIds.set(session.learn_session_id, Promise.resolve([]));
        await put(session);
        await putScope({
          learn_session_id: session.learn_session_id,
          adapters_active: [],
          data_classes_observed: [],
          redaction_modes: { text_entry: "mask_text" },
          scope: session.observation_mode,
          target_app_whitelist: session.target_app_whitelist,
          off_target_events_dropped: 0,
          started_at: at,
          schema_version: 1,
        });
        await announce(session, "learn.session.started", "learn.session.started", { payload: { entry_mode: session.entry_mode } });
        return { session, ...ENTRY_MODE_UI[session.entry_mode] };
      }),

    list(page, pageSize) {
      const ordered = [...sessions.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
      return { sessions: ordered.slice((page - 1) * pageSize, page * pageSize), total: ordered.length };
    },
    get: find,
    all: () => [...sessions.values()],
    stateSince: (sessionId) => new Date(stateEnteredAt.get(find(sessionId).learn_session_id) ?? find(sessionId).updated_at),

    start: (sessionId, request, source) =>
      exclusive(async () => {
        const session = find(sessionId);
        assertTransition(session, "armed");
        const adapters = checkAdapters(session, request.adapters_requested);
        const boundary = await writeBoundary(session, "start", source);
        const next = withChanges(session, { state: "armed", start_boundary_ref: `boundary:${boundary.boundary_id}` });
        await put(next);
        const scope = scopes.get(sessionId);
        if (scope !== undefined) await putScope({ ...scope, adapters_active: adapters, started_at: next.updated_at });
        await announce(next, "learn.capture.armed", "learn.capture.armed", { payload: { adapters_armed: adapters } });
        return { session: next, observation_active: adapters.length > 0, adapters_armed: adapters };
      }),

    pause: (sessionId, source, reason, unchangedSince) =>
      exclusive(async () => {
        const session = find(sessionId);
        assertUnchanged(session, unchangedSince);
        assertTransition(session, "paused");
        await writeBoundary(session, "pause", source);
        const next = withChanges(session, { state: "paused" });
        await put(next);
        await announce(next, "learn.capture.paused", "learn.capture.paused", { reason });
        return next;
      }),

    resume: (sessionId, source) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (session.state !== "paused") {
          throw new AppError("INVALID_LEARN_STATE_TRANSITION", `Only a paused session can resume; this one is ${session.state}.`);
        }
        await writeBoundary(session, "resume", source);
        const next = withChanges(session, { state: "capturing" });
        await put(next);
        await announce(next, "learn.capture.resumed", "learn.capture.resumed");
        return next;
      }),

    stop: (sessionId, source) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (session.state !== "capturing" && session.state !== "paused") {
          if (CAPTURE_ENDED.has(session.state)) {
            throw new AppError("CAPTURE_ALREADY_STOPPED", "Capture has already stopped for this session; refresh to see its state.");
          }
          assertTransition(session, "stopped");
        }
        const boundary = await writeBoundary(session, "stop", source);
        const next = withChanges(session, { state: "stopped", stop_boundary_ref: `boundary:${boundary.boundary_id}` });
        await put(next);
        const eventIds = await countEvents(sessionId);
        await announce(next, "learn.capture.stopped", "learn.capture.stopped", { payload: { captured_event_count: eventIds.length } });
        return {
          session: next,
          captured_event_count: eventIds.length,
          captured_trace_ids: next.active_trace_ids,
          next_action: eventIds.length > 0 ? "review_captured" : "cancel",
        };
      }),

    cancel: (sessionId, source, reason, unchangedSince) =>
      exclusive(async () => {
        const session = find(sessionId);
        assertUnchanged(session, unchangedSince);
        assertTransition(session, "cancelled");
        await writeBoundary(session, "cancel", source, { label: reason });
        const next = withChanges(session, { state: "cancelled" });
        await put(next);
        await announce(next, "learn.session.cancelled", "learn.session.cancelled", { reason });
        return next;
      }),

    markGoal: (sessionId, request, source) =>
      exclusive(async () => {
        let session = find(sessionId);
        if (session.state === "armed") session = await beginCapture(session, request.at_event_id);
        if (session.state !== "capturing" && session.state !== "paused") {
          throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A goal can be marked while capturing, not when ${session.state}.`);
        }
        await writeBoundary(session, "mark_goal", source, { label: request.goal_description, source_event_id: request.at_event_id });
        const next = withChanges(session, {});
        await put(next);
        await refreshRuntimeViews();
        return next;
      }),

    markStep: (sessionId, request, source) =>
      exclusive(async () => {
        let session = find(sessionId);
        if (session.state === "armed") session = await beginCapture(session, request.at_event_id);
        if (session.state !== "capturing" && session.state !== "paused") {
          throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A step can be marked while capturing, not when ${session.state}.`);
        }
        await writeBoundary(session, "mark_step", source, {
          label: `${request.step_kind_hint}: ${request.step_label}`.slice(0, 400),
          source_event_id: request.at_event_id,
        });
        const next = withChanges(session, {});
        await put(next);
        await refreshRuntimeViews();
        return next;
      }),

    trim: (sessionId, request, source) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (!TRIMMABLE.has(session.state)) {
          throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A session that is ${session.state} can no longer be trimmed.`);
        }
        const eventIds = await countEvents(sessionId);
        if (!eventIds.includes(request.to_event_id)) {
          throw new AppError("REQUEST_INVALID", "to_event_id is not an observed event of this session.", {
            issues: [{ path: "body/to_event_id", message: "not an event of this session" }],
          });
        }
        await writeBoundary(session, request.trim_kind, source, { source_event_id: request.to_event_id });
        const ref = `event:${request.to_event_id}`;
        const next = withChanges(session, request.trim_kind === "trim_start" ? { start_boundary_ref: ref } : { stop_boundary_ref: ref });
        await put(next);
        await refreshRuntimeViews();
        return next;
      }),

    setTestPolicy: (sessionId, policy) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (isTerminalLearnSessionState(session.state)) {
          throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A ${session.state} session takes no test policy.`);
        }
        await deps.memory.append(MemoryPaths.testPolicies, {
          learn_session_id: sessionId,
          test_policy: policy,
          created_at: now().toISOString(),
        });
        const next = withChanges(session, { test_policy_ref: `test_policy:${policy.policy_id}` });
        await put(next);
        await refreshRuntimeViews();
        return next;
      }),

    answerQuestions: (sessionId, request) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (session.state !== "awaiting_questions") {
          throw new AppError("INVALID_LEARN_STATE_TRANSITION", `Questions are answered while awaiting questions, not when ${session.state}.`);
        }
        const proposalId = session.proposal_id;
        const questions = (await deps.memory.readJsonl(MemoryPaths.questions, LearningQuestionSchema)).filter(
          (question) => question.proposal_id === proposalId,
        );
        const unknown = request.answers.filter((answer) => !questions.some((question) => question.question_id === answer.question_id));
        if (proposalId === undefined || unknown.length > 0) {
          throw new AppError("REQUEST_INVALID", "Some answers are for questions this session was not asked.", {
            issues: unknown.slice(0, 20).map((answer) => ({ path: "body/answers", message: `unknown question ${answer.question_id}`.slice(0, 240) })),
          });
        }
        const at = now().toISOString();
        await deps.memory.appendMany(
          MemoryPaths.answers,
          request.answers.map((answer) =>
            LearningAnswerSchema.parse({
              question_id: answer.question_id,
              proposal_id: proposalId,
              answer: answer.answer_text,
              created_at: at,
              schema_version: 1,
            }),
          ),
        );
        const answered = new Set(
          (await deps.memory.readJsonl(MemoryPaths.answers, LearningAnswerSchema))
            .filter((answer) => answer.proposal_id === proposalId)
            .map((answer) => answer.question_id),
        );
        const remaining = questions.filter((question) => question.required && !answered.has(question.question_id)).length;
        await writeReceipt(session, "learn.proposal.questions_answered", { details: { answered: request.answers.length, remaining } });
        await refreshRuntimeViews();
        return { session, remaining_questions: remaining, next_action: remaining > 0 ? "more_questions" : "generate_proposal" };
      }),

    noteMeaningfulEvent: (sessionId, eventId) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (session.state !== "armed") return session;
        return beginCapture(session, eventId);
      }),

    observationScope(sessionId) {
      find(sessionId);
      const scope = scopes.get(sessionId);
      if (scope === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `No observation scope for session ${sessionId}.`);
      return scope;
    },

    async boundaries(sessionId) {
      find(sessionId);
      return (await deps.memory.readJsonl(MemoryPaths.boundaries, WorkflowBoundarySchema)).filter(
        (boundary) => boundary.learn_session_id === sessionId,
      );
    },

    remove: (sessionId, source) =>
      exclusive(async () => {
        let session = find(sessionId);
        if (!isTerminalLearnSessionState(session.state)) {
          assertTransition(session, "cancelled");
          await writeBoundary(session, "cancel", source, { label: "deleted by the user" });
          session = withChanges(session, { state: "cancelled" });
          await put(session);
          await announce(session, "learn.session.cancelled", "learn.session.cancelled", { reason: "deleted" });
        }
        await deps.memory.remove(MemoryPaths.observationFolder(sessionId));
        await deps.memory.append(MemoryPaths.sessions, { op: "delete", learn_session_id: sessionId, deleted_at: now().toISOString() });
        sessions.delete(sessionId);
        stateEnteredAt.delete(sessionId);
        scopes.delete(sessionId);
        await deps.memory.remove(MemoryPaths.observationScope(sessionId));
        deps.events.forget(sessionId);
        await refreshRuntimeViews();
      }),

    archive: async (sessionId) => {
      const session = find(sessionId);
      if (!isTerminalLearnSessionState(session.state)) {
        throw new AppError("INVALID_LEARN_STATE_TRANSITION", "Only a finished session can be archived.");
      }
      await deps.memory.writeJson(MemoryPaths.archivedSession(sessionId), { session, scope: scopes.get(sessionId) ?? null, archived_at: now().toISOString() });
      await deps.memory.append(MemoryPaths.sessions, { op: "delete", learn_session_id: sessionId, deleted_at: now().toISOString() });
      sessions.delete(sessionId);
      stateEnteredAt.delete(sessionId);
      scopes.delete(sessionId);
      await deps.memory.remove(MemoryPaths.observationScope(sessionId));
      await refreshRuntimeViews();
    },
  };

  await refreshRuntimeViews();
  return service;
}
