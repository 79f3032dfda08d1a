import { describe, it, expect } from "vitest";
import { SKILL_IMPORT_TRANSITIONS, SkillImportStateSchema, SkillImportTerminalStateSchema, canTransitionSkillImport } from "./import-state";

describe("SkillImportStateSchema (§0C.20)", () => {
  it("rejects the retired §0.2B states that the backfill rules replace", () => {
    for (const legacy of ["needs_adapter", "cancelled", "promoted_shared", "awaiting_review"]) {
      expect(SkillImportStateSchema.safeParse(legacy).success).toBe(false);
    }
  });

  it("has no way out of a terminal state", () => {
    for (const terminal of SkillImportTerminalStateSchema.options) {
      expect(SKILL_IMPORT_TRANSITIONS[terminal]).toEqual([]);
    }
  });
});

describe("canTransitionSkillImport (§0C.20)", () => {
  it("follows the happy path from upload to private install", () => {
    const path = ["upload_pending", "uploaded", "scanning", "scan_complete", "staging", "ready_for_review", "install_queued", "installed_private"] as const;
    for (let i = 1; i < path.length; i++) {
      expect(canTransitionSkillImport(path[i - 1]!, path[i]!)).toBe(true);
    }
  });

  it("refuses to skip the scan", () => {
    expect(canTransitionSkillImport("uploaded", "staging")).toBe(false);
  });

  it("leaves a failed state only through a retry of the matching kind", () => {
    expect(canTransitionSkillImport("scan_failed", "scanning")).toBe(false);
    expect(canTransitionSkillImport("scan_failed", "scanning", "scan")).toBe(true);
    expect(canTransitionSkillImport("scan_failed", "scanning", "stage")).toBe(false);
    expect(canTransitionSkillImport("install_failed", "install_queued", "install")).toBe(true);
  });

  it("does not let a retry kind unlock an ordinary edge", () => {
    expect(canTransitionSkillImport("uploaded", "scanning", "scan")).toBe(false);
  });
});
