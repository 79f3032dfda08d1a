import { describe, it, expect } from "vitest";
import { LEARN_SESSION_TRANSITIONS, validateTransition } from "./state-machine";
import { LearnSessionStateSchema, isTerminalLearnSessionState, type LearnSessionState } from "./learn-session";

// §0C.1A, copied row by row from the spec's table.
const SPEC_TABLE: Record<LearnSessionState, LearnSessionState[]> = {
  idle: ["armed", "cancelled"],
  armed: ["capturing", "cancelled"],
  capturing: ["paused", "stopped", "cancelled"],
  paused: ["capturing", "stopped", "cancelled"],
  stopped: ["reviewing", "cancelled"],
  reviewing: ["awaiting_questions", "drafting_proposal", "cancelled"],
  awaiting_questions: ["reviewing", "drafting_proposal", "cancelled"],
  drafting_proposal: ["testing_proposal", "ready_for_review", "cancelled"],
  testing_proposal: ["ready_for_review", "drafting_proposal", "cancelled", "quarantined"],
  ready_for_review: ["installing_private", "approved", "rejected", "drafting_proposal"],
  installing_private: ["installed_private", "quarantined"],
  installed_private: ["approved", "quarantined"],
  approved: ["quarantined"],
  rejected: [],
  cancelled: [],
  quarantined: ["drafting_proposal", "cancelled"],
};

const states = LearnSessionStateSchema.options;

describe("LEARN_SESSION_TRANSITIONS (§0C.1A)", () => {
  it.each(states)("row %s equals the spec table", (from) => {
    expect([...LEARN_SESSION_TRANSITIONS[from]].sort()).toEqual([...SPEC_TABLE[from]].sort());
  });

  it("has a row for every state and no other", () => {
    expect(Object.keys(LEARN_SESSION_TRANSITIONS).sort()).toEqual([...states].sort());
  });

  it("gives terminal states, and only them, no way out", () => {
    for (const state of states) {
      expect(LEARN_SESSION_TRANSITIONS[state].length === 0).toBe(isTerminalLearnSessionState(state));
    }
  });

  it("cannot be changed at run time", () => {
    expect(Object.isFrozen(LEARN_SESSION_TRANSITIONS)).toBe(true);
  });
});

describe("validateTransition", () => {
  it("accepts every pair in the table and refuses every pair outside it", () => {
    for (const from of states) {
      for (const to of states) {
        expect(validateTransition(from, to), `${from} → ${to}`).toBe(SPEC_TABLE[from].includes(to));
      }
    }
  });

  it("walks the R11.2-04 happy path to approved", () => {
    const path: LearnSessionState[] = [
      "idle",
      "armed",
      "capturing",
      "paused",
      "capturing",
      "stopped",
      "reviewing",
      "drafting_proposal",
      "testing_proposal",
      "ready_for_review",
      "approved",
    ];
    for (let i = 1; i < path.length; i++) {
      const from = path[i - 1]!;
      const to = path[i]!;
      expect(validateTransition(from, to), `${from} → ${to}`).toBe(true);
    }
  });

  it("refuses idle → testing_proposal (R11.2-05)", () => {
    expect(validateTransition("idle", "testing_proposal")).toBe(false);
  });

  it("allows the testing_proposal → drafting_proposal revision loop (R11.2-15)", () => {
    expect(validateTransition("testing_proposal", "drafting_proposal")).toBe(true);
  });
});
