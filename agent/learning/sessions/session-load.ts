import { z } from "zod";
import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import { ObservationScopeRuntimeSchema, type ObservationScopeRuntime } from "../../../shared/learning/sessions/observation-scope-runtime";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import type { SessionServiceDeps } from "./session-service";
import { SessionLogRecordSchema } from "./session-log";

/** What folding `sessions.jsonl` needs of each line; the winning versions are then parsed in full. */
const SessionLogFoldSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("put"), session: z.object({ learn_session_id: z.string(), state: z.string(), updated_at: z.string() }).passthrough() }),
  z.object({ op: z.literal("delete"), learn_session_id: z.string() }),
]);

/**
 * The live sessions, folded from the sessions log, and when each entered its current state. The log
 * keeps every version of every session: it is folded on the fields the fold needs, and only the
 * version that wins (the last per id) is checked against the full schema.
 */
export async function loadSessions(deps: SessionServiceDeps): Promise<{ sessions: Map<string, LearnSession>; stateEnteredAt: Map<string, string> }> {
  const sessions = new Map<string, LearnSession>();
  // When each session entered its current state: TTLs count from there, not from the last mark.
  const stateEnteredAt = new Map<string, string>();
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
  return { sessions, stateEnteredAt };
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
