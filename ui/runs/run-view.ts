import type { AbilityRunSpec, ConfirmationReason, RunInputSpec, RunRecord, RunState, RunStepResult } from "../../shared/execution/run-contract";
import type { TabRunAccessReply } from "../../shared/observation/panel-messages";
import type { CheckpointProgressRow } from "../review/checkpoints/checkpoint-progress";
import { assertNever } from "../../shared/common/assert-never";

/** How each input type is asked for; a secret is always a password field, whatever its type. */
export type RunFieldKind = "text" | "textarea" | "email" | "tel" | "number" | "date" | "url" | "password";

export function fieldKind(input: RunInputSpec): RunFieldKind {
  if (input.secret || input.type === "secret") return "password";
  switch (input.type) {
    case "long_text":
      return "textarea";
    case "email":
      return "email";
    case "phone":
      return "tel";
    case "number":
      return "number";
    case "date":
      return "date";
    case "url":
      return "url";
    // A run's input values are text (StartRunRequest): a file is named by its path on this computer.
    case "file":
    case "text":
      return "text";
    default:
      return assertNever(input.type);
  }
}

/** A hint under an input that needs one. */
export function fieldHint(input: RunInputSpec): string | undefined {
  if (input.secret || input.type === "secret") return "Used for this run only, then forgotten: never saved by the panel or the agent.";
  if (input.type === "file") return "The path of the file on this computer.";
  return undefined;
}

/** What must be fixed before Run, in words; empty when the run can start. */
export function runFormProblems(spec: AbilityRunSpec, values: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const input of spec.inputs) {
    const value = (values[input.name] ?? "").trim();
    if (input.required && value === "") problems.push(`Fill in ${input.label}.`);
    else if (value !== "" && input.type === "number" && !Number.isFinite(Number(value))) problems.push(`${input.label} must be a number.`);
    else if (value !== "" && input.type === "email" && !/^[^\s@]+@[^\s@]+$/.test(value)) problems.push(`${input.label} must be an email address.`);
  }
  return problems;
}

/** The values to send: empty optional inputs are left out, so the skill's own default applies. */
export function runInputValues(spec: AbilityRunSpec, values: Readonly<Record<string, string>>): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const input of spec.inputs) {
    const value = values[input.name] ?? "";
    if (value.trim() !== "") sent[input.name] = value;
  }
  return sent;
}

/**
 * The agent writes a skill's parameters as `{{name}}` in goals and step labels; a person reads the
 * input's label instead (“Access code”). Only names are replaced: a run's labels never hold values.
 */
export function readable(text: string, inputs: readonly Pick<RunInputSpec, "name" | "label">[]): string {
  const labels = new Map(inputs.map((input) => [input.name, input.label]));
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (whole, name: string) => {
    const label = labels.get(name);
    return label === undefined ? whole : `“${label}”`;
  });
}

/**
 * Why the extension cannot lend a tab now, in words; null when it can. The person's consent is
 * asked separately (it is a question, not a problem).
 */
export function tabRunProblem(reply: TabRunAccessReply | null): string | null {
  if (reply === null) return "The extension did not answer. Reload it, or run it in a separate browser.";
  if (!reply.debugger_available) return "Chrome does not let this extension act in your tabs here (a policy withholds it). Run it in a separate browser.";
  if (reply.recording_active) return "A demonstration is being recorded: runs in your browser wait until it ends, so nothing they type is recorded.";
  if (reply.run_active) return "The assistant is already acting in one of your tabs. Wait for that run to end, or stop it.";
  if (reply.connection !== "connected")
    return `The extension is not connected to the agent (${reply.connection.replace("_", " ")}). Run it in a separate browser, or try again in a moment.`;
  if (!reply.ready && reply.in_tab_allowed) return "The extension cannot lend a tab right now.";
  return null;
}

/** "About to: <step>. <what it does>": why the run waits for the person. */
export const CONFIRMATION_CONSEQUENCE: Record<ConfirmationReason, string> = {
  committing_submit: "This sends what the run filled in; it may not be possible to take it back.",
  destructive: "This deletes or changes something that may not be possible to undo.",
  marked: "The skill marks this step as one with consequences: it may send, pay, delete or publish.",
};

export const RUN_STATE_LABEL: Record<RunState, string> = {
  starting: "Starting",
  running: "Running",
  needs_confirmation: "Waiting for you",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Stopped",
  interrupted: "Interrupted",
};

export const RUN_WHERE_LABEL = { managed: "In a separate browser", user_tab: "In my browser" } as const;

export const STEP_RESULT_VIEW: Record<RunStepResult["result"], { symbol: string; label: string }> = {
  passed: { symbol: "✓", label: "Done" },
  failed: { symbol: "✕", label: "Failed" },
  skipped: { symbol: "↷", label: "Skipped" },
};

/**
 * The checkpoint rows of a run: every checkpoint of the ability in its order, each with the
 * status the run has given it so far ("not yet reached" until then); a checkpoint the run reports
 * that the run-spec did not list comes after them.
 */
export function runCheckpointRows(
  spec: Pick<AbilityRunSpec, "checkpoints" | "inputs"> | undefined,
  run: Pick<RunRecord, "checkpoints">,
): CheckpointProgressRow[] {
  const results = new Map(run.checkpoints.map((checkpoint) => [checkpoint.checkpoint_id, checkpoint]));
  const inputs = spec?.inputs ?? [];
  const row = (checkpointId: string, goal: string, result: RunRecord["checkpoints"][number] | undefined): CheckpointProgressRow => {
    const status = result?.status ?? "not_reached";
    const evidence = result?.evidence === undefined ? undefined : readable(result.evidence, inputs);
    // A failed checkpoint's evidence is why it failed: shown once, as the reason.
    const said = evidence === undefined ? {} : status === "failed" || status === "skipped" ? { reason: evidence } : { evidence };
    return { checkpoint_id: checkpointId, goal: readable(goal, inputs), status, ...said };
  };
  const rows: CheckpointProgressRow[] = [];
  const seen = new Set<string>();
  for (const checkpoint of spec?.checkpoints ?? []) {
    seen.add(checkpoint.checkpoint_id);
    rows.push(row(checkpoint.checkpoint_id, checkpoint.goal, results.get(checkpoint.checkpoint_id)));
  }
  for (const result of run.checkpoints) {
    if (!seen.has(result.checkpoint_id)) rows.push(row(result.checkpoint_id, result.goal, result));
  }
  return rows;
}

/** One line that says how a run ended (or where it is). */
export function runOutcome(run: RunRecord, rows: readonly CheckpointProgressRow[]): string {
  const proved = rows.filter((row) => row.status === "reached").length;
  const of = rows.length === 0 ? "" : ` (${proved} of ${rows.length} checkpoints proved)`;
  switch (run.state) {
    case "succeeded":
      return rows.length === 0 ? "Done." : proved === rows.length ? `Done: every checkpoint proved${of}.` : `Done${of}.`;
    case "failed":
      return `It stopped${of}: ${run.failure?.message ?? "a checkpoint did not hold"}`;
    case "cancelled":
      return `Stopped before the end${of}.`;
    case "interrupted":
      return `Interrupted: the agent stopped while it was running${of}. It is not resumed on its own.`;
    case "starting":
      return "Opening the browser…";
    case "running":
      return `Working${of}.`;
    case "needs_confirmation":
      return `Waiting for your answer before it goes on${of}.`;
    default:
      return assertNever(run.state);
  }
}
