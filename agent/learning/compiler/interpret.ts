import type { LearningQuestion } from "../../../shared/learning/proposal";
import type { WorkflowCheckpoint } from "../../../shared/learning/semantic-workflow-interpretation";
import type { WorkflowGraph, WorkflowStep } from "../../../shared/learning/workflow-graph";
import type { ControlSurface } from "../../../shared/capabilities/control-surface";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { PORTABLE_SKILL_NAME_PATTERN } from "../../../shared/skills/frontmatter";
import type { NormalizedStep, NormalizedTrace } from "./normalize-trace";
import { triggerPhrasings } from "./trigger-phrasing";

/** A value the skill asks for at run time instead of repeating what was typed (DESIGN §6.2). */
export interface SkillParameter {
  name: string;
  label: string;
  type_hint: "text" | "long_text" | "email" | "phone" | "number" | "date" | "url" | "secret" | "file";
  /** Steps that use it: a hashed value typed twice is one parameter. */
  step_ids: string[];
}

/** A checkpoint with what the skill body says about it. */
export interface CheckpointPlan extends WorkflowCheckpoint {
  /** Where it happens (page title), for the guidance. */
  where?: string | undefined;
  /** Controls involved, by accessible name: what a runtime agent looks for on a changed page. */
  controls: Array<{ name: string; role: string; parameter?: string | undefined; choice?: string | undefined }>;
  step_ids: string[];
  observable: boolean;
}

/** Answers the user gave to earlier questions, by question field. */
export type AnswersByField = Partial<Record<LearningQuestion["field"], string>>;

export interface Interpretation {
  title: string;
  slug: string;
  goal_summary: string;
  use_conditions: string[];
  non_use_conditions: string[];
  project_scope: "global" | "project_scoped" | "unclear";
  preferred_control_surfaces: ControlSurface[];
  parameters: SkillParameter[];
  checkpoints: CheckpointPlan[];
  graph: WorkflowGraph;
  triggers: string[];
  negative_triggers: string[];
  /** Questions still needed, without ids (the proposal service gives them ids). */
  questions: Array<{ field: LearningQuestion["field"]; prompt: string; required: boolean }>;
  site: string | undefined;
  /** The frontmatter version; absent for a first draft (emit-skill's FIRST_SKILL_VERSION). */
  version?: string | undefined;
}

/**
 * §0C.4 Improving Existing Skill: what the installed skill already says, read from its SKILL.md.
 * The demonstration supplies new steps, parameters and checkpoints; the skill keeps its name (so
 * installing upgrades it), and its title, purpose, conditions and triggers unless the user's
 * answers change them.
 */
export interface ImprovedSkillBase {
  slug: string;
  title: string;
  goal_summary: string;
  use_conditions: string[];
  non_use_conditions: string[];
  triggers: string[];
  negative_triggers: string[];
  /** The version the proposal will carry (the installed one's successor). */
  next_version: string;
}

const TYPE_HINTS: Record<string, SkillParameter["type_hint"]> = {
  email: "email",
  tel: "phone",
  number: "number",
  date: "date",
  "datetime-local": "date",
  month: "date",
  url: "url",
  password: "secret",
  file: "file",
};

export function slugify(text: string, max = 40): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, max)
    .replace(/_+$/, "");
}

function skillSlug(title: string): string {
  const slug = slugify(title, 60).replace(/_/g, "-");
  const padded = slug.length >= 2 ? slug : `learned-${slug || "skill"}`;
  return PORTABLE_SKILL_NAME_PATTERN.test(padded) ? padded : "learned-skill";
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

function lowerFirst(text: string): string {
  return text.length === 0 ? text : text[0]?.toLowerCase() + text.slice(1);
}

/** Names the parameters: one per masked field, one per distinct hashed value (DESIGN §6.2). */
function extractParameters(steps: readonly NormalizedStep[]): SkillParameter[] {
  const parameters: SkillParameter[] = [];
  const byHash = new Map<string, SkillParameter>();
  const taken = new Set<string>();
  for (const step of steps) {
    const entered = step.action === "fill" || step.action === "upload";
    if (!entered || (step.masked_value === undefined && step.consented_value === undefined && step.action !== "upload")) continue;
    const hash = step.masked_value?.value_hash;
    const same = hash === undefined ? undefined : byHash.get(hash);
    if (same !== undefined) {
      same.step_ids.push(step.step_id);
      continue;
    }
    const label = step.target_name ?? "value";
    let name = slugify(label) || "value";
    if (/^\d/.test(name)) name = `field_${name}`;
    let unique = name;
    for (let n = 2; taken.has(unique); n += 1) unique = `${name}_${n}`;
    taken.add(unique);
    const secret = step.masked_value?.reason !== undefined && /secret|password|card|otp|one[-_ ]?time/i.test(step.masked_value.reason);
    const typeHint =
      secret ? "secret" : step.action === "upload" ? "file" : step.target_tag === "textarea" || step.target_role === "textbox" && step.input_type === undefined && step.target_tag !== "input" ? "long_text" : TYPE_HINTS[step.input_type ?? ""] ?? "text";
    const parameter: SkillParameter = { name: unique, label, type_hint: typeHint, step_ids: [step.step_id] };
    parameters.push(parameter);
    if (hash !== undefined) byHash.set(hash, parameter);
  }
  return parameters;
}

/** What changed between two snapshots, as observable evidence, best first. */
function evidence(before: PageSnapshot | undefined, after: PageSnapshot | undefined): string | undefined {
  if (after === undefined) return undefined;
  const newStatuses = after.status_messages.filter((message) => !(before?.status_messages ?? []).includes(message));
  // A message carrying this run's numbers (an order number) would not match the next run.
  const stableStatus = newStatuses.find((message) => !/\d{3,}/.test(message));
  if (stableStatus !== undefined) return `The page says "${stableStatus}"`;
  const openedDialog = after.dialogs.find((dialog) => dialog.open && !(before?.dialogs ?? []).some((old) => old.open && old.name === dialog.name));
  if (openedDialog !== undefined) return openedDialog.name ? `A dialog "${openedDialog.name}" is open` : "A dialog is open";
  const closedDialog = (before?.dialogs ?? []).find((dialog) => dialog.open && !after.dialogs.some((now) => now.open && now.name === dialog.name));
  if (closedDialog !== undefined && closedDialog.name) return `The "${closedDialog.name}" dialog is closed`;
  if (before === undefined || after.title !== before.title) {
    if (after.title.trim().length > 0) return `A page titled "${after.title}" is shown`;
  }
  const newHeading = after.headings.find((heading) => !(before?.headings ?? []).some((old) => old.text === heading.text) && !/\d{3,}/.test(heading.text));
  if (newHeading !== undefined) return `The heading "${newHeading.text}" appears`;
  const numbered = newStatuses[0];
  if (numbered !== undefined) return `The page says "${numbered.replace(/\d{3,}/g, "…")}" (with this run's own number)`;
  const newButton = after.buttons.find((name) => !(before?.buttons ?? []).includes(name));
  if (newButton !== undefined) return `A "${newButton}" button appears`;
  return undefined;
}

function stageGoal(stage: NormalizedStep[], parameterOf: ReadonlyMap<string, SkillParameter>, nextTitle: string | undefined): string {
  const labelled = stage.find((step) => step.user_labelled);
  if (labelled !== undefined) return labelled.label;
  const last = stage.at(-1) as NormalizedStep;
  const used = [...new Set(stage.map((step) => parameterOf.get(step.step_id)).filter((parameter): parameter is SkillParameter => parameter !== undefined))];
  const inputs = used.map((parameter) => `{{${parameter.name}}}`).join(", ");
  const target = last.target_name ?? last.page_title ?? "the form";
  switch (last.action) {
    case "navigate":
      return `The "${last.page_title ?? target}" page is open`;
    case "command":
    case "launch":
      return `"${target}" has run successfully`;
    default:
      if (used.length > 0) return `"${target}" is completed with ${inputs}`;
      if (nextTitle !== undefined && nextTitle !== last.page_title) return `The "${nextTitle}" page is reached through "${target}"`;
      return `"${target}" has taken effect`;
  }
}

export interface InterpretInput {
  trace: NormalizedTrace;
  snapshots: ReadonlyMap<string, PageSnapshot>;
  answers: AnswersByField;
  /** `target_kind = existing_skill`: the installed skill this demonstration improves. */
  improves?: ImprovedSkillBase | undefined;
}

/**
 * DESIGN §6.2: meaning from a normalized demonstration, deterministically — names from
 * accessible names and page titles, parameters from masked fields, checkpoints from state changes,
 * and a question for everything that cannot be inferred.
 */
export function interpretTrace(input: InterpretInput): Interpretation {
  const { trace, snapshots, answers } = input;
  const steps = trace.steps;
  const parameters = extractParameters(steps);
  const parameterOf = new Map(parameters.flatMap((parameter) => parameter.step_ids.map((stepId) => [stepId, parameter] as const)));
  const stepById = new Map(steps.map((step) => [step.step_id, step]));
  const snapshotOf = (ref: string | undefined) => (ref?.startsWith("snapshot:") ? snapshots.get(ref.slice("snapshot:".length)) : undefined);

  // A stage ends where the page changed state: each stage becomes a checkpoint.
  const stages: NormalizedStep[][] = [];
  let current: NormalizedStep[] = [];
  for (const step of steps) {
    current.push(step);
    const ends = step.caused_state_change || step.action === "submit" || step.action === "navigate" || step.action === "command";
    if (ends) {
      stages.push(current);
      current = [];
    }
  }
  if (current.length > 0) stages.push(current);

  const checkpoints: CheckpointPlan[] = stages.map((stage, index) => {
    const first = stage[0] as NormalizedStep;
    const last = stage.at(-1) as NormalizedStep;
    const after = snapshotOf(last.after_state_ref);
    // A page opened with no snapshot yet still shows its title: that is what proves it is open.
    const found =
      evidence(snapshotOf(first.before_state_ref), after) ??
      (last.action === "navigate" && last.page_title !== undefined && last.page_title.trim().length > 0 ? `A page titled "${last.page_title}" is shown` : undefined);
    const observable = found !== undefined;
    const success =
      found ?? (index === stages.length - 1 && answers.success_condition !== undefined ? answers.success_condition : "Not yet known: ask the user what shows this worked");
    return {
      checkpoint_id: `cp-${String(index + 1).padStart(2, "0")}`,
      goal: stageGoal(stage, parameterOf, after?.title),
      success_condition: success.slice(0, 240),
      order_hint: index,
      where: first.page_title,
      controls: stage
        .filter((step) => step.target_name !== undefined && step.action !== "navigate")
        .map((step) => ({
          name: step.target_name as string,
          role: step.target_role ?? step.action,
          parameter: parameterOf.get(step.step_id)?.name,
          // The option picked in a list is part of the page, not something typed: keep it as guidance.
          choice: step.action === "select" ? /^Select '(.+)' in '/.exec(step.label)?.[1] : undefined,
        })),
      step_ids: stage.map((step) => step.step_id),
      observable: observable || (index === stages.length - 1 && answers.success_condition !== undefined),
    };
  });

  const site = hostOf(trace.pages[0]?.url);
  const siteTitle = trace.pages[0]?.title;
  const lastTarget = [...steps].reverse().find((step) => step.target_name !== undefined && step.action !== "navigate")?.target_name;
  const base = input.improves;
  const goal = answers.goal_summary ?? trace.goal;
  const title = (answers.name ?? base?.title ?? goal ?? (lastTarget !== undefined ? `${lastTarget}${siteTitle ? ` on ${siteTitle}` : ""}` : siteTitle ?? "Learned ability")).slice(0, 160);
  const goalSummary = (goal ?? base?.goal_summary ?? `${title}.`).slice(0, 600);
  const split = (text: string | undefined) =>
    (text ?? "")
      .split(/\n|;/)
      .map((line) => line.trim())
      .filter((line) => line.length > 0)
      .map((line) => line.slice(0, 240));

  const useConditions =
    answers.use_conditions !== undefined
      ? split(answers.use_conditions)
      : base !== undefined && base.use_conditions.length > 0
        ? base.use_conditions
        : [`When the user asks to ${lowerFirst(title)}`];
  const nonUse = answers.non_use_conditions !== undefined ? split(answers.non_use_conditions) : (base?.non_use_conditions ?? []);
  const scopeAnswer = answers.project_scope?.toLowerCase();
  const projectScope = scopeAnswer === undefined ? "unclear" : /project|matter|only/.test(scopeAnswer) ? "project_scoped" : "global";
  const web = steps.some((step) => step.page_url !== undefined);

  const graphSteps: WorkflowStep[] = [];
  for (const checkpoint of checkpoints) {
    for (const stepId of checkpoint.step_ids) {
      const step = stepById.get(stepId) as NormalizedStep;
      graphSteps.push({ step_id: step.step_id, step_type: "action", label: step.label.slice(0, 240), preferred_surfaces: [], next_step_ids: [], schema_version: 1 });
    }
    graphSteps.push({
      step_id: `verify-${checkpoint.checkpoint_id}`,
      step_type: "verification",
      label: checkpoint.goal.slice(0, 240),
      description: checkpoint.success_condition,
      preferred_surfaces: [],
      next_step_ids: [],
      verification_rule_ref: checkpoint.checkpoint_id,
      schema_version: 1,
    });
  }
  graphSteps.forEach((step, index) => {
    const next = graphSteps[index + 1];
    if (next !== undefined) step.next_step_ids = [next.step_id];
  });

  const questions: Interpretation["questions"] = [];
  if (goal === undefined && base === undefined) {
    questions.push({ field: "goal_summary", prompt: "What is this ability for? Describe the outcome in one sentence (for example: \"Submit a travel expense for approval\").", required: true });
  }
  if (checkpoints.some((checkpoint) => !checkpoint.observable) && answers.success_condition === undefined) {
    questions.push({ field: "success_condition", prompt: "How can you tell it worked? Describe what the page shows when the task is done.", required: true });
  }
  if (answers.use_conditions === undefined) {
    questions.push({ field: "use_conditions", prompt: "When should your assistant use this ability? List requests or situations, one per line.", required: false });
  }
  if (answers.non_use_conditions === undefined) {
    questions.push({ field: "non_use_conditions", prompt: "When should it NOT use this ability, even if a request sounds similar?", required: false });
  }
  if (answers.project_scope === undefined) {
    questions.push({ field: "project_scope", prompt: "Is this for all your work, or only for one project?", required: false });
  }

  const derived = triggerPhrasings({ title, useConditions, site, pages: trace.pages, snapshots });
  // An improved skill keeps the triggers it was installed with (the user may have edited them);
  // only answers that change its name or use conditions bring new ones.
  const triggers =
    base === undefined
      ? derived
      : [...new Set([...base.triggers, ...(answers.name !== undefined || answers.use_conditions !== undefined ? derived : [])].map((text) => text.slice(0, 120)))].slice(0, 20);
  const negativeTriggers =
    base === undefined || answers.non_use_conditions !== undefined ? nonUse.map((line) => line.slice(0, 120)).slice(0, 8) : base.negative_triggers.slice(0, 20);
  return {
    title,
    slug: base?.slug ?? skillSlug(answers.name ?? title),
    goal_summary: goalSummary,
    use_conditions: useConditions,
    non_use_conditions: nonUse,
    project_scope: projectScope,
    preferred_control_surfaces: web ? ["native_openclaw_browser"] : ["wrapper_script"],
    parameters,
    checkpoints,
    graph: {
      workflow_id: `wf-${skillSlug(title)}`.slice(0, 120),
      title: title.slice(0, 200),
      entry_step_id: graphSteps[0]?.step_id ?? "s1",
      steps: graphSteps.length > 0 ? graphSteps : [{ step_id: "s1", step_type: "ask_user", label: "Ask the user to demonstrate the task", preferred_surfaces: [], next_step_ids: [], schema_version: 1 }],
      schema_version: 1,
    },
    triggers,
    negative_triggers: negativeTriggers,
    questions,
    site,
    ...(base === undefined ? {} : { version: base.next_version }),
  };
}
