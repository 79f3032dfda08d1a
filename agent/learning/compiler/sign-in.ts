import { SIGN_IN_NAME, SIGN_OUT_NAME, type SignInPlan } from "../../../shared/execution/sign-in-plan";
import { tidyName } from "../../../shared/observation/name-tidying";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { writeSuccessCondition } from "../../../shared/learning/checkpoints/success-conditions";
import type { SubGoal } from "./cut-subgoals";
import type { SkillParameter, CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import type { NormalizedStep } from "./normalize-trace";
import { SCRUBBED } from "./checkpoints/page-diff";

/**
 * Issue #35, DESIGN §9: a sign-in is a sub-goal of its own. Recognised in a demonstration as a
 * password field filled and submitted (a click or an Enter) on a page that showed no sign-out
 * control, after which the page shows one ("Log out", "Sign out") and no password field. The
 * skill says "Signed in as {{username}}" (or "Signed in" when the page never shows the name), the
 * password is a secret input, and the checkpoint's evidence is the signed-in state — never the
 * password, and never the menus that changed because someone signed in.
 *
 * Not a sign-in: a form with two password fields or two filled (sign-up with a confirmation, a
 * password change), a form whose button says it registers or changes a password, and a password
 * typed while a sign-out control was already on the page (re-entering it, changing it). Those stay
 * ordinary sub-goals: running them again is not something a signed-in browser makes unnecessary.
 */

/** A submit that creates an account or changes a password: not a sign-in. */
const NOT_SIGN_IN_SUBMIT = /\b(sign[\s-]?up|register|registration|create (an |your |my )?account|join|change|update|reset|set|new password|save)\b/i;
const PASSWORD_NAME = /(pass(word|wd|phrase)?|pwd|passwort|mot de passe|contrase[ñn]a)/i;

function isPasswordFill(step: NormalizedStep): boolean {
  if (step.action !== "fill") return false;
  if (step.input_type !== undefined) return step.input_type.toLowerCase() === "password";
  return step.target_name !== undefined && PASSWORD_NAME.test(step.target_name);
}

function isSignInClick(step: NormalizedStep): boolean {
  return (step.action === "click" || step.action === "submit") && step.target_name !== undefined && SIGN_IN_NAME.test(step.target_name);
}

function signOutControls(page: PageSnapshot | undefined): Array<{ name: string; kind: "button" | "link" }> {
  if (page === undefined) return [];
  const shown = [
    ...page.buttons.filter((name) => SIGN_OUT_NAME.test(name)).map((name) => ({ name, kind: "button" as const })),
    ...page.links.filter((name) => SIGN_OUT_NAME.test(name)).map((name) => ({ name, kind: "link" as const })),
  ];
  // One in a menu not open (an account menu under "Howdy, Jon") is in no list of what is shown.
  const inMenus = (page.hover_revealed ?? []).filter((name) => SIGN_OUT_NAME.test(name) && !shown.some((control) => control.name === name));
  return [...shown, ...inMenus.map((name) => ({ name, kind: "link" as const }))];
}

function passwordFields(page: PageSnapshot | undefined): number {
  return (page?.forms ?? []).reduce((sum, form) => sum + form.fields.filter((field) => field.type.toLowerCase() === "password").length, 0);
}

/** The page shows a typed value (scrubbed to •••): after a sign-in, that is the name signed in with. */
function showsTypedName(page: PageSnapshot): boolean {
  const texts = [
    ...page.headings.map((heading) => heading.text),
    ...page.buttons,
    ...page.links,
    ...page.status_messages,
    ...(page.texts ?? []),
    ...page.landmarks.map((landmark) => landmark.name ?? ""),
    page.title,
  ];
  return texts.some((text) => text.includes(SCRUBBED));
}

/** A sign-in found in one sub-goal. */
export interface FoundSignIn {
  plan: SignInPlan;
  /** The page shows the name signed in with: the goal says "Signed in as {{username}}". */
  username_shown: boolean;
  /** The control the success condition names, and whether the page made it a button. */
  control: { name: string; kind: "button" | "link" };
}

function findInGoal(goal: SubGoal, parameterOf: ReadonlyMap<string, SkillParameter>): FoundSignIn | undefined {
  const passwords = goal.steps.filter(isPasswordFill);
  if (passwords.length !== 1) return undefined;
  const password = passwords[0] as NormalizedStep;
  const passwordParameter = parameterOf.get(password.step_id);
  if (passwordParameter === undefined) return undefined;
  const passwordIndex = goal.steps.indexOf(password);
  const last = goal.steps.at(-1) as NormalizedStep;
  const submitted = last !== password && (last.action === "click" || last.action === "submit" || (last.action === "press" && /\bEnter\b/.test(last.label)));
  if (!submitted) return undefined;
  if (
    last.target_name !== undefined &&
    (last.action === "click" || last.action === "submit") &&
    NOT_SIGN_IN_SUBMIT.test(last.target_name) &&
    !SIGN_IN_NAME.test(last.target_name)
  )
    return undefined;
  const before = goal.evidence?.before;
  const after = goal.evidence?.settled;
  if (after === undefined) return undefined;
  // Signed in already while typing it (a password re-entered or changed), or a form asking for it twice.
  if (signOutControls(before).length > 0 || passwordFields(before) > 1) return undefined;
  const shown = signOutControls(after);
  if (shown.length === 0 || passwordFields(after) > 0) return undefined;
  // A control shown only under the pointer (an account menu) still says so; a visible one is named first.
  const visible = shown.filter((control) => !(after.hover_revealed ?? []).includes(control.name));
  const picked = (visible[0] ?? shown[0]) as { name: string; kind: "button" | "link" };
  // Said as a person would ("Log out", not the icon's text and the label: "Log out Log out").
  const control = { ...picked, name: tidyName(picked.name) || picked.name };

  // The name: the last field filled before the password on its page, when it is an ordinary input.
  const username = goal.steps
    .slice(0, passwordIndex)
    .reverse()
    .find((step) => step.action === "fill" && step.page_url === password.page_url && !isPasswordFill(step));
  const usernameParameter = username === undefined ? undefined : parameterOf.get(username.step_id);
  const usernameOk = usernameParameter !== undefined && usernameParameter.type_hint !== "secret" ? usernameParameter : undefined;

  // The steps a signed-in browser does without: from the first field of the form (and the clicks
  // that opened it) to the submit. Steps before them in the sub-goal still run.
  const firstField = username !== undefined && usernameOk !== undefined ? goal.steps.indexOf(username) : passwordIndex;
  let from = firstField;
  while (from > 0 && isSignInClick(goal.steps[from - 1] as NormalizedStep)) from -= 1;
  return {
    plan: {
      step_ids: goal.steps.slice(from).map((step) => step.step_id),
      ...(usernameOk !== undefined ? { username_parameter: usernameOk.name } : {}),
      password_parameter: passwordParameter.name,
      signed_in_controls: [...new Set(shown.map((entry) => entry.name))].slice(0, 5),
      ...(after.url !== "" ? { signed_in_url: after.url } : {}),
    },
    username_shown: usernameOk !== undefined && showsTypedName(after),
    control,
  };
}

/**
 * Finds the sign-ins among the sub-goals. A sub-goal made only of clicks on "Log in"/"Sign in"
 * (the link that opens the sign-in page) right before one is merged into it: a signed-in browser
 * has no such link to click. Returns the sub-goals (merged) and the sign-in of each that is one.
 */
export function findSignIns(
  goals: readonly SubGoal[],
  parameterOf: ReadonlyMap<string, SkillParameter>,
): { goals: SubGoal[]; signIns: Map<SubGoal, FoundSignIn> } {
  const out: SubGoal[] = [];
  const signIns = new Map<SubGoal, FoundSignIn>();
  for (const goal of goals) {
    const found = findInGoal(goal, parameterOf);
    if (found === undefined) {
      out.push(goal);
      continue;
    }
    const previous = out.at(-1);
    let merged = goal;
    if (previous !== undefined && !signIns.has(previous) && previous.steps.length > 0 && previous.steps.every(isSignInClick)) {
      out.pop();
      merged = { steps: [...previous.steps, ...goal.steps], evidence: goal.evidence };
      if (found.plan.step_ids[0] === goal.steps[0]?.step_id) found.plan.step_ids = [...previous.steps.map((step) => step.step_id), ...found.plan.step_ids];
    }
    out.push(merged);
    signIns.set(merged, found);
  }
  return { goals: out, signIns };
}

/**
 * The sign-in's checkpoint: "Signed in as {{username}}", proved by the control that shows the
 * person signed in. The password is in no goal, condition or control of it beyond its placeholder.
 */
export function wordSignIn(checkpoint: CheckpointPlan, found: FoundSignIn): CheckpointPlan {
  const check =
    found.control.kind === "button" ? ({ kind: "button", name: found.control.name } as const) : ({ kind: "page_says", text: found.control.name } as const);
  return {
    ...checkpoint,
    goal: found.username_shown && found.plan.username_parameter !== undefined ? `Signed in as {{${found.plan.username_parameter}}}` : "Signed in",
    success_condition: writeSuccessCondition(check),
    observable: true,
    verification: { by: "page" },
    sign_in: found.plan,
  };
}
