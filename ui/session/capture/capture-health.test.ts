import { describe, expect, it } from "vitest";
import type { CaptureStatusReply } from "../../../shared/observation/panel-messages";
import { captureWarnings } from "./capture-health.svelte";

function status(extra: Partial<CaptureStatusReply> = {}, outbox: Partial<CaptureStatusReply["outbox"]> = {}): CaptureStatusReply {
  return {
    connection: "connected",
    session: null,
    outbox: { queued: 0, capacity: 20_000, near_full: false, snapshots_queued: 0, refused: 0, refused_snapshots: 0, ...outbox },
    last_control: null,
    last_failure: null,
    ...extra,
  };
}

describe("what the extension's half says during a capture", () => {
  it("says nothing when all is well", () => {
    expect(captureWarnings(status(), true)).toEqual([]);
  });

  it("warns when the outbox is nearly full and when events were refused", () => {
    const warnings = captureWarnings(status({}, { queued: 16_500, near_full: true, refused: 12 }), true);
    expect(warnings.map((warning) => warning.id)).toEqual(["outbox", "refused"]);
    expect(warnings[0]?.text).toContain("16500 of 20000");
    expect(warnings[1]).toMatchObject({ tone: "error" });
  });

  it("warns about the link only while capturing, and a connecting link only once events wait", () => {
    expect(captureWarnings(status({ connection: "disconnected" }), false)).toEqual([]);
    expect(captureWarnings(status({ connection: "disconnected" }), true).map((warning) => warning.id)).toEqual(["link"]);
    expect(captureWarnings(status({ connection: "connecting" }), true)).toEqual([]);
    expect(captureWarnings(status({ connection: "connecting" }, { queued: 3 }), true).map((warning) => warning.id)).toEqual(["link"]);
    expect(captureWarnings(status({ connection: "token_rejected" }), true)[0]?.text).toContain("pair again");
  });

  it("reports a keyboard control that failed, and a silent background while capturing", () => {
    const failed = status({
      last_control: {
        control: "stop",
        source: "hotkey",
        at: "2026-01-01T10:00:00.000Z",
        reply: { ok: false, code: "AGENT_UNREACHABLE", message: "Agent unreachable" },
      },
    });
    expect(captureWarnings(failed, false)[0]?.text).toContain("Agent unreachable");
    expect(captureWarnings(null, true)[0]).toMatchObject({ id: "background", tone: "error" });
    expect(captureWarnings(null, false)).toEqual([]);
  });
});
