import { describe, expect, it } from "vitest";
import type { RehearsalResult } from "../../agent/learning/validation/rehearsal";
import { qualityTargets, verdict, type Row } from "./quality-table";

const rehearsal = (overall: RehearsalResult["overall"]): RehearsalResult => ({
  overall,
  steps: [],
  started_at: "2026-11-25T00:00:00Z",
  completed_at: "2026-11-25T00:00:01Z",
});

/** A fixture whose every figure meets its target: 4 steps, 5 checkpoints, two variants. */
function row(fixture: string, change: Partial<Row> = {}): Row {
  const variant = (name: string) => ({
    name,
    result: rehearsal("passed"),
    actionsPassed: 3,
    actions: 3,
    checkpointsPassed: 5,
    checkpointsTotal: 5,
    relocated: 0,
  });
  return {
    fixture,
    pattern: "a pattern",
    steps: 4,
    humanLabels: 4,
    roleOnly: 0,
    checkpoints: 5,
    checkable: 5,
    asked: false,
    unchanged: rehearsal("passed"),
    unchangedEvidenceFails: 0,
    variants: [variant("banner + wrappers"), variant("classes renamed + list wrappers")],
    leaked: [],
    ...change,
  };
}

const missed = (rows: Row[], notLearned: string[] = []) =>
  qualityTargets(rows, notLearned)
    .filter((target) => !target.met)
    .map((target) => target.name);

describe("the learn-quality verdict", () => {
  it("exits 0 and says so when every target is met, printing the lines as before", () => {
    const targets = qualityTargets([row("tasks"), row("counter")], []);
    expect(verdict(targets)).toEqual({ line: "every target met", exitCode: 0 });
    expect(targets.map((target) => target.line).filter((line) => line !== "")).toEqual([
      "checkpoints machine-checkable: 10/10 = 100.0% (target ≥ 90%)",
      "unchanged rehearsals passed: 2/2 (target: all)",
      "variant action steps passed: 12/12 = 100.0% (target ≥ 95%)",
      "variant checkpoints passed: 20/20 = 100.0% (target: all)",
      "checkpoints whose evidence fails on the unchanged app: 0 (target 0)",
      "steps with a human label: 8/8 = 100.0%; named only by role: 0 (target ≥ 95%, 0)",
      "typed values found in what the agent stored: none",
    ]);
  });

  it("exits 1 and names the target when one fixture could not be learned, the others all passing", () => {
    const targets = qualityTargets([row("tasks")], ["apply"]);
    expect(verdict(targets)).toEqual({ line: "targets missed: every fixture learned", exitCode: 1 });
    expect(targets.at(-1)?.line).toBe("fixtures that could not be learned (count as failed): apply");
  });

  it("misses each target on its own figure", () => {
    expect(missed([row("tasks"), row("counter", { unchanged: rehearsal("partial") })])).toEqual(["unchanged rehearsals all passed"]);
    expect(missed([row("tasks", { unchangedEvidenceFails: 1 })])).toEqual(["no checkpoint evidence failing on the unchanged app"]);
    expect(missed([row("tasks", { leaked: ["Canary quinoa R8WD (in …)"] })])).toEqual(["no typed value stored"]);
    const oneCheckpointFails = row("tasks");
    oneCheckpointFails.variants[1] = { ...oneCheckpointFails.variants[1]!, checkpointsPassed: 4, result: rehearsal("failed") };
    expect(missed([oneCheckpointFails])).toEqual(["variant checkpoints all passed"]);
  });

  it("holds the percentage targets at their bounds: 90% checkable, 95% variant actions and human labels", () => {
    expect(missed([row("a", { checkpoints: 10, checkable: 9 })])).toEqual([]);
    expect(missed([row("a", { checkpoints: 10, checkable: 8 })])).toEqual(["checkpoints machine-checkable ≥ 90%"]);

    const actions = (passed: number) =>
      row("a", {
        variants: [{ name: "v", result: rehearsal("passed"), actionsPassed: passed, actions: 20, checkpointsPassed: 5, checkpointsTotal: 5, relocated: 0 }],
      });
    expect(missed([actions(19)])).toEqual([]);
    expect(missed([actions(18)])).toEqual(["variant action steps ≥ 95%"]);

    // One step in twenty named only by its role: 95% have a human label, but the target also wants none by role.
    expect(missed([row("a", { steps: 20, humanLabels: 19, roleOnly: 1 })])).toEqual(["steps with a human label ≥ 95%, none named only by role"]);
  });

  it("meets no target when nothing was measured, and lists every missed one on the last line", () => {
    const targets = qualityTargets([], ["tasks", "counter"]);
    const { line, exitCode } = verdict(targets);
    expect(exitCode).toBe(1);
    expect(line).toBe(
      "targets missed: checkpoints machine-checkable ≥ 90%; unchanged rehearsals all passed; variant action steps ≥ 95%; variant checkpoints all passed; steps with a human label ≥ 95%, none named only by role; every fixture learned",
    );
  });

  it("holds each work app (issue #35) to validated, installed, a run verified in the app's state and a checkpoint naming a parameter", () => {
    const later = { validation: "passed", validationFails: [], installed: "yes", run: "succeeded", verified: "yes", goalCheckpoints: 1, secretCheckpoints: 0 };
    const targets = qualityTargets([row("tasks"), row("wiki", { later })], []);
    expect(verdict(targets).exitCode).toBe(0);
    expect(targets.map((target) => target.line)).toContain("work apps run with new inputs, verified in the app's state: 1/1 (target: all)");
    expect(
      missed([
        row("wiki", { later: { ...later, validation: "failed", installed: "refused: PROPOSAL_NOT_VALIDATED", run: "not run", verified: "not checked" } }),
      ]),
    ).toEqual(["work apps validated passed", "work apps installed", "work apps run with new inputs verified in app state"]);
    // A run that "succeeded" without the page in the app's state is a miss.
    expect(missed([row("wiki", { later: { ...later, verified: 'no page titled "Page run"' } })])).toEqual([
      "work apps run with new inputs verified in app state",
    ]);
    expect(missed([row("wiki", { later: { ...later, goalCheckpoints: 0 } })])).toEqual(["work apps with a checkpoint naming a parameter, none a secret"]);
    expect(missed([row("wiki", { later: { ...later, secretCheckpoints: 1 } })])).toEqual(["work apps with a checkpoint naming a parameter, none a secret"]);
  });
});
