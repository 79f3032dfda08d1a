import type { CoachingAnswerRequest, CoachingSetup, CoachingShownRequest, CoachingState } from "../../../shared/learning/sessions/coaching";
import { answerTurn, setupCoaching, shownTurn } from "./coaching-answers";
import { find, type CoachingContext, type CoachingServiceDeps, type Runtime } from "./coaching-runtime";
import { followSessions } from "./coaching-turns";

export type { CoachingServiceDeps } from "./coaching-runtime";

export interface CoachingService {
  /** `POST /api/learn/sessions/:id/coaching`: the steps, before or after Start. */
  setup(sessionId: string, setup: CoachingSetup): Promise<CoachingState>;
  state(sessionId: string): Promise<CoachingState>;
  answer(sessionId: string, request: CoachingAnswerRequest): Promise<CoachingState>;
  shown(sessionId: string, request: CoachingShownRequest): Promise<CoachingState>;
  /** Resolves when no turn is being worked on (tests; a graceful close); gives every tab back. */
  close(): Promise<void>;
}

/**
 * Coaching Agent (§0B.5, issue #16): takes turns with the person in their own tab. The session is
 * recorded as a demonstration; for each step in the person's words the agent reads the page, proposes
 * the control that fits (coaching-matcher), frames it in the page and waits. "Do it": it marks the
 * step with the person's words and clicks through the executor, then checks the page changed; "Not
 * that — I'll show you": it marks the step and the person does it, recorded by the content script,
 * masked as always; "Skip" moves on. What the agent clicks is recorded by that same content script,
 * so the session compiles like a demonstration, the person's words naming its steps and checkpoints.
 *
 * The parts: coaching-runtime (state, saving, ending), coaching-turns (the tab and each proposal),
 * coaching-answers (the person's answers).
 */
export function createCoachingService(deps: CoachingServiceDeps): CoachingService {
  const context: CoachingContext = { deps, runtimes: new Map<string, Runtime>() };
  followSessions(context);
  return {
    setup: (sessionId, setup) => setupCoaching(context, sessionId, setup),
    state: async (sessionId) => (await find(context, sessionId)).state,
    answer: (sessionId, request) => answerTurn(context, sessionId, request),
    shown: (sessionId, request) => shownTurn(context, sessionId, request),
    async close() {
      for (const runtime of context.runtimes.values()) {
        runtime.stop.abort();
        await runtime.work;
        const lease = runtime.lease;
        runtime.lease = undefined;
        await lease?.release().catch(() => undefined);
      }
    },
  };
}
