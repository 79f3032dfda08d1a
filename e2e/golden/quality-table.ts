/**
 * The table `npm run learn-quality` prints (issue #14) and what decides its exit code: every
 * summary line is a target, and the run fails (exit 1) when any target is missed or a fixture
 * could not be learned at all, as `npm run bench` does.
 */
import type { RehearsalResult } from "../../agent/learning/validation/rehearsal";
import { VARIANTS } from "./quality-variants";
import type { LaterUse } from "./work-later";

export interface Row {
  fixture: string;
  pattern: string;
  steps: number;
  humanLabels: number;
  roleOnly: number;
  checkpoints: number;
  checkable: number;
  asked: boolean;
  unchanged: RehearsalResult;
  unchangedEvidenceFails: number;
  variants: Array<{
    name: string;
    result: RehearsalResult;
    actionsPassed: number;
    actions: number;
    checkpointsPassed: number;
    checkpointsTotal: number;
    relocated: number;
  }>;
  leaked: string[];
  /** Issue #35's work apps: validated through the agent, installed, run later with new inputs. */
  later?: LaterUse;
}

/** One summary line of the table and whether its target is met. */
export interface Target {
  /** Short name, for the final line listing what was missed. */
  name: string;
  /** The line as printed (empty when nothing is printed for a met target). */
  line: string;
  met: boolean;
}

const percent = (part: number, whole: number) => (whole === 0 ? "—" : `${((100 * part) / whole).toFixed(1)}%`);

/** At least `least` percent; nothing measured (0 of 0) meets no target. */
const atLeast = (part: number, whole: number, least: number) => whole > 0 && 100 * part >= least * whole;
const all = (part: number, whole: number) => whole > 0 && part === whole;

export function qualityTargets(rows: readonly Row[], notLearned: readonly string[]): Target[] {
  const sum = (pick: (row: Row) => number) => rows.reduce((total, row) => total + pick(row), 0);
  const variantSum = (pick: (variant: Row["variants"][number]) => number) =>
    rows.reduce((total, row) => total + row.variants.reduce((inner, variant) => inner + pick(variant), 0), 0);
  const checkable = sum((row) => row.checkable);
  const checkpoints = sum((row) => row.checkpoints);
  const unchangedPassed = rows.filter((row) => row.unchanged.overall === "passed").length;
  const actionsPassed = variantSum((v) => v.actionsPassed);
  const actions = variantSum((v) => v.actions);
  const variantCheckpointsPassed = variantSum((v) => v.checkpointsPassed);
  const variantCheckpoints = variantSum((v) => v.checkpointsTotal);
  const evidenceFails = sum((row) => row.unchangedEvidenceFails);
  const humanLabels = sum((row) => row.humanLabels);
  const steps = sum((row) => row.steps);
  const roleOnly = sum((row) => row.roleOnly);
  const leaks = rows.flatMap((row) => row.leaked.map((needle) => `${row.fixture}: "${needle}"`));
  const summary: Target[] = [
    {
      name: "checkpoints machine-checkable ≥ 90%",
      line: `checkpoints machine-checkable: ${checkable}/${checkpoints} = ${percent(checkable, checkpoints)} (target ≥ 90%)`,
      met: atLeast(checkable, checkpoints, 90),
    },
    {
      name: "unchanged rehearsals all passed",
      line: `unchanged rehearsals passed: ${unchangedPassed}/${rows.length} (target: all)`,
      met: all(unchangedPassed, rows.length),
    },
    {
      name: "variant action steps ≥ 95%",
      line: `variant action steps passed: ${actionsPassed}/${actions} = ${percent(actionsPassed, actions)} (target ≥ 95%)`,
      met: atLeast(actionsPassed, actions, 95),
    },
    {
      name: "variant checkpoints all passed",
      line: `variant checkpoints passed: ${variantCheckpointsPassed}/${variantCheckpoints} = ${percent(variantCheckpointsPassed, variantCheckpoints)} (target: all)`,
      met: all(variantCheckpointsPassed, variantCheckpoints),
    },
    {
      name: "no checkpoint evidence failing on the unchanged app",
      line: `checkpoints whose evidence fails on the unchanged app: ${evidenceFails} (target 0)`,
      met: evidenceFails === 0,
    },
    {
      name: "steps with a human label ≥ 95%, none named only by role",
      line: `steps with a human label: ${humanLabels}/${steps} = ${percent(humanLabels, steps)}; named only by role: ${roleOnly} (target ≥ 95%, 0)`,
      met: atLeast(humanLabels, steps, 95) && roleOnly === 0,
    },
    {
      name: "no typed value stored",
      line: `typed values found in what the agent stored: ${leaks.length === 0 ? "none" : leaks.join(", ")}`,
      met: leaks.length === 0,
    },
    {
      name: "every fixture learned",
      line: notLearned.length === 0 ? "" : `fixtures that could not be learned (count as failed): ${notLearned.join(", ")}`,
      met: notLearned.length === 0,
    },
  ];
  return [...summary, ...workTargets(rows)];
}

/**
 * Issue #35: each work app (sign-in, then create something) validated `passed`, installed, run later
 * with new inputs and the result found in the app's own state; at least one checkable checkpoint
 * names a parameter ({{title}}) and none names a secret. Printed only when work apps ran.
 */
function workTargets(rows: readonly Row[]): Target[] {
  const work = rows.filter((row): row is Row & { later: LaterUse } => row.later !== undefined);
  if (work.length === 0) return [];
  const names = (pick: (later: LaterUse) => boolean) => work.filter((row) => pick(row.later)).map((row) => row.fixture);
  const line = (what: string, passing: string[]) =>
    `work apps ${what}: ${passing.length}/${work.length}${
      passing.length < work.length
        ? ` (missed: ${work
            .filter((row) => !passing.includes(row.fixture))
            .map((row) => row.fixture)
            .join(", ")})`
        : ""
    } (target: all)`;
  const validated = names((later) => later.validation === "passed");
  const installed = names((later) => later.installed === "yes");
  const verified = names((later) => later.run === "succeeded" && later.verified === "yes");
  const goal = names((later) => later.goalCheckpoints > 0 && later.secretCheckpoints === 0);
  return [
    { name: "work apps validated passed", line: line("validated passed", validated), met: all(validated.length, work.length) },
    { name: "work apps installed", line: line("installed", installed), met: all(installed.length, work.length) },
    {
      name: "work apps run with new inputs verified in app state",
      line: line("run with new inputs, verified in the app's state", verified),
      met: all(verified.length, work.length),
    },
    {
      name: "work apps with a checkpoint naming a parameter, none a secret",
      line: line("with a checkable checkpoint naming a {{parameter}} and none naming a secret", goal),
      met: all(goal.length, work.length),
    },
  ];
}

/** The last line of the run: which targets were missed, or that none was. */
export function verdict(targets: readonly Target[]): { line: string; exitCode: 0 | 1 } {
  const missed = targets.filter((target) => !target.met).map((target) => target.name);
  return missed.length === 0 ? { line: "every target met", exitCode: 0 } : { line: `targets missed: ${missed.join("; ")}`, exitCode: 1 };
}

export function printTable(rows: readonly Row[], targets: readonly Target[]): void {
  const header = [
    "fixture",
    "steps",
    "human labels",
    "checkpoints",
    "checkable",
    "asked",
    "unchanged",
    "evidence fails",
    ...VARIANTS.slice(1).flatMap((variant) => [`${variant.name}: actions`, "checkpoints", "overall"]),
  ];
  const lines = rows.map((row) => [
    row.fixture,
    String(row.steps),
    `${row.humanLabels}/${row.steps}`,
    String(row.checkpoints),
    `${row.checkable}/${row.checkpoints}`,
    row.asked ? "yes" : "no",
    row.unchanged.overall,
    String(row.unchangedEvidenceFails),
    ...row.variants.flatMap((variant) => [
      `${variant.actionsPassed}/${variant.actions}${variant.relocated > 0 ? ` (${variant.relocated} relocated)` : ""}`,
      `${variant.checkpointsPassed}/${variant.checkpointsTotal}`,
      variant.result.overall,
    ]),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)));
  const show = (cells: readonly string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  console.log(show(header));
  console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
  for (const line of lines) console.log(show(line));
  console.log("");
  printWorkTable(rows);
  for (const target of targets) if (target.line !== "") console.log(target.line);
}

function printWorkTable(rows: readonly Row[]): void {
  const work = rows.filter((row): row is Row & { later: LaterUse } => row.later !== undefined);
  if (work.length === 0) return;
  const header = ["work app", "validation", "installed", "run (new inputs)", "in app state", "goal checkpoints", "secret checkpoints", "typed values stored"];
  const lines = work.map((row) => [
    row.fixture,
    row.later.validation.slice(0, 60),
    row.later.installed.slice(0, 60),
    row.later.run.slice(0, 70),
    row.later.verified === "yes" ? "yes" : `no: ${row.later.verified.slice(0, 60)}`,
    `${row.later.goalCheckpoints}/${row.checkpoints}`,
    String(row.later.secretCheckpoints),
    String(row.leaked.length),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)));
  const show = (cells: readonly string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  console.log(show(header));
  console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
  for (const line of lines) console.log(show(line));
  console.log("");
}

export function printFailures(rows: readonly Row[]): void {
  for (const row of rows) {
    for (const [name, result] of [["unchanged", row.unchanged] as const, ...row.variants.map((variant) => [variant.name, variant.result] as const)]) {
      for (const step of result.steps.filter((candidate) => candidate.result !== "passed"))
        console.log(`  ${row.fixture} / ${name} / ${step.test_case_id} ${step.result}: ${step.label} — ${step.details.slice(0, 300)}`);
    }
    for (const step of row.later?.validationFails ?? []) console.log(`  ${row.fixture} / validation through the agent / ${step.slice(0, 400)}`);
  }
}
