import { describe, expect, it } from "vitest";
import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { badgeForSession, DEFAULT_ACTION_TITLE } from "./capture-badge";

const session = (state: CaptureSessionState["state"]): CaptureSessionState => ({
  learn_session_id: "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
  state,
  target_app_whitelist: ["shop.example.com", "http://127.0.0.1:8123"],
  redaction_modes: {},
});

describe("badgeForSession", () => {
  it("shows ARM while armed, red REC while capturing and II while paused", () => {
    expect(badgeForSession(session("armed")).text).toBe("ARM");
    const recording = badgeForSession(session("capturing"));
    expect(recording.text).toBe("REC");
    expect(recording.color).toBe("#d93025");
    const paused = badgeForSession(session("paused"));
    expect(paused.text).toBe("II");
    expect(paused.color).not.toBe(recording.color);
  });

  it("names the observed sites in the tooltip", () => {
    expect(badgeForSession(session("capturing")).title).toBe(`${DEFAULT_ACTION_TITLE}: recording on shop.example.com, http://127.0.0.1:8123`);
  });

  it("says a session without a site watches this computer, not 'no site'", () => {
    const desktopOnly = { ...session("capturing"), target_app_whitelist: [] };
    expect(badgeForSession(desktopOnly).title).toBe(`${DEFAULT_ACTION_TITLE}: recording on this computer (no website)`);
  });

  it.each(["idle", "stopped", "reviewing", "cancelled", "installed_private"] as const)("is cleared when the session is %s", (state) => {
    expect(badgeForSession(session(state))).toMatchObject({ text: "", title: DEFAULT_ACTION_TITLE });
  });

  it("is cleared when there is no session", () => {
    expect(badgeForSession(null)).toMatchObject({ text: "", title: DEFAULT_ACTION_TITLE });
  });
});
