import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import type { ValidationRunsResponse } from "../../../shared/learning/route-contracts";
import type { WorkflowCheckpoint } from "../../../shared/learning/checkpoints/semantic-workflow-interpretation";
import { validationAdvice } from "./validation-advice";
import ValidationAdvice from "./ValidationAdvice.svelte";
import type { ProposalReviewState } from "../proposal/proposal-review.svelte";

const RUN = (id: number, kind: "lint" | "rehearsal" | "trigger", result: "passed" | "failed" | "partial", at: string) => ({
  validation_run_id: `00000000-0000-4000-8000-00000000000${id}`,
  proposal_id: "00000000-0000-4000-8000-0000000000aa",
  run_kind: kind,
  started_at: at,
  completed_at: at,
  overall_result: result,
  result_refs: [],
  schema_version: 1 as const,
});
const STEP = (run: number, test_case_id: string, label: string, result: "passed" | "failed" | "skipped", details?: string) => ({
  validation_run_id: `00000000-0000-4000-8000-00000000000${run}`,
  test_case_id,
  label,
  result,
  ...(details !== undefined ? { details } : {}),
  created_at: "2026-12-05T10:00:00.000Z",
  schema_version: 1 as const,
});
const checkpoints: WorkflowCheckpoint[] = [
  { checkpoint_id: "cp-01", goal: "Signed in as {{username}}", success_condition: 'A "Log out" button appears' },
  { checkpoint_id: "cp-02", goal: "The page {{page_name}} is created", success_condition: 'A page titled "{{page_name}} [Notes]" is shown' },
  { checkpoint_id: "cp-03", goal: "The note is kept", success_condition: "The person confirms it", verification: { by: "person" } },
];

function runs(): ValidationRunsResponse {
  return {
    runs: [
      // An older rehearsal that failed on a step, then the newest one that failed on a checkpoint.
      RUN(1, "rehearsal", "failed", "2026-12-05T09:00:00.000Z"),
      RUN(2, "lint", "passed", "2026-12-05T10:00:00.000Z"),
      RUN(3, "rehearsal", "failed", "2026-12-05T10:00:01.000Z"),
    ],
    steps: [
      STEP(1, "rehearsal:s7", "Click 'Save'", "failed", "no element answers 'Save'"),
      STEP(2, "lint:checkpoints", "Checkpoints are observable", "passed"),
      STEP(3, "rehearsal:s1", "Open the start page", "passed"),
      STEP(3, "rehearsal:s5", "Fill 'Page name'", "failed", "the field is not on the page"),
      STEP(3, "checkpoint:cp-02", "The page {{page_name}} is created", "failed", 'the page is titled "Edit page [Notes]"'),
      STEP(3, "checkpoint:cp-03", "The note is kept", "failed"),
      STEP(3, "checkpoint:cp-01", "Signed in as {{username}}", "passed"),
    ],
  };
}

describe("a failed validation says what to do (issue #35)", () => {
  it("takes the newest run of each kind and names each failure in the person's words, with its fixes", () => {
    const advice = validationAdvice(runs(), checkpoints);
    expect(advice?.at).toBe("2026-12-05T10:00:01.000Z");
    expect(advice?.items.map((item) => [item.test_case_id, item.fixes])).toEqual([
      ["rehearsal:s5", ["demonstrate_again"]],
      ["checkpoint:cp-02", ["other_evidence", "confirm_by_hand"]],
      // Already confirmed by the person: only other evidence is left to offer.
      ["checkpoint:cp-03", ["other_evidence"]],
    ]);
    expect(advice?.items[0]?.what).toBe("The rehearsal could not do the step “Fill 'Page name'”.");
    expect(advice?.items[0]?.why).toBe("the field is not on the page");
    expect(advice?.items[1]?.what).toBe(
      'The check “The page {{page_name}} is created” did not hold (expected: A page titled "{{page_name}} [Notes]" is shown).',
    );
    expect(advice?.items[1]?.checkpoint?.checkpoint_id).toBe("cp-02");
  });

  it("says nothing once the newest validation passed, even after older failures", () => {
    const later = runs();
    later.runs.push(RUN(4, "rehearsal", "passed", "2026-12-05T11:00:00.000Z"));
    expect(validationAdvice(later, checkpoints)).toBeNull();
    expect(validationAdvice({ runs: [], steps: [] }, checkpoints)).toBeNull();
  });

  it("sends a failed lint or trigger check to Revise", () => {
    const linted: ValidationRunsResponse = {
      runs: [RUN(5, "lint", "failed", "2026-12-05T12:00:00.000Z")],
      steps: [STEP(5, "lint:checkpoints", "Checkpoints are observable", "failed", "CKP-002: a selector")],
    };
    expect(validationAdvice(linted, checkpoints)?.items).toEqual([
      {
        test_case_id: "lint:checkpoints",
        what: "A check's evidence is not something a page shows (a selector, a typed value or a click).",
        why: "CKP-002: a selector",
        fixes: ["revise"],
      },
    ]);
  });

  it("shows the fixes as buttons in the drawer: other evidence, confirmed by hand, demonstrate again", () => {
    const review = {
      validation: { status: "ready", value: runs() },
      detail: { interpretation: { checkpoints } },
      busy: null,
    } as unknown as ProposalReviewState;
    const { body } = render(ValidationAdvice, { props: { review, ondemonstrate: () => undefined } });
    expect(body).toContain("What to do about it");
    expect(body.match(/data-fix="(\w+)"/g)).toEqual([
      'data-fix="demonstrate_again"',
      'data-fix="other_evidence"',
      'data-fix="confirm_by_hand"',
      'data-fix="other_evidence"',
    ]);
    const without = render(ValidationAdvice, { props: { review } }).body;
    expect(without).not.toContain('data-fix="demonstrate_again"');
    expect(without).toContain("Demonstrate it again from Learn");
  });
});
