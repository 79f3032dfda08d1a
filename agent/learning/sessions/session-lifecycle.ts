import { isTerminalLearnSessionState, LearnSessionStateSchema, type LearnSessionState } from "../../../shared/learning/learn-session";
import { LearningAnswerSchema, LearningQuestionSchema } from "../../../shared/learning/proposal";
import { validateTransition } from "../../../shared/learning/state-machine";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import type { SessionCore } from "./session-core";
import { checkAdapters } from "./session-scope";
import type { SessionService } from "./session-service";
import { currentSession } from "./session-views";

/** States in which capture has already ended, so Stop answers CAPTURE_ALREADY_STOPPED (§0C.28). */
const CAPTURE_ENDED: ReadonlySet<LearnSessionState> = new Set(
  LearnSessionStateSchema.options.filter((state) => !["idle", "armed", "capturing", "paused"].includes(state)),
);

/** A session's life after creation (§0C.1A): start, pause, resume, stop, cancel, advance, answers, removal and archive. */
export function createLifecycleOperations(
  core: SessionCore,
): Pick<
  SessionService,
  | "advance"
  | "onCurrentChange"
  | "current"
  | "list"
  | "get"
  | "all"
  | "stateSince"
  | "start"
  | "pause"
  | "resume"
  | "stop"
  | "cancel"
  | "answerQuestions"
  | "remove"
  | "archive"
> {
  const {
    deps,
    sessions,
    stateEnteredAt,
    scopes,
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
  } = core;
  return {
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

    onCurrentChange(listener) {
      currentListeners.add(listener);
      return () => currentListeners.delete(listener);
    },

    current() {
      const session = currentSession(sessions.values());
      return session === undefined ? undefined : { session, scope: scopes.get(session.learn_session_id) };
    },

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
        const adapters = checkAdapters(deps.adapters, session, request.adapters_requested);
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
}
