import { describe, it, expect } from "vitest";
import { LearnSessionSchema, LearnSessionStateSchema, TERMINAL_LEARN_SESSION_STATES, isTerminalLearnSessionState } from "./learn-session";
import { CreateLearnSessionRequestSchema } from "./create-learn-session";
import * as barrel from "../index";

const minimalSession = {
  learn_session_id: "6f1c2a0e-8a3b-4c1d-9e2f-0a1b2c3d4e5f",
  entry_mode: "demonstrating_skill",
  state: "idle",
  created_at: "2025-01-01T10:00:00Z",
  updated_at: "2025-01-01T10:00:00Z",
  schema_version: 1,
};

describe("LearnSessionSchema", () => {
  it("fills the §0C.1 defaults when a stored session omits them", () => {
    const session = LearnSessionSchema.parse(minimalSession);
    expect(session).toMatchObject({
      observation_mode: "none",
      build_policy: "build_then_review",
      execution_mode: "guided",
      target_kind: "new_skill",
      actor_mode: "mixed",
      target_app_whitelist: [],
      active_trace_ids: [],
      active_observation_batch_ids: [],
    });
  });

  it("rejects the superseded Part 3 entry point value", () => {
    expect(LearnSessionSchema.safeParse({ ...minimalSession, entry_mode: "demonstrate_workflow" }).success).toBe(false);
  });

  it("rejects a whitelist entry longer than 160 characters", () => {
    const result = LearnSessionSchema.safeParse({ ...minimalSession, target_app_whitelist: ["a".repeat(161)] });
    expect(result.success).toBe(false);
  });

  it("rejects a non-uuid session id and a schema_version other than 1", () => {
    expect(LearnSessionSchema.safeParse({ ...minimalSession, learn_session_id: "session-1" }).success).toBe(false);
    expect(LearnSessionSchema.safeParse({ ...minimalSession, schema_version: 2 }).success).toBe(false);
  });

  it("has exactly the sixteen §0C.1 states", () => {
    expect(LearnSessionStateSchema.options).toHaveLength(16);
  });
});

describe("terminal states (§0C.1B)", () => {
  it("counts only rejected and cancelled as terminal", () => {
    const terminal = LearnSessionStateSchema.options.filter(isTerminalLearnSessionState);
    expect(terminal.sort()).toEqual([...TERMINAL_LEARN_SESSION_STATES].sort());
    expect(isTerminalLearnSessionState("approved")).toBe(false);
    expect(isTerminalLearnSessionState("capturing")).toBe(false);
  });
});

describe("CreateLearnSessionRequestSchema", () => {
  it("accepts a demonstration request and defaults the flags to off", () => {
    const request = CreateLearnSessionRequestSchema.parse({
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: ["example.com"],
    });
    expect(request.ask_before_build).toBe(false);
    expect(request.allow_private_install).toBe(false);
    expect(request.build_policy).toBe("build_then_review");
  });

  it("rejects the superseded entry_point field in place of entry_mode", () => {
    expect(CreateLearnSessionRequestSchema.safeParse({ entry_point: "demonstrating_skill" }).success).toBe(false);
  });
});

describe("learning barrel", () => {
  it("does not export LearningEntryPointSchema (R11.2-03)", () => {
    expect("LearningEntryPointSchema" in barrel).toBe(false);
    expect("LearningEntryModeSchema" in barrel).toBe(true);
  });
});
