import { describe, expect, it } from "vitest";
import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { captureConfigFor } from "./capture-config";

const KEY = "k".repeat(43);
const session = (overrides: Partial<CaptureSessionState> = {}): CaptureSessionState => ({
  learn_session_id: "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
  state: "capturing",
  target_app_whitelist: ["shop.example.com"],
  redaction_modes: {},
  ...overrides,
});

describe("captureConfigFor", () => {
  it("masks typed text by default", () => {
    expect(captureConfigFor(session(), KEY)).toEqual({
      learn_session_id: "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
      state: "capturing",
      text_entry_mode: "mask_text",
      typed_values: [],
      hash_key: KEY,
      allowed_origins: ["shop.example.com"],
    });
  });

  it("passes on the session's text-entry mode, and masks when the mode is unknown", () => {
    expect(captureConfigFor(session({ redaction_modes: { text_entry: "hash_only" } }), KEY)?.text_entry_mode).toBe("hash_only");
    expect(captureConfigFor(session({ redaction_modes: { text_entry: "plaintext" } }), KEY)?.text_entry_mode).toBe("mask_text");
  });

  it("tells pages to observe nothing once the session is stopped, or without a session", () => {
    expect(captureConfigFor(session({ state: "stopped" }), KEY)).toBeNull();
    expect(captureConfigFor(session({ state: "cancelled" }), KEY)).toBeNull();
    expect(captureConfigFor(null, KEY)).toBeNull();
  });

  it("keeps observing while paused, so the page shows the paused indicator", () => {
    expect(captureConfigFor(session({ state: "paused" }), KEY)?.state).toBe("paused");
  });
});
