import { LearnSessionStateSchema, type LearnSessionState } from "../../../shared/learning/sessions/learn-session";
import { AppError } from "../../errors/app-error";
import type { SessionCore } from "./session-core";
import { checkAdapters } from "./session-scope";
import type { SessionService } from "./session-service";

/** States in which capture has already ended, so Stop answers CAPTURE_ALREADY_STOPPED (§0C.28). */
const CAPTURE_ENDED: ReadonlySet<LearnSessionState> = new Set(
  LearnSessionStateSchema.options.filter((state) => !["idle", "armed", "capturing", "paused"].includes(state)),
);

type CaptureOperations = Pick<SessionService, "start" | "pause" | "resume" | "stop" | "cancel">;

/** Capture's moves (§0C.1A): start, pause, resume, stop and cancel, each one boundary and one announcement. */
export function createCaptureOperations(core: SessionCore): CaptureOperations {
  return {
    start: (...args) => core.exclusive(() => start(core, ...args)),
    pause: (...args) => core.exclusive(() => pause(core, ...args)),
    resume: (...args) => core.exclusive(() => resume(core, ...args)),
    stop: (...args) => core.exclusive(() => stop(core, ...args)),
    cancel: (...args) => core.exclusive(() => cancel(core, ...args)),
  };
}

async function start(core: SessionCore, ...[sessionId, request, source]: Parameters<CaptureOperations["start"]>): ReturnType<CaptureOperations["start"]> {
  const { deps, scopeOf, find, assertTransition, put, withChanges, writeBoundary, putScope, announce } = core;
  const session = find(sessionId);
  assertTransition(session, "armed");
  const adapters = checkAdapters(deps.adapters, session, request.adapters_requested);
  const boundary = await writeBoundary(session, "start", source);
  const next = withChanges(session, { state: "armed", start_boundary_ref: `boundary:${boundary.boundary_id}` });
  await put(next);
  const scope = await scopeOf(sessionId);
  if (scope !== undefined) await putScope({ ...scope, adapters_active: adapters, started_at: next.updated_at });
  await announce(next, "learn.capture.armed", "learn.capture.armed", { payload: { adapters_armed: adapters } });
  return { session: next, observation_active: adapters.length > 0, adapters_armed: adapters };
}

async function pause(
  core: SessionCore,
  ...[sessionId, source, reason, unchangedSince]: Parameters<CaptureOperations["pause"]>
): ReturnType<CaptureOperations["pause"]> {
  const { find, assertTransition, assertUnchanged, put, withChanges, writeBoundary, announce } = core;
  const session = find(sessionId);
  assertUnchanged(session, unchangedSince);
  assertTransition(session, "paused");
  await writeBoundary(session, "pause", source);
  const next = withChanges(session, { state: "paused" });
  await put(next);
  await announce(next, "learn.capture.paused", "learn.capture.paused", { reason });
  return next;
}

async function resume(core: SessionCore, ...[sessionId, source]: Parameters<CaptureOperations["resume"]>): ReturnType<CaptureOperations["resume"]> {
  const { find, put, withChanges, writeBoundary, announce } = core;
  const session = find(sessionId);
  if (session.state !== "paused") {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", `Only a paused session can resume; this one is ${session.state}.`);
  }
  await writeBoundary(session, "resume", source);
  const next = withChanges(session, { state: "capturing" });
  await put(next);
  await announce(next, "learn.capture.resumed", "learn.capture.resumed");
  return next;
}

async function stop(core: SessionCore, ...[sessionId, source]: Parameters<CaptureOperations["stop"]>): ReturnType<CaptureOperations["stop"]> {
  const { find, assertTransition, put, withChanges, writeBoundary, announce, countEvents } = core;
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
}

async function cancel(
  core: SessionCore,
  ...[sessionId, source, reason, unchangedSince]: Parameters<CaptureOperations["cancel"]>
): ReturnType<CaptureOperations["cancel"]> {
  const { find, assertTransition, assertUnchanged, put, withChanges, writeBoundary, announce } = core;
  const session = find(sessionId);
  assertUnchanged(session, unchangedSince);
  assertTransition(session, "cancelled");
  await writeBoundary(session, "cancel", source, { label: reason });
  const next = withChanges(session, { state: "cancelled" });
  await put(next);
  await announce(next, "learn.session.cancelled", "learn.session.cancelled", { reason });
  return next;
}
