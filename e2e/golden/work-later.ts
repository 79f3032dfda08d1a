/**
 * Issue #35's later use of a work app's proposal, as a person does it: validate with test values
 * they give (the agent's own rehearsal, under the test policy set on the session), install, then a
 * run later with NEW inputs through the agent's run route (managed browser), checked in the app's
 * own state. Every answer the agent gave is written under `out` when asked, for the report.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AbilityRunSpec, RunRecord, RunResponse } from "../../shared/execution/run-contract";
import type { SkillParameter, CheckpointPlan } from "../../shared/execution/checkpoint-plan";
import { parseSuccessCondition } from "../../shared/learning/checkpoints/success-conditions";
import type { agentApi } from "./demonstration";
import type { WorkApp } from "./work-apps/app-kit";
import { valuesFor, type WorkSetup } from "./work-flows";

export interface LaterUse {
  /** `passed`, `failed`, `partial`, or `refused: <code>`. */
  validation: string;
  /** The validation steps that did not pass, `<test_case_id> <result>: <details>`. */
  validationFails: string[];
  /** `yes`, or `refused: <code>` / `not tried`. */
  installed: string;
  /** The run's end state (`succeeded`, `failed: <code>` …) or `not run`. */
  run: string;
  /** `yes`, or why the app's state does not hold the run's new inputs. */
  verified: string;
  /** Checkpoints whose evidence names a non-secret parameter ({{title}}), and ones that name a secret. */
  goalCheckpoints: number;
  secretCheckpoints: number;
}

type Api = ReturnType<typeof agentApi>;

const codeOf = (error: unknown) => {
  const text = error instanceof Error ? error.message : String(error);
  const code = /"code"\s*:\s*"([A-Z_]+)"/.exec(text)?.[1];
  return `${code ?? "ERROR"} (${text.slice(0, 300)})`;
};

/** Machine-checkable checkpoints whose success condition names a non-secret parameter in `{{…}}`, and any checkpoint that names a secret one. */
export function checkpointParameters(checkpoints: readonly CheckpointPlan[], parameters: readonly SkillParameter[]): { goal: number; secret: number } {
  const secret = new Set(parameters.filter((parameter) => parameter.type_hint === "secret").map((parameter) => parameter.name));
  const named = (checkpoint: CheckpointPlan) => [...checkpoint.success_condition.matchAll(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g)].map((match) => match[1] ?? "");
  // Goal evidence a later run can check: the page shows an input, not a person's say-so.
  const checkable = (checkpoint: CheckpointPlan) => parseSuccessCondition(checkpoint.success_condition).kind !== "by_hand";
  return {
    goal: checkpoints.filter((checkpoint) => checkable(checkpoint) && named(checkpoint).some((name) => !secret.has(name))).length,
    secret: checkpoints.filter((checkpoint) => named(checkpoint).some((name) => secret.has(name))).length,
  };
}

export async function laterUse(options: {
  api: Api;
  proposalId: string;
  setup: WorkSetup;
  app: WorkApp;
  parameters: readonly SkillParameter[];
  checkpoints: readonly CheckpointPlan[];
  save: (name: string, value: unknown) => Promise<void>;
  phase: (what: string) => void;
}): Promise<LaterUse & { typedValues: string[] }> {
  const { api, proposalId, setup, app, parameters, save, phase } = options;
  const counted = checkpointParameters(options.checkpoints, parameters);
  const testValues = valuesFor(setup, parameters, "validation");
  const typedValues = Object.values(testValues);
  const result: LaterUse = {
    validation: "not tried",
    validationFails: [],
    installed: "not tried",
    run: "not run",
    verified: "not checked",
    goalCheckpoints: counted.goal,
    secretCheckpoints: counted.secret,
  };
  try {
    // Diagnosis only (never the default): `LQ_DIAGNOSE_NO_REHEARSAL=1` validates without the
    // rehearsal so that the install and the later run can be watched while the rehearsal still
    // fails; the validation then reads "diagnosis …", never "passed", so its target stays missed.
    const diagnose = process.env.LQ_DIAGNOSE_NO_REHEARSAL === "1";
    const validated = await api<{ validation_run: { overall_result: string } }>("POST", `/api/learn/proposals/${proposalId}/validate`, {
      test_values: testValues,
      ...(diagnose ? { selected_tests: ["lint", "trigger", "dependency_check"] } : {}),
      schema_version: 1,
    });
    result.validation = diagnose ? `diagnosis without rehearsal: ${validated.validation_run.overall_result}` : validated.validation_run.overall_result;
  } catch (error) {
    result.validation = `refused: ${codeOf(error)}`;
  }
  // A refused validation keeps its failed run too: its steps say where it stopped.
  const runs = await api<{ steps: Array<{ test_case_id: string; result: string; details?: string; label?: string }> }>(
    "GET",
    `/api/learn/proposals/${proposalId}/validation-runs`,
  ).catch(() => ({ steps: [] }));
  await save("validation-runs.json", runs);
  result.validationFails = runs.steps
    .filter((step) => step.result !== "passed")
    .map((step) => `${step.test_case_id} ${step.result}: ${step.label ?? ""} — ${(step.details ?? "").slice(0, 400)}`);
  phase(`validated (${result.validation})`);
  await save("state-after-validation.json", await app.state());
  let abilityId: string | undefined;
  try {
    abilityId = (await api<{ ability_id: string }>("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).ability_id;
    result.installed = "yes";
  } catch (error) {
    result.installed = `refused: ${codeOf(error)}`;
  }
  phase(`install: ${result.installed.slice(0, 80)}`);
  if (abilityId === undefined) return { ...result, typedValues };

  const spec = await api<AbilityRunSpec>("GET", `/api/abilities/${abilityId}/run-spec`);
  await save("run-spec.json", spec);
  const runValues = valuesFor(
    setup,
    spec.inputs.map((input) => ({ name: input.name, label: input.label, type_hint: input.type })),
    "run",
  );
  typedValues.push(...Object.values(runValues));
  let run: RunRecord | undefined;
  try {
    const started = await api<RunResponse>("POST", "/api/runs", { ability_id: abilityId, inputs: runValues, where: "managed", schema_version: 1 });
    run = started.run;
    for (const deadline = Date.now() + 150_000; run.completed_at === undefined && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      run = (await api<RunResponse>("GET", `/api/runs/${run.dispatch_id}`)).run;
      // The person confirms a committing step when asked (here the harness is the person).
      if (run.state === "needs_confirmation" && run.pending_confirmation !== undefined) {
        await api("POST", `/api/runs/${run.dispatch_id}/confirm`, {
          confirmation_id: run.pending_confirmation.confirmation_id,
          decision: "confirm",
          schema_version: 1,
        });
      }
    }
    await save("run.json", run);
    result.run =
      run.state === "succeeded"
        ? "succeeded"
        : `${run.state}${run.failure === undefined ? "" : `: ${run.failure.code} (${run.failure.message.slice(0, 200)})`}`;
  } catch (error) {
    result.run = `refused: ${codeOf(error)}`;
  }
  phase(`run: ${result.run.slice(0, 80)}`);
  const state = await app.state();
  await save("state-after-run.json", state);
  // The expected values by role, whatever the parameters were called.
  const expected = setup.values("run");
  result.verified = setup.verify(state, expected) ?? "yes";
  return { ...result, typedValues };
}

/** Every file under `root` whose text holds one of `needles` (case-insensitive), as `needle (in file)`. */
export async function storedAnywhere(root: string, needles: readonly string[]): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries.filter((candidate) => candidate.isFile())) {
    const file = path.join(entry.parentPath, entry.name);
    const text = (await readFile(file, "utf8").catch(() => "")).toLowerCase();
    for (const needle of needles) if (needle.length >= 6 && text.includes(needle.toLowerCase())) found.push(`${needle} (in ${path.relative(root, file)})`);
  }
  return found;
}

/** Writes what a fixture produced under `out/<fixture>/` (nothing when `out` is undefined). */
export function saverFor(out: string | undefined, fixture: string) {
  return async (name: string, value: unknown) => {
    if (out === undefined) return;
    const folder = path.join(out, fixture);
    await mkdir(path.dirname(path.join(folder, name)), { recursive: true });
    await writeFile(path.join(folder, name), typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`);
  };
}
