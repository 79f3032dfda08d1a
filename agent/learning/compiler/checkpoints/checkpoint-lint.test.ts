import { describe, expect, it } from "vitest";
import type { WorkflowCheckpoint } from "../../../../shared/learning/checkpoints/semantic-workflow-interpretation";
import { lintCheckpoints } from "./checkpoint-lint";

const checkpoint = (success_condition: string, goal = "The order is placed"): WorkflowCheckpoint => ({
  checkpoint_id: "cp-01",
  goal,
  success_condition,
});

const rulesOf = (success: string, goal?: string, literals: string[] = []) =>
  lintCheckpoints([checkpoint(success, goal)], literals).findings.map((finding) => finding.rule);

describe("checkpoint lint", () => {
  it("R11.2-22: a success condition that is a DOM id fails CKP-001", () => {
    expect(rulesOf("div-8472")).toContain("CKP-001");
    expect(rulesOf("The element #confirm-banner is shown")).toContain("CKP-001");
    expect(rulesOf("[data-testid=order-ok] is visible")).toContain("CKP-001");
    expect(rulesOf("div#export-done > span is shown")).toContain("CKP-001");
  });

  it("R11.2-23: a success condition that is a coordinate fails CKP-002", () => {
    expect(rulesOf("(340, 220)")).toContain("CKP-002");
    expect(rulesOf("The button at 340, 220 turns green")).toContain("CKP-002");
  });

  it("fails CKP-003 on a literal typed value or something that looks like a secret", () => {
    expect(rulesOf("The page greets ann@example.com")).toContain("CKP-003");
    expect(rulesOf("The page shows the code Blue Falcon", undefined, ["blue falcon"])).toContain("CKP-003");
    expect(rulesOf("The summary lists card 4111 1111 1111 1111")).toContain("CKP-003");
  });

  it("never takes a long {{parameter}} name for a token (issue #35: a blog's 'Username or email address' field)", () => {
    expect(rulesOf('A page titled "Dashboard" is shown', '"Sign in" is completed with {{username_or_email_address}}')).not.toContain("CKP-003");
    // A token next to the placeholder is still one.
    expect(rulesOf("The page shows {{code}} and ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3")).toContain("CKP-003");
  });

  it("fails CKP-004 on an empty or unobservable condition", () => {
    expect(rulesOf("")).toContain("CKP-004");
    expect(rulesOf("done")).toContain("CKP-004");
    expect(rulesOf("Success")).toContain("CKP-004");
  });

  it("fails CKP-005 on an action sequence instead of a goal", () => {
    expect(rulesOf("The confirmation page is shown", "Click 'Cart' then click 'Checkout'")).toContain("CKP-005");
    expect(rulesOf("Type the email and press Enter")).toContain("CKP-005");
  });

  it("R11.2-24: semantic checkpoints pass", () => {
    const report = lintCheckpoints([
      { checkpoint_id: "cp-01", goal: "The sign-up form is filled in for the new account", success_condition: "The form shows no error messages" },
      {
        checkpoint_id: "cp-02",
        goal: "The account is created",
        success_condition: "A page titled 'Welcome' is shown with the heading 'Your account is ready'",
      },
    ]);
    expect(report).toEqual({ passed: true, findings: [], checked: 2 });
  });

  it("says which checkpoint and why", () => {
    const report = lintCheckpoints([checkpoint("div-8472")]);
    expect(report.findings[0]).toMatchObject({ rule: "CKP-001", checkpoint_id: "cp-01", field: "success_condition" });
    expect(report.findings[0]?.message).toMatch(/selector/);
  });
});
