import { WorkflowBoundarySchema } from "../../../shared/learning/sessions/boundary";
import type { LearnSession, LearnSessionState } from "../../../shared/learning/sessions/learn-session";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import type { SessionCore } from "./session-core";
import type { SessionService } from "./session-service";

/** States in which trims and exclusions still shape what a proposal will be built from. */
const TRIMMABLE: ReadonlySet<LearnSessionState> = new Set(["capturing", "paused", "stopped", "reviewing", "awaiting_questions"]);

/** Where a workflow starts and ends inside a capture (§0C.4): the first meaningful event, goal and step marks, trims. */
export function createBoundaryOperations(core: SessionCore): Pick<SessionService, "markGoal" | "markStep" | "trim" | "noteMeaningfulEvent" | "boundaries"> {
  const { deps, exclusive, find, put, withChanges, writeBoundary, refreshRuntimeViews, countEvents, assertTransition, announce, scopeOf } = core;
  const beginCapture = async (session: LearnSession, eventId: string | undefined): Promise<LearnSession> => {
    assertTransition(session, "capturing");
    const next = withChanges(session, { state: "capturing" });
    await put(next);
    await announce(next, "learn.capture.started", "learn.capture.started", {
      payload: { adapter_count: (await scopeOf(session.learn_session_id))?.adapters_active.length ?? 0, ...(eventId ? { first_event_id: eventId } : {}) },
    });
    return next;
  };

  return {
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

    noteMeaningfulEvent: (sessionId, eventId) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (session.state !== "armed") return session;
        return beginCapture(session, eventId);
      }),

    async boundaries(sessionId) {
      find(sessionId);
      return (await deps.memory.readJsonl(MemoryPaths.boundaries, WorkflowBoundarySchema)).filter((boundary) => boundary.learn_session_id === sessionId);
    },
  };
}
