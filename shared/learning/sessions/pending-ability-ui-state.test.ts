import { describe, it, expect } from "vitest";
import { mapInternalStateToPendingAbilityUiState as map } from "./pending-ability-ui-state";

describe("mapInternalStateToPendingAbilityUiState (§0C.6)", () => {
  it("shows a paused capture as capturing", () => {
    expect(map("paused", null)).toBe("capturing");
    expect(map("capturing", null)).toBe("capturing");
  });

  it("maps the proposal-building states one to one", () => {
    expect(map("awaiting_questions", null)).toBe("awaiting_input");
    expect(map("drafting_proposal", null)).toBe("drafting");
    expect(map("testing_proposal", null)).toBe("testing");
    expect(map("ready_for_review", null)).toBe("ready_for_review");
  });

  it("lets the learn state win over an experimental_private lane while still in review", () => {
    expect(map("ready_for_review", "experimental_private")).toBe("ready_for_review");
  });

  it("shows a private install as private_active, by state or by lane", () => {
    expect(map("installed_private", null)).toBe("private_active");
    expect(map("approved", "experimental_private")).toBe("private_active");
  });

  it("falls through to revision_required for every state the spec does not name", () => {
    for (const state of ["idle", "armed", "stopped", "reviewing", "installing_private", "rejected", "cancelled", "quarantined"] as const) {
      expect(map(state, null), state).toBe("revision_required");
    }
    expect(map("approved", "approved_workspace")).toBe("revision_required");
  });
});
