import { z } from "zod";
import { LearnSessionStateSchema, type LearnSession, type LearnSessionState } from "../../../shared/learning/sessions/learn-session";
import { ObservationScopeRuntimeSchema, type ObservationScopeRuntime } from "../../../shared/learning/sessions/observation-scope-runtime";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import type { SessionServiceDeps } from "./session-service";
import { loadLogView, type LogViewSpec } from "../../memory/log-view";
import { SessionLogRecordSchema } from "./session-log";

/** What folding `sessions.jsonl` needs of each line; the winning versions are then parsed in full. */
const SessionLogFoldSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("put"), session: z.object({ learn_session_id: z.string(), state: z.string(), updated_at: z.string() }).passthrough() }),
  z.object({ op: z.literal("delete"), learn_session_id: z.string() }),
]);
type SessionLogFoldLine = z.infer<typeof SessionLogFoldSchema>;
type FoldedSession = Extract<SessionLogFoldLine, { op: "put" }>["session"];

/**
 * Issue 32: `sessions.jsonl` read through its current view (`sessions_current.json`, agent/memory/log-view.ts):
 * each live session's last version, up to a byte of the log, marked in the view's index with when it
 * entered its current state (TTLs count from there, not from the last mark), that state, when it
 * last changed and when it was created: what start-up and the sessions list need of every session,
 * without parsing one.
 */
export const sessionLogView: LogViewSpec<SessionLogFoldLine> = {
  log: MemoryPaths.sessions,
  view: MemoryPaths.sessionsCurrent,
  line: SessionLogFoldSchema,
  change: (line) => (line.op === "put" ? { id: line.session.learn_session_id, put: true, record: line.session } : { id: line.learn_session_id, put: false }),
  marks: (previous, record) => {
    const session = record as FoldedSession;
    // The state before, from its marks (a view of format 1 kept only the first: then from its record).
    const before = previous === undefined ? undefined : (previous.marks[1] ?? (previous.record as FoldedSession).state);
    const since = before === session.state ? (previous?.marks[0] ?? session.updated_at) : session.updated_at;
    // The fold does not check created_at (an older version may lack it); the winning version's is checked with it.
    return [since, session.state, session.updated_at, typeof session.created_at === "string" ? session.created_at : ""];
  },
};

/** A live session's state, when it entered it, last changed and was created (the sessions view's marks): the current-session rule, TTLs and the list's order need no more. */
export interface SessionStateMarks {
  state: LearnSessionState;
  since: string;
  updatedAt: string;
  createdAt: string;
}

/** The winning version of a session, parsed in full; a version that does not match stops the agent. */
export function checkSession(id: string, record: unknown): LearnSession {
  const parsed = SessionLogRecordSchema.safeParse({ op: "put", session: record });
  if (!parsed.success || parsed.data.op !== "put") {
    throw new AppError(
      "MEMORY_RECORD_CORRUPT",
      `A record in ${MemoryPaths.sessions} is not valid (the last version of session ${id} does not match its schema).`,
    );
  }
  return parsed.data.session;
}

const SESSION_STATES: ReadonlySet<string> = new Set(LearnSessionStateSchema.options);
/** A mark naming one of the schema's states (a set lookup: a safeParse per session cost more, and a failed one far more). */
const isSessionState = (mark: string | undefined): mark is LearnSessionState => mark !== undefined && SESSION_STATES.has(mark);

/**
 * The live sessions and each one's state marks. The log keeps every version of every session;
 * start-up reads its view and the lines the log gained since, and only the versions that came from
 * those lines are checked against the full schema then; a session the view file kept is parsed and
 * checked the first time it is read (issue 32: start-up reads none, its marks are in the view's index).
 */
export async function loadSessions(deps: SessionServiceDeps): Promise<{ sessions: Map<string, LearnSession>; states: Map<string, SessionStateMarks> }> {
  const { records: sessions, marks } = await loadLogView(deps.memory, sessionLogView, checkSession);
  const states = new Map<string, SessionStateMarks>();
  for (const id of sessions.keys()) {
    const [since, state, updatedAt, createdAt] = marks.get(id) ?? [];
    if (since !== undefined && isSessionState(state) && updatedAt !== undefined && createdAt !== undefined) {
      states.set(id, { state, since, updatedAt, createdAt });
      continue;
    }
    // Marks missing or not a state: the session itself says (read now).
    const session = sessions.get(id) as LearnSession;
    states.set(id, { state: session.state, since: since ?? session.updated_at, updatedAt: session.updated_at, createdAt: session.created_at });
  }
  return { sessions, states };
}

/**
 * One session's observation scope, read from its file the first time it is asked for and kept
 * (issue 32: start-up reads no session's file; a memory of 1,000 sessions has 1,000 of them). A
 * scope written meanwhile (`putScope`) wins over the file read before it, and a session removed
 * meanwhile is not remembered.
 */
export async function readScope(
  deps: SessionServiceDeps,
  scopes: Map<string, ObservationScopeRuntime | undefined>,
  sessions: ReadonlyMap<string, LearnSession>,
  sessionId: string,
): Promise<ObservationScopeRuntime | undefined> {
  if (scopes.has(sessionId)) return scopes.get(sessionId);
  const scope = await deps.memory.readJson(MemoryPaths.observationScope(sessionId), ObservationScopeRuntimeSchema);
  if (!scopes.has(sessionId) && sessions.has(sessionId)) scopes.set(sessionId, scope);
  return scopes.has(sessionId) ? scopes.get(sessionId) : scope;
}
