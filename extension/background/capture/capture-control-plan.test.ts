import { describe, expect, it } from "vitest";
import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { commandControl, COMMANDS, planControl } from "./capture-control-plan";

const ID = "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c";
const session = (state: CaptureSessionState["state"]): CaptureSessionState => ({ learn_session_id: ID, state, target_app_whitelist: [], redaction_modes: {} });

describe("planControl", () => {
  it("toggles pause and resume from the keyboard", () => {
    expect(planControl("toggle-pause", session("capturing"))).toEqual({ kind: "call", sessionId: ID, route: "pause" });
    expect(planControl("toggle-pause", session("paused"))).toEqual({ kind: "call", sessionId: ID, route: "resume" });
  });

  it("does not pause an armed session, which records nothing yet", () => {
    expect(planControl("toggle-pause", session("armed"))).toMatchObject({ kind: "skip", code: "NOTHING_TO_PAUSE" });
    expect(planControl("pause", session("armed"))).toMatchObject({ kind: "skip", code: "NOTHING_TO_PAUSE" });
  });

  it("stops a capture, and cancels an armed session that has nothing to stop", () => {
    expect(planControl("stop", session("capturing"))).toMatchObject({ route: "stop" });
    expect(planControl("stop", session("paused"))).toMatchObject({ route: "stop" });
    expect(planControl("stop", session("armed"))).toMatchObject({ route: "cancel" });
  });

  it("marks a step in any live state (the agent starts an armed capture on a mark)", () => {
    expect(planControl("mark-step", session("armed"))).toMatchObject({ route: "mark-step" });
  });

  it("does nothing when no recording is on", () => {
    expect(planControl("stop", null)).toMatchObject({ kind: "skip", code: "NO_CAPTURE" });
    expect(planControl("mark-step", session("stopped"))).toMatchObject({ kind: "skip", code: "NO_CAPTURE" });
  });
});

describe("commandControl", () => {
  it("maps the manifest's commands and ignores others", () => {
    expect(commandControl(COMMANDS.togglePause)).toBe("toggle-pause");
    expect(commandControl(COMMANDS.markStep)).toBe("mark-step");
    expect(commandControl("_execute_action")).toBeUndefined();
  });
});
