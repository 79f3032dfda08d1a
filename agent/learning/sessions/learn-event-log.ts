import { z } from "zod";
import { LearnSessionEventSchema, type LearnSessionEvent } from "../../../shared/learning/route-contracts";
import { LearnStreamEventKindSchema, type LearnStreamEventKind } from "../../../shared/learning/sessions/lifecycle-event";
import type { Clock } from "../../common/clock";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";

/** One delivered stream event: the SSE `id:` is `event_id`, the SSE `event:` is `event`. */
export const StoredLearnEventSchema = z.object({
  event_id: z.number().int().min(1),
  event: LearnStreamEventKindSchema,
  data: LearnSessionEventSchema,
});
export type StoredLearnEvent = z.infer<typeof StoredLearnEventSchema>;

export type LearnEventListener = (event: StoredLearnEvent) => void;

export interface LearnEventLog {
  /** Persists, then delivers to live subscribers; ids increase across all sessions and restarts. */
  emit(sessionId: string, event: LearnStreamEventKind, payload?: Record<string, unknown>): Promise<StoredLearnEvent>;
  /** Events of a session with an id above `afterId` (Last-Event-ID replay), oldest first. */
  since(sessionId: string, afterId: number): Promise<StoredLearnEvent[]>;
  subscribe(sessionId: string, listener: LearnEventListener): () => void;
  forget(sessionId: string): void;
}

/**
 * The live event history behind `GET …/events` (§0C.16C). Kept in `session_events.jsonl` so a
 * client that reconnects with `Last-Event-ID` — even after an agent restart — gets exactly what it
 * missed.
 *
 * Start-up reads only the log's last line, whose id is the highest (ids are appended in order, one
 * emit at a time; issue 32: the log keeps every session's events and is not read at start); a
 * session's events are read (and checked) from the log the first time they are asked for, then
 * kept with what is emitted after.
 */
export async function createLearnEventLog(deps: { memory: MemoryStore; clock: Clock }): Promise<LearnEventLog> {
  /** Sessions whose whole history is in memory; the others' is only in the log. */
  const bySession = new Map<string, StoredLearnEvent[]>();
  const listeners = new Map<string, Set<LearnEventListener>>();
  const [last] = await deps.memory.readJsonlLast(MemoryPaths.sessionEvents, StoredLearnEventSchema, "", 1);
  let lastId = last?.event_id ?? 0;
  // Emits and first reads of a session's history are serialised: ids reach the file in order, and
  // no event is appended while a history is being read (it would be in neither).
  let chain: Promise<unknown> = Promise.resolve();
  const serially = <T>(run: () => Promise<T>): Promise<T> => {
    const result = chain.then(run, run);
    chain = result.catch(() => undefined);
    return result;
  };
  const historyOf = async (sessionId: string): Promise<StoredLearnEvent[]> => {
    const known = bySession.get(sessionId);
    if (known !== undefined) return known;
    return serially(async () => {
      let list = bySession.get(sessionId);
      if (list === undefined) {
        const read = await deps.memory.readJsonlContaining(MemoryPaths.sessionEvents, StoredLearnEventSchema, sessionId);
        list = read.filter((stored) => stored.data.session_id === sessionId);
        bySession.set(sessionId, list);
      }
      return list;
    });
  };

  return {
    emit(sessionId, event, payload = {}) {
      return serially(async () => {
        const stored: StoredLearnEvent = {
          event_id: lastId + 1,
          event,
          data: { event_kind: event, session_id: sessionId, payload, timestamp: deps.clock.now().toISOString() },
        };
        await deps.memory.append(MemoryPaths.sessionEvents, stored);
        lastId = stored.event_id;
        // A history not read yet is read whole from the log when asked for, this event with it.
        bySession.get(sessionId)?.push(stored);
        for (const listener of listeners.get(sessionId) ?? []) listener(stored);
        return stored;
      });
    },
    since: async (sessionId, afterId) => (await historyOf(sessionId)).filter((stored) => stored.event_id > afterId),
    subscribe(sessionId, listener) {
      const set = listeners.get(sessionId) ?? new Set();
      set.add(listener);
      listeners.set(sessionId, set);
      return () => set.delete(listener);
    },
    forget(sessionId) {
      // A deleted session's history is gone for this agent, though its lines stay in the log.
      bySession.set(sessionId, []);
    },
  };
}

export type { LearnSessionEvent };
