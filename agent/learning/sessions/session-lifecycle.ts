import { isTerminalLearnSessionState } from "../../../shared/learning/sessions/learn-session";
import { LearningAnswerSchema, LearningQuestionSchema } from "../../../shared/learning/proposals/learning-questions";
import { validateTransition } from "../../../shared/learning/sessions/state-machine";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import { createCaptureOperations } from "./session-capture";
import type { SessionCore } from "./session-core";
import type { SessionService } from "./session-service";

type LifecycleOperations = Pick<
  SessionService,
  | "advance"
  | "onCurrentChange"
  | "current"
  | "list"
  | "get"
  | "all"
  | "states"
  | "stateSince"
  | "start"
  | "pause"
  | "resume"
  | "stop"
  | "cancel"
  | "answerQuestions"
  | "remove"
  | "archive"
>;

/**
 * A session's life after creation (§0C.1A): start, pause, resume, stop, cancel (`session-capture.ts`),
 * advance, answers, removal and archive.
 */
export function createLifecycleOperations(core: SessionCore): LifecycleOperations {
  const { sessions, states, scopes, currentListeners, exclusive, find } = core;
  return {
    advance: (...args) => exclusive(() => advance(core, ...args)),

    onCurrentChange(listener) {
      currentListeners.add(listener);
      return () => currentListeners.delete(listener);
    },

    current() {
      const session = core.currentSession();
      return session === undefined ? undefined : { session, scope: scopes.get(session.learn_session_id) };
    },

    // Newest first, ordered by the sessions' marks: only the page's sessions are read (issue 32).
    list(page, pageSize) {
      const ordered = [...states].sort(([, a], [, b]) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
      const onPage = ordered.slice((page - 1) * pageSize, page * pageSize).map(([id]) => find(id));
      return { sessions: onPage, total: ordered.length };
    },

    get: find,

    all: () => [...sessions.values()],

    states: () => [...states].map(([id, { state }]) => ({ learn_session_id: id, state })),

    stateSince: (sessionId) => new Date(states.get(sessionId)?.since ?? find(sessionId).updated_at),

    ...createCaptureOperations(core),

    answerQuestions: (...args) => exclusive(() => answerQuestions(core, ...args)),

    remove: (...args) => exclusive(() => remove(core, ...args)),

    archive: (sessionId) => archive(core, sessionId),
  };
}

async function advance(
  core: SessionCore,
  ...[sessionId, path, changes, announcements]: Parameters<LifecycleOperations["advance"]>
): ReturnType<LifecycleOperations["advance"]> {
  const { deps, find, put, withChanges, writeReceipt, refreshRuntimeViews } = core;
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
}

async function answerQuestions(
  core: SessionCore,
  ...[sessionId, request]: Parameters<LifecycleOperations["answerQuestions"]>
): ReturnType<LifecycleOperations["answerQuestions"]> {
  const { deps, now, find, writeReceipt, refreshRuntimeViews } = core;
  const session = find(sessionId);
  if (session.state !== "awaiting_questions") {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", `Questions are answered while awaiting questions, not when ${session.state}.`);
  }
  const proposalId = session.proposal_id;
  const questions = (await deps.memory.readJsonl(MemoryPaths.questions, LearningQuestionSchema)).filter((question) => question.proposal_id === proposalId);
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
}

async function remove(core: SessionCore, ...[sessionId, source]: Parameters<LifecycleOperations["remove"]>): Promise<void> {
  const { deps, sessions, states, scopes, now, find, assertTransition, put, withChanges, writeBoundary, refreshRuntimeViews, announce } = core;
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
  states.delete(sessionId);
  scopes.delete(sessionId);
  await deps.memory.remove(MemoryPaths.observationScope(sessionId));
  deps.events.forget(sessionId);
  await refreshRuntimeViews();
}

async function archive(core: SessionCore, sessionId: string): Promise<void> {
  const { deps, sessions, states, scopes, now, find, refreshRuntimeViews } = core;
  const session = find(sessionId);
  if (!isTerminalLearnSessionState(session.state)) {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", "Only a finished session can be archived.");
  }
  await deps.memory.writeJson(MemoryPaths.archivedSession(sessionId), {
    session,
    scope: (await core.scopeOf(sessionId)) ?? null,
    archived_at: now().toISOString(),
  });
  await deps.memory.append(MemoryPaths.sessions, { op: "delete", learn_session_id: sessionId, deleted_at: now().toISOString() });
  sessions.delete(sessionId);
  states.delete(sessionId);
  scopes.delete(sessionId);
  await deps.memory.remove(MemoryPaths.observationScope(sessionId));
  await refreshRuntimeViews();
}
