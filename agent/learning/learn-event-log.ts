import { z } from "zod";
import { LearnSessionEventSchema, type LearnSessionEvent } from "../../shared/learning/route-contracts";
import { LearnStreamEventKindSchema, type LearnStreamEventKind } from "../../shared/learning/lifecycle-event";
import type { Clock } from "../clock";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";

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
  /** Events of a session with an id above `afterId` (Last-Event-ID replay). */
  since(sessionId: string, afterId: number): StoredLearnEvent[];
  subscribe(sessionId: string, listener: LearnEventListener): () => void;
  forget(sessionId: string): void;
}

/**
 * The live event history behind `GET …/events` (§0C.16C). Kept in `session_events.jsonl` so a
 * client that reconnects with `Last-Event-ID` — even after an agent restart — gets exactly what it
 * missed.
 */
export async function createLearnEventLog(deps: { memory: MemoryStore; clock: Clock }): Promise<LearnEventLog> {
  const bySession = new Map<string, StoredLearnEvent[]>();
  const listeners = new Map<string, Set<LearnEventListener>>();
  let lastId = 0;
  for (const stored of await deps.memory.readJsonl(MemoryPaths.sessionEvents, StoredLearnEventSchema)) {
    lastId = Math.max(lastId, stored.event_id);
    const list = bySession.get(stored.data.session_id) ?? [];
    list.push(stored);
    bySession.set(stored.data.session_id, list);
  }
  // Emits are serialised so ids reach the file in order.
  let chain: Promise<unknown> = Promise.resolve();

  return {
    emit(sessionId, event, payload = {}) {
      const run = async () => {
        const stored: StoredLearnEvent = {
          event_id: lastId + 1,
          event,
          data: { event_kind: event, session_id: sessionId, payload, timestamp: deps.clock.now().toISOString() },
        };
        await deps.memory.append(MemoryPaths.sessionEvents, stored);
        lastId = stored.event_id;
        const list = bySession.get(sessionId) ?? [];
        list.push(stored);
        bySession.set(sessionId, list);
        for (const listener of listeners.get(sessionId) ?? []) listener(stored);
        return stored;
      };
      const result = chain.then(run, run);
      chain = result.catch(() => undefined);
      return result;
    },
    since: (sessionId, afterId) => (bySession.get(sessionId) ?? []).filter((stored) => stored.event_id > afterId),
    subscribe(sessionId, listener) {
      const set = listeners.get(sessionId) ?? new Set();
      set.add(listener);
      listeners.set(sessionId, set);
      return () => set.delete(listener);
    },
    forget(sessionId) {
      bySession.delete(sessionId);
    },
  };
}

export type { LearnSessionEvent };
