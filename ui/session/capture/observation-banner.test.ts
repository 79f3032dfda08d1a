import { describe, expect, it } from "vitest";
import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import { watchesThisComputer } from "../../../shared/learning/observed-actions/desktop-detail";
import { observedSummary, observingState } from "./observation-banner";

function session(changes: Partial<LearnSession>): LearnSession {
  return {
    learn_session_id: "6f1c2c1e-7d3a-4b8e-9a51-2f0d3c4b5a69",
    entry_mode: "demonstrating_skill",
    observation_mode: "outside_agent",
    build_policy: "build_then_review",
    execution_mode: "guided",
    target_kind: "new_skill",
    state: "capturing",
    actor_mode: "mixed",
    target_app_whitelist: [],
    active_trace_ids: [],
    active_observation_batch_ids: [],
    created_at: "2026-11-24T08:00:00.000Z",
    updated_at: "2026-11-24T08:00:00.000Z",
    schema_version: 1,
    ...changes,
  };
}

describe("observation banner words", () => {
  it("shows the banner while a session is armed, capturing or paused, and not before or after", () => {
    expect(observingState(null)).toBeNull();
    for (const state of ["armed", "capturing", "paused"] as const) expect(observingState(session({ state }))).toBe(state);
    for (const state of ["idle", "stopped", "awaiting_questions", "ready_for_review", "cancelled"] as const)
      expect(observingState(session({ state }))).toBeNull();
  });

  it("names the watched sites, this computer, or says nothing is watched", () => {
    expect(observedSummary(session({ target_app_whitelist: ["shop.example.com", "127.0.0.1:8080"] }))).toBe("Watching shop.example.com, 127.0.0.1:8080.");
    const desktop = session({ target_app_family: "desktop" });
    expect(watchesThisComputer(desktop)).toBe(true);
    expect(observedSummary(desktop)).toContain("this computer");
    expect(observedSummary(session({ target_app_family: "desktop", target_app_whitelist: ["shop.example.com"] }))).toMatch(
      /this computer .* and shop\.example\.com/,
    );
    expect(observedSummary(session({ observation_mode: "none", target_app_whitelist: ["shop.example.com"] }))).toMatch(/^Nothing is watched/);
    expect(watchesThisComputer(session({ observation_mode: "none", target_app_family: "desktop" }))).toBe(false);
  });
});
