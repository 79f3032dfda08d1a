import type { LearnSession } from "../../shared/learning/sessions/learn-session";
import type { ObservationScopeRuntime } from "../../shared/learning/sessions/observation-scope-runtime";

/**
 * What ingest needs of the Learn sessions, by shape (agent/learning's SessionService satisfies it):
 * which sessions exist, each one's scope and state, and where to report what was observed. The
 * observation layer never imports agent/learning.
 */
export interface ObservedSessions {
  get(sessionId: string): LearnSession;
  all(): LearnSession[];
  /** When the session entered its current state (§0C.16D TTLs count from here). */
  stateSince(sessionId: string): Date;
  /** Read from the session's file the first time it is asked for (issue 32). */
  observationScope(sessionId: string): Promise<ObservationScopeRuntime>;
  /** §0A.12: the first meaningful observed event of an armed session starts the capture. */
  noteMeaningfulEvent(sessionId: string, eventId?: string): Promise<LearnSession>;
  /** Counts what ingest did for a session's scope: data classes seen, events dropped as off-site. */
  recordIngest(sessionId: string, update: { dataClasses: readonly string[]; offTargetDropped: number }): Promise<void>;
  /** Sets the text-entry masking mode (§0C.22 rule 4); `none` is the user's recorded consent. */
  setRedaction(sessionId: string, textEntry: "mask_text" | "hash_only" | "none"): Promise<ObservationScopeRuntime>;
  /** Called with the current session after every change (the capture clients mirror it). */
  onCurrentChange(listener: (session: LearnSession | undefined, scope: ObservationScopeRuntime | undefined) => void): () => void;
  /** The session the runtime views describe right now. */
  current(): { session: LearnSession; scope: ObservationScopeRuntime | undefined } | undefined;
}
