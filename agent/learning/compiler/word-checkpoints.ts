import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { nameFromContext, onlyList, rowOfToggle, type RowsByList } from "./control-names";
import type { SkillParameter, CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import type { NormalizedStep } from "./normalize-trace";
import { SCRUBBED, routeOf, type PageChange } from "./checkpoints/page-diff";
import {
  hasPerRunValue,
  isSecret,
  listKey,
  rankEvidence,
  revisitedLists,
  signsIn,
  rowParameter,
  stablePart,
  withParameters,
  type EvidenceContext,
  type MaskedPlace,
} from "./checkpoints/goal-evidence";
import type { SubGoal } from "./cut-subgoals";
import type { RelocationHint } from "../../../shared/execution/recorder-flow";
import { parseSuccessCondition, writeSuccessCondition, type SuccessCheck } from "../../../shared/learning/checkpoints/success-conditions";

/** What the success condition of a checkpoint no evidence proves says until the user answers. */
export const NOT_YET_KNOWN = "Not yet known: ask the user what shows this worked";

export interface WordedCheckpoints {
  checkpoints: CheckpointPlan[];
  /** Human labels for steps whose control had no name of its own, by step id. */
  stepLabels: Map<string, string>;
  /** What is known of each step's element for relocating it, by step id. */
  targets: Record<string, RelocationHint>;
  /** A sub-goal signed someone in (goal-evidence.ts `signsIn`): the skill works after signing in. */
  signsIn: boolean;
}

/** A check from a change, or undefined when the change proves nothing a rehearsal can look for. */
function checkOf(change: PageChange, goal: SubGoal, context: EvidenceContext, rows: RowsByList): SuccessCheck | undefined {
  // Masked values become the inputs they were ("••• [Notes]" → "{{page_name}} [Notes]"); one that cannot be told is no evidence.
  const shown = (text: string, place: MaskedPlace) => withParameters(text, context.known, place);
  switch (change.kind) {
    case "route": {
      // A route with a masked part (`*`, `*typed-<ref>*`: url-rule.ts) cannot be matched as written.
      const route = change.to.includes("*") ? undefined : shown(change.to, "route");
      return route === undefined ? undefined : { kind: "route", route };
    }
    case "title": {
      const text = shown(change.text, "title");
      return text === undefined ? undefined : { kind: "page_title", text };
    }
    case "dialog_opened":
      return change.name?.includes(SCRUBBED) ? undefined : { kind: "dialog_open", name: change.name };
    case "dialog_closed":
      return change.name.includes(SCRUBBED) ? undefined : { kind: "dialog_closed", name: change.name };
    case "status": {
      const notice = stablePart(change.text);
      const text = notice === undefined ? undefined : shown(notice, "status");
      return text === undefined ? undefined : { kind: "page_says", text };
    }
    case "list_grew": {
      // One row appeared right after a value was entered: the row shows it (the rehearsal checks
      // that with its own test value). The capture never sends a row's text, which may be typed.
      const row = change.by === 1 ? rowParameter(context.entered) : undefined;
      return row !== undefined
        ? { kind: "list_has_value", parameter: row.name, list: change.list }
        : { kind: "list_count", list: change.list, delta: change.by };
    }
    case "list_shrank":
      return { kind: "list_count", list: change.list, delta: -change.by };
    case "toggle": {
      if (change.name !== undefined && change.name.trim() !== "" && !change.name.includes(SCRUBBED))
        return { kind: "control_state", name: change.name, row: undefined, role: change.role, state: change.state };
      if (change.row === undefined) return undefined;
      const list = onlyList(goal.evidence);
      const row = rowOfToggle(change.row, change.row_text, list, rows);
      return {
        kind: "control_state",
        name: undefined,
        row: row.parameter !== undefined ? { parameter: row.parameter } : row.rowText !== undefined ? { text: row.rowText } : { position: change.row, list },
        role: change.role,
        state: change.state,
      };
    }
    case "counter":
      // A total in money changes by what was bought, not by a number a later run repeats.
      return { kind: "counter", pattern: change.pattern, delta: hasPerRunValue(change.text) ? undefined : change.delta };
    case "heading": {
      const text = shown(change.text, "heading");
      return text === undefined ? undefined : { kind: "heading", text };
    }
    case "button":
      return change.name.includes(SCRUBBED) ? undefined : { kind: "button", name: change.name };
    default: {
      const unreachable: never = change;
      throw new Error(`unknown page change ${JSON.stringify(unreachable)}`);
    }
  }
}

function goalWords(
  check: SuccessCheck | undefined,
  goal: SubGoal,
  used: readonly SkillParameter[],
  stepName: (step: NormalizedStep) => string | undefined,
): string {
  // The person's own words name the sub-goal; when one checkpoint covers several steps they named
  // (no page change told them apart), every name is kept, in order.
  const labelled = goal.steps.filter((step) => step.user_labelled).map((step) => step.label);
  if (labelled.length > 0) return [...new Set(labelled)].join(", then ").slice(0, 240);
  const last = goal.steps.at(-1) as NormalizedStep;
  const target = stepName(last) ?? last.page_title ?? "the form";
  // A secret is asked at run time and never said as what shows the goal (issue #35).
  const inputs = used
    .filter((parameter) => !isSecret(parameter))
    .map((parameter) => `{{${parameter.name}}}`)
    .join(", ");
  switch (check?.kind) {
    case "list_has_value":
      return `{{${check.parameter}}} is added to the ${check.list ? `"${check.list}" ` : ""}list`;
    case "list_count":
      return check.delta > 0
        ? `An item is added to the ${check.list ? `"${check.list}" ` : ""}list through "${target}"`
        : `An item is removed from the ${check.list ? `"${check.list}" ` : ""}list through "${target}"`;
    case "control_state":
      return check.row !== undefined ? writeSuccessCondition(check) : `"${check.name}" is ${check.state}`;
    case "dialog_open":
      return check.name ? `The "${check.name}" dialog is open` : `A dialog opens from "${target}"`;
    case "dialog_closed":
      return `The "${check.name}" dialog is answered with "${target}"`;
    case "page_title":
      if (inputs !== "") return `"${target}" is completed with ${inputs}`;
      return `The "${check.text}" page is open`;
    case "route":
    case "heading":
      if (inputs !== "") return `"${target}" is completed with ${inputs}`;
      return last.action === "navigate" ? `The "${last.page_title ?? target}" page is open` : `The "${target}" view is shown`;
    case "counter":
      return `The count changes through "${target}"`;
    case "page_says":
      if (inputs !== "") return `"${target}" is completed with ${inputs}`;
      return `The page confirms "${check.text}"`;
    default:
      if (last.action === "command" || last.action === "launch") return `"${target}" has run successfully`;
      if (inputs !== "") return `"${target}" is completed with ${inputs}`;
      return `"${target}" has taken effect`;
  }
}

/**
 * The user's answer to "How can you tell it worked?" as a check when it names something on the
 * page: a quoted text, a heading or button the final page shows, or an address. Otherwise their
 * words, for a person to confirm.
 */
export function answerToCheck(answer: string, finalPage: PageSnapshot | undefined): SuccessCheck {
  const quoted = /["“”'‘’]([^"“”'‘’]{2,120})["“”'‘’]/.exec(answer)?.[1]?.trim();
  const lower = answer.toLowerCase();
  if (finalPage !== undefined) {
    const heading = finalPage.headings.find((candidate) => candidate.text.length >= 3 && lower.includes(candidate.text.toLowerCase()));
    if (quoted !== undefined && finalPage.headings.some((candidate) => candidate.text.toLowerCase() === quoted.toLowerCase()))
      return { kind: "heading", text: quoted };
    if (quoted !== undefined && finalPage.buttons.some((name) => name.toLowerCase() === quoted.toLowerCase())) return { kind: "button", name: quoted };
    if (quoted === undefined && heading !== undefined) return { kind: "heading", text: heading.text };
    const button = finalPage.buttons.find((name) => name.length >= 3 && lower.includes(name.toLowerCase()) && !(finalPage.hover_revealed ?? []).includes(name));
    if (quoted === undefined && button !== undefined) return { kind: "button", name: button };
  }
  if (quoted !== undefined) return { kind: "page_says", text: quoted };
  const address = /(?:https?:\/\/\S+|(?:^|\s)(\/[\w./#-]+))/.exec(answer);
  if (address !== null) {
    const route =
      address[1] ??
      (() => {
        try {
          const url = new URL(address[0].trim());
          return `${url.pathname}${url.hash}`;
        } catch {
          return undefined;
        }
      })();
    if (route !== undefined && route.length > 1) return { kind: "route", route };
  }
  return { kind: "by_hand", text: answer.trim() };
}

/**
 * The sub-goal ended on another page or view: its route changed, or (an app routed by its query
 * string, `index.php?route=/table`) its address and its title both did.
 */
function isOtherPage(before: PageSnapshot, after: PageSnapshot): boolean {
  return routeOf(before.url) !== routeOf(after.url) || (before.url !== after.url && before.title !== after.title);
}

/** What wording the sub-goals in order carries from one to the next. */
interface WordingState {
  rows: RowsByList;
  stepLabels: Map<string, string>;
  targets: Record<string, RelocationHint>;
  known: SkillParameter[];
  /** What was entered to sign in (the username): never what a later page's masked title stands for. */
  account: Set<SkillParameter>;
  /** Each list's last count by address and name, as the demonstration went (goal-evidence revisitedLists). */
  listsSeen: Map<string, number>;
  signedIn: boolean;
}

/** The parameters a sub-goal enters, and what its evidence may name (a sign-in's own values only on the sign-in). */
function contextOf(goal: SubGoal, parameterOf: ReadonlyMap<string, SkillParameter>, state: WordingState): { used: SkillParameter[]; context: EvidenceContext } {
  const used = [
    ...new Set(goal.steps.map((step) => parameterOf.get(step.step_id)).filter((parameter): parameter is SkillParameter => parameter !== undefined)),
  ];
  for (const parameter of used) if (!state.known.includes(parameter)) state.known.push(parameter);
  const before = goal.evidence?.before;
  const settled = goal.evidence?.settled;
  const signIn = signsIn(used, before, settled);
  const context: EvidenceContext = {
    entered: used,
    known: signIn ? [...state.known] : state.known.filter((parameter) => !state.account.has(parameter)),
    newPage: before !== undefined && settled !== undefined && isOtherPage(before, settled),
    signIn,
  };
  if (signIn) for (const parameter of used) state.account.add(parameter);
  state.signedIn ||= signIn;
  return { used, context };
}

/** The check the sub-goal's evidence proves, ranked (issue #35: evidence of the goal first, what came with it never). */
function checkFromEvidence(goal: SubGoal, context: EvidenceContext, state: WordingState): SuccessCheck | undefined {
  const settled = goal.evidence?.settled;
  const changes = rankEvidence(revisitedLists(goal.evidence?.changes ?? [], settled, state.listsSeen), context);
  for (const snapshot of [goal.evidence?.before, settled])
    for (const list of snapshot?.lists ?? []) if (list.name !== undefined) state.listsSeen.set(listKey(snapshot!.url, list.name), list.items);
  let check: SuccessCheck | undefined;
  for (const change of changes) {
    check = checkOf(change, goal, context, state.rows);
    if (check !== undefined) break;
  }
  const last = goal.steps.at(-1) as NormalizedStep;
  // A page opened with no snapshot yet still shows its title: that is what proves it is open.
  if (check === undefined && last.action === "navigate" && last.page_title !== undefined && last.page_title.trim() !== "" && !hasPerRunValue(last.page_title)) {
    const text = withParameters(last.page_title, context.known, "title");
    if (text !== undefined) check = { kind: "page_title", text };
  }
  if (check?.kind === "list_has_value") {
    const grew = changes.find((change) => change.kind === "list_grew");
    const known = state.rows.get(check.list ?? "") ?? { before: grew?.kind === "list_grew" ? grew.from : 0, parameters: [] };
    state.rows.set(check.list ?? "", { ...known, parameters: [...known.parameters, check.parameter] });
  }
  return check;
}

/** Names for the sub-goal's controls that had none (their row or context), and the step labels that say them. */
function nameControls(goal: SubGoal, state: WordingState): Map<string, string> {
  const last = goal.steps.at(-1);
  const names = new Map<string, string>();
  for (const step of goal.steps) {
    if (step.action !== "click" && step.action !== "toggle" && step.action !== "fill" && step.action !== "select") continue;
    const named = nameFromContext(step, step === last ? goal.evidence : undefined, state.rows);
    if (named === undefined) continue;
    names.set(step.step_id, named);
    const verb = step.action === "toggle" ? (/^Uncheck/.test(step.label) ? "Uncheck" : "Check") : step.action === "fill" ? "Fill" : "Click";
    state.stepLabels.set(step.step_id, `${verb} ${named}`);
  }
  return names;
}

/** What a run knows of each step's target beyond its selectors: role, name, and the row of a control that changed state. */
function addRelocationHints(goal: SubGoal, state: WordingState): void {
  const last = goal.steps.at(-1);
  for (const step of goal.steps) {
    if (step.action === "navigate" || step.action === "command" || step.action === "launch") continue;
    const hint: RelocationHint = {
      role: step.target_role,
      ...(step.target_name !== undefined && !step.target_name.includes(SCRUBBED) ? { name: step.target_name } : {}),
    };
    // The row of a control that changed state: by the parameter it shows, its own text, or its position.
    const toggled = step === last ? goal.evidence?.changes.find((change) => change.kind === "toggle") : undefined;
    if (toggled?.kind === "toggle" && toggled.row !== undefined) {
      const row = rowOfToggle(toggled.row, toggled.row_text, onlyList(goal.evidence), state.rows);
      if (row.parameter !== undefined) hint.row_parameter = row.parameter;
      else if (row.rowText !== undefined) hint.row_text = row.rowText.replace(/…$/, "");
      else hint.row_position = toggled.row;
    }
    state.targets[step.step_id] = hint;
  }
}

/** Who verifies the checkpoint: the page when a check was found (or the person's answer names the page), else the person. */
function verificationOf(
  check: SuccessCheck | undefined,
  isLast: boolean,
  successAnswer: string | undefined,
  finalPage: PageSnapshot | undefined,
): { check: SuccessCheck | undefined; verification: CheckpointPlan["verification"] } {
  if (check !== undefined) return { check, verification: { by: "page" } };
  if (!isLast || successAnswer === undefined)
    return { check, verification: { by: "person", reason: "Nothing on the page changed after these steps that a check could look for." } };
  const answered = answerToCheck(successAnswer, finalPage);
  return {
    check: answered,
    verification:
      answered.kind === "by_hand"
        ? { by: "person", reason: "Your answer names nothing the page shows (no quoted text, heading, button or address), so a person confirms it." }
        : { by: "page", from_answer: true },
  };
}

/**
 * Words each sub-goal as a checkpoint (issue #14): a goal, and a success condition the rehearsal
 * can check, from the evidence of the step that reached it. A sub-goal no evidence proves asks the
 * user; their answer becomes a check when it names something on the page.
 */
export function wordCheckpoints(
  goals: readonly SubGoal[],
  parameterOf: ReadonlyMap<string, SkillParameter>,
  successAnswer: string | undefined,
  finalPage: PageSnapshot | undefined,
): WordedCheckpoints {
  const state: WordingState = { rows: new Map(), stepLabels: new Map(), targets: {}, known: [], account: new Set(), listsSeen: new Map(), signedIn: false };
  const checkpoints = goals.map((goal, index): CheckpointPlan => {
    const { used, context } = contextOf(goal, parameterOf, state);
    const found = checkFromEvidence(goal, context, state);
    const names = nameControls(goal, state);
    addRelocationHints(goal, state);
    const { check, verification } = verificationOf(found, index === goals.length - 1, successAnswer, finalPage);
    const stepName = (step: NormalizedStep) => names.get(step.step_id) ?? step.target_name;
    const success = check === undefined ? NOT_YET_KNOWN : writeSuccessCondition(check);
    return {
      checkpoint_id: `cp-${String(index + 1).padStart(2, "0")}`,
      goal: goalWords(check, goal, used, stepName).slice(0, 240),
      success_condition: success.slice(0, 240),
      order_hint: index,
      where: goal.steps[0]?.page_title,
      controls: goal.steps
        .filter((step) => stepName(step) !== undefined && step.action !== "navigate")
        .map((step) => ({
          name: stepName(step) as string,
          role: step.target_role ?? step.action,
          parameter: parameterOf.get(step.step_id)?.name,
          // The option picked in a list is part of the page, not something typed: keep it as guidance.
          choice: step.action === "select" ? /^Select '(.+)' in '/.exec(step.label)?.[1] : undefined,
        })),
      step_ids: goal.steps.map((step) => step.step_id),
      observable: check !== undefined && parseSuccessCondition(success).kind !== "by_hand",
      verification,
    };
  });
  return { checkpoints, stepLabels: state.stepLabels, targets: state.targets, signsIn: state.signedIn };
}
