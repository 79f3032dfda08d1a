import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { assertNever } from "../../../shared/common/assert-never";

/** What a person can do to a capture without the side panel: the in-page indicator and the keyboard. */
export type CaptureControl = "pause" | "resume" | "stop" | "toggle-pause" | "mark-step";

/** The agent route a control becomes (`POST /api/learn/sessions/:id/<route>`). */
export type ControlRoute = "pause" | "resume" | "stop" | "cancel" | "mark-step";

export type ControlPlan =
  | { kind: "call"; sessionId: string; route: ControlRoute }
  | { kind: "skip"; code: "NO_CAPTURE" | "NOTHING_TO_PAUSE" | "ALREADY_PAUSED" | "NOT_PAUSED"; message: string };

/** Names of the keyboard commands in the manifest (`commands`). */
export const COMMANDS = {
  togglePause: "toggle-capture-pause",
  markStep: "mark-capture-step",
} as const;

/**
 * Which route a control means in the session's current state (§0C.1A state machine): an armed
 * session cannot pause (nothing is being recorded yet) and cannot be "stopped" either — Stop on
 * an armed session ends it as cancelled, since there is nothing to learn from.
 */
export function planControl(control: CaptureControl, session: CaptureSessionState | null): ControlPlan {
  if (session === null || !["armed", "capturing", "paused"].includes(session.state)) {
    return { kind: "skip", code: "NO_CAPTURE", message: "No recording is on." };
  }
  const call = (route: ControlRoute): ControlPlan => ({ kind: "call", sessionId: session.learn_session_id, route });
  switch (control) {
    case "pause":
      if (session.state === "capturing") return call("pause");
      return session.state === "paused"
        ? { kind: "skip", code: "ALREADY_PAUSED", message: "The recording is already paused." }
        : { kind: "skip", code: "NOTHING_TO_PAUSE", message: "Nothing is being recorded yet." };
    case "resume":
      return session.state === "paused" ? call("resume") : { kind: "skip", code: "NOT_PAUSED", message: "The recording is not paused." };
    case "toggle-pause":
      if (session.state === "capturing") return call("pause");
      if (session.state === "paused") return call("resume");
      return { kind: "skip", code: "NOTHING_TO_PAUSE", message: "Nothing is being recorded yet." };
    case "stop":
      return call(session.state === "armed" ? "cancel" : "stop");
    case "mark-step":
      return call("mark-step");
    default:
      return assertNever(control);
  }
}

export function commandControl(command: string): CaptureControl | undefined {
  if (command === COMMANDS.togglePause) return "toggle-pause";
  if (command === COMMANDS.markStep) return "mark-step";
  return undefined;
}
