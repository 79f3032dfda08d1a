import type { LearningQuestion } from "../../../shared/learning/proposals/learning-questions";
import type { CheckpointPlan, SkillParameter } from "../../../shared/execution/checkpoint-plan";
import type { WorkflowGraph, WorkflowStep } from "../../../shared/learning/checkpoints/workflow-graph";
import type { ControlSurface } from "../../../shared/capabilities/control-surface";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { PORTABLE_SKILL_NAME_PATTERN } from "../../../shared/skills/frontmatter";
import { attributeEvidence, type SnapshotMoment } from "./attribute-evidence";
import type { RelocationHint } from "../../../shared/execution/recorder-flow";
import { cutSubGoals } from "./cut-subgoals";
import type { NormalizedStep, NormalizedTrace } from "./normalize-trace";
import { triggerPhrasings } from "./triggers/trigger-phrasing";
import { extractParameters, slugify } from "./parameters";
import { findSignIns, wordSignIn } from "./sign-in";
import { wordCheckpoints } from "./word-checkpoints";

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
  /** The app's or site's own name, as its page titles carry it ("Log in [Notes]", "Start [Notes]" → "Notes"). */
  site_name?: string | undefined;
  /** The demonstration signed in on the way (issue #35): said in the skill's description. */
  signs_in?: boolean | undefined;
  /** What is known of each step's element beyond its selectors, by step id (relocation, issue #14). */
  targets?: Record<string, RelocationHint> | undefined;
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

export { slugify };

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

/** Parts of a page title around the separators sites put between a page's name and their own. */
function titleParts(title: string): string[] {
  return title
    .split(/\s+[-–—|·:»]\s+|\s*[[\]()]\s*/)
    .map((part) => part.trim())
    .filter((part) => part.length >= 2 && !part.includes("•••"));
}

/**
 * The site's own name: the part of its page titles that every titled page shares ("Log in
 * [Notes]", "Start [Notes]" → "Notes"), when at least two pages were titled. Undefined otherwise.
 */
export function siteName(titles: ReadonlyArray<string | undefined>): string | undefined {
  const titled = [...new Set(titles.filter((title): title is string => title !== undefined && title.trim() !== ""))];
  if (titled.length < 2) return undefined;
  const [first, ...rest] = titled.map(titleParts);
  return first?.find((part) => rest.every((parts) => parts.includes(part)) && part.length <= 60);
}

function lowerFirst(text: string): string {
  return text.length === 0 ? text : text[0]?.toLowerCase() + text.slice(1);
}

export interface InterpretInput {
  trace: NormalizedTrace;
  snapshots: ReadonlyMap<string, PageSnapshot>;
  /** Snapshots the capture took on its own (the page settling after an action), in any order. */
  moments?: readonly SnapshotMoment[] | undefined;
  answers: AnswersByField;
  /** `target_kind = existing_skill`: the installed skill this demonstration improves. */
  improves?: ImprovedSkillBase | undefined;
}

type SnapshotOf = (ref: string | undefined) => PageSnapshot | undefined;

/**
 * Issue #14: credit each lasting change to the action after which it appeared, cut the
 * demonstration into sub-goals where the page's lasting state changed, word each as a checkpoint.
 */
function checkpointsOf(input: InterpretInput, parameterOf: ReadonlyMap<string, SkillParameter>, snapshotOf: SnapshotOf) {
  const steps = input.trace.steps;
  const evidence = attributeEvidence(steps, snapshotOf, input.moments ?? []);
  // Issue #35: a sign-in is a sub-goal of its own, worded as one ("Signed in as {{username}}").
  const { goals, signIns } = findSignIns(cutSubGoals(steps, evidence), parameterOf);
  const finalPage = [...evidence].reverse().find((entry) => entry.settled !== undefined)?.settled ?? snapshotOf(steps.at(-1)?.after_state_ref);
  const worded = wordCheckpoints(goals, parameterOf, input.answers.success_condition, finalPage);
  const checkpoints = worded.checkpoints.map((checkpoint, index) => {
    const signIn = signIns.get(goals[index] as (typeof goals)[number]);
    return signIn === undefined ? checkpoint : wordSignIn(checkpoint, signIn);
  });
  return { ...worded, checkpoints };
}

/** An answer's lines (split at new lines and `;`), trimmed and cut to 240 characters. */
const answerLines = (text: string | undefined) =>
  (text ?? "")
    .split(/\n|;/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => line.slice(0, 240));

/** The workflow graph's steps: each checkpoint's actions, then its verification, in a chain. */
function workflowSteps(
  checkpoints: readonly CheckpointPlan[],
  stepById: ReadonlyMap<string, NormalizedStep>,
  stepLabels: ReadonlyMap<string, string>,
): WorkflowStep[] {
  const graphSteps: WorkflowStep[] = [];
  for (const checkpoint of checkpoints) {
    for (const stepId of checkpoint.step_ids) {
      const step = stepById.get(stepId) as NormalizedStep;
      const label = step.user_labelled ? step.label : (stepLabels.get(step.step_id) ?? step.label);
      graphSteps.push({ step_id: step.step_id, step_type: "action", label: label.slice(0, 240), preferred_surfaces: [], next_step_ids: [], schema_version: 1 });
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
  return graphSteps;
}

/** A question for everything the demonstration and the answers so far leave open. */
function questionsFor(
  answers: AnswersByField,
  goal: string | undefined,
  base: ImprovedSkillBase | undefined,
  checkpoints: readonly CheckpointPlan[],
): Interpretation["questions"] {
  const questions: Interpretation["questions"] = [];
  if (goal === undefined && base === undefined) {
    questions.push({
      field: "goal_summary",
      prompt: 'What is this ability for? Describe the outcome in one sentence (for example: "Submit a travel expense for approval").',
      required: true,
    });
  }
  if (checkpoints.some((checkpoint) => !checkpoint.observable) && answers.success_condition === undefined) {
    questions.push({ field: "success_condition", prompt: "How can you tell it worked? Describe what the page shows when the task is done.", required: true });
  }
  if (answers.use_conditions === undefined) {
    questions.push({
      field: "use_conditions",
      prompt: "When should your assistant use this ability? List requests or situations, one per line.",
      required: false,
    });
  }
  if (answers.non_use_conditions === undefined) {
    questions.push({ field: "non_use_conditions", prompt: "When should it NOT use this ability, even if a request sounds similar?", required: false });
  }
  if (answers.project_scope === undefined) {
    questions.push({ field: "project_scope", prompt: "Is this for all your work, or only for one project?", required: false });
  }
  return questions;
}

/** The skill's name and goal: the answers first, then the improved skill's, then what the demonstration shows. */
function namingOf(trace: NormalizedTrace, answers: AnswersByField, base: ImprovedSkillBase | undefined) {
  const siteTitle = trace.pages[0]?.title;
  const lastTarget = [...trace.steps].reverse().find((step) => step.target_name !== undefined && step.action !== "navigate")?.target_name;
  const goal = answers.goal_summary ?? trace.goal;
  const title = (
    answers.name ??
    base?.title ??
    goal ??
    (lastTarget !== undefined ? `${lastTarget}${siteTitle ? ` on ${siteTitle}` : ""}` : (siteTitle ?? "Learned ability"))
  ).slice(0, 160);
  const goalSummary = (goal ?? base?.goal_summary ?? `${title}.`).slice(0, 600);
  return { goal, title, goalSummary };
}

/** When to use it and when not, from the answers, else the improved skill's, else from the title. */
function conditionsOf(answers: AnswersByField, base: ImprovedSkillBase | undefined, title: string) {
  const useConditions =
    answers.use_conditions !== undefined
      ? answerLines(answers.use_conditions)
      : base !== undefined && base.use_conditions.length > 0
        ? base.use_conditions
        : [`When the user asks to ${lowerFirst(title)}`];
  const nonUse = answers.non_use_conditions !== undefined ? answerLines(answers.non_use_conditions) : (base?.non_use_conditions ?? []);
  return { useConditions, nonUse };
}

/**
 * An improved skill keeps the triggers it was installed with (the user may have edited them);
 * only answers that change its name or use conditions bring new ones.
 */
function triggersOf(answers: AnswersByField, base: ImprovedSkillBase | undefined, derived: string[], nonUse: readonly string[]) {
  const triggers =
    base === undefined
      ? derived
      : [
          ...new Set(
            [...base.triggers, ...(answers.name !== undefined || answers.use_conditions !== undefined ? derived : [])].map((text) => text.slice(0, 120)),
          ),
        ].slice(0, 20);
  const negativeTriggers =
    base === undefined || answers.non_use_conditions !== undefined ? nonUse.map((line) => line.slice(0, 120)).slice(0, 8) : base.negative_triggers.slice(0, 20);
  return { triggers, negativeTriggers };
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
  const snapshotOf: SnapshotOf = (ref) => (ref?.startsWith("snapshot:") ? snapshots.get(ref.slice("snapshot:".length)) : undefined);
  const { checkpoints, stepLabels, targets, signsIn } = checkpointsOf(input, parameterOf, snapshotOf);

  const site = hostOf(trace.pages[0]?.url);
  const base = input.improves;
  const { goal, title, goalSummary } = namingOf(trace, answers, base);
  const { useConditions, nonUse } = conditionsOf(answers, base, title);
  const scopeAnswer = answers.project_scope?.toLowerCase();
  const projectScope = scopeAnswer === undefined ? "unclear" : /project|matter|only/.test(scopeAnswer) ? "project_scoped" : "global";
  const web = steps.some((step) => step.page_url !== undefined);
  const graphSteps = workflowSteps(checkpoints, stepById, stepLabels);
  const questions = questionsFor(answers, goal, base, checkpoints);
  const derived = triggerPhrasings({ title, useConditions, site, pages: trace.pages, snapshots });
  const { triggers, negativeTriggers } = triggersOf(answers, base, derived, nonUse);
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
      steps:
        graphSteps.length > 0
          ? graphSteps
          : [
              {
                step_id: "s1",
                step_type: "ask_user",
                label: "Ask the user to demonstrate the task",
                preferred_surfaces: [],
                next_step_ids: [],
                schema_version: 1,
              },
            ],
      schema_version: 1,
    },
    triggers,
    negative_triggers: negativeTriggers,
    questions,
    site,
    site_name: siteName(trace.pages.map((page) => page.title)),
    signs_in: signsIn,
    targets,
    ...(base === undefined ? {} : { version: base.next_version }),
  };
}
