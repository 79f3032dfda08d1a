import type { Page } from "puppeteer-core";
import { SIGN_OUT_NAME, type SignInPlan } from "../../../shared/execution/sign-in-plan";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import { firstLine } from "../checkpoints/checkpoint-check";
import type { CheckpointVerdict } from "../checkpoints/checkpoint-looks";
import type { ExecutionCheckpoint } from "../contract/executor-contract";
import type { ExecutionPlan } from "./flow-plan";

/**
 * Issue #35: whether the page shows a signed-in browser — a control that ends the session ("Log
 * out", one the demonstration showed or any such name) and no password field to fill — and the
 * sign-in checkpoint proved by that state. What a run reads to skip a sign-in the browser no longer
 * needs (the person's own tab, a managed browser whose session is still valid).
 */

export interface SignInState {
  signedIn: boolean;
  /** The sign-out controls found, by role and name (names as the page shows them). */
  controls: Array<{ role: string; name: string; visible: boolean }>;
  /** Password fields shown on the page. */
  passwordFields: number;
  /** Whether the page shows the name signed in with, when one was asked about. */
  showsName: boolean | undefined;
}

/** Runs in each frame, as source text (a function compiled by tsx carries helpers the page lacks). */
const stateScript = (known: readonly string[], name: string | undefined) => `(() => {
  const SIGN_OUT = new RegExp(${JSON.stringify(SIGN_OUT_NAME.source)}, "i");
  const known = ${JSON.stringify(known.map((entry) => entry.toLowerCase()))};
  const name = ${JSON.stringify(name === undefined ? null : name.toLowerCase().replace(/\s+/g, " ").trim())};
  const roots = [document];
  for (let i = 0; i < roots.length && i < 500; i += 1) for (const el of roots[i].querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
  const visible = (el) => (typeof el.checkVisibility === "function" ? el.checkVisibility() : true);
  // innerText is empty for what is not rendered (a closed account menu's "Log out"): textContent then.
  const clean = (text) => (text || "").replace(/\\s+/g, " ").trim();
  let passwords = 0;
  const controls = [];
  for (const root of roots) {
    for (const el of root.querySelectorAll("input[type=password]")) if (visible(el) && !el.disabled) passwords += 1;
    for (const el of root.querySelectorAll("a, button, [role=button], [role=link], [role=menuitem], input[type=submit], input[type=button]")) {
      if (controls.length >= 10) break;
      const label = clean(el.getAttribute("aria-label") || el.innerText || el.textContent || el.value || el.getAttribute("title") || "");
      if (label === "" || label.length > 80) continue;
      if (!SIGN_OUT.test(label) && !known.includes(label.toLowerCase())) continue;
      const tag = el.tagName.toLowerCase();
      controls.push({ role: el.getAttribute("role") || (tag === "a" ? "link" : "button"), name: label, visible: visible(el) });
    }
  }
  const body = document.body ? document.body.innerText.replace(/\\s+/g, " ").toLowerCase() : "";
  return { passwords, controls, showsName: name === null ? null : name !== "" && body.includes(name) };
})()`;

/** Reads the page (every frame): sign-out controls, password fields, and whether `name` is shown. */
export async function readSignInState(page: Page, plan: Pick<SignInPlan, "signed_in_controls">, name?: string): Promise<SignInState> {
  const state: SignInState = { signedIn: false, controls: [], passwordFields: 0, showsName: name === undefined ? undefined : false };
  for (const frame of page.frames()) {
    const read = (await frame.evaluate(stateScript(plan.signed_in_controls, name)).catch(() => undefined)) as
      { passwords?: number; controls?: SignInState["controls"]; showsName?: boolean | null } | undefined;
    if (read === undefined) continue;
    state.passwordFields += read.passwords ?? 0;
    state.controls.push(...(read.controls ?? []));
    if (read.showsName === true) state.showsName = true;
  }
  state.signedIn = state.controls.length > 0 && state.passwordFields === 0;
  return state;
}

/** The state in words for a receipt: what was found, never a typed value. */
export function describeSignInState(state: SignInState): string {
  const control = state.controls.find((entry) => entry.visible) ?? state.controls[0];
  const found = control === undefined ? "no sign-out control" : `${control.role} "${control.name}"${control.visible ? "" : " (in a menu not open)"}`;
  const fields = state.passwordFields === 0 ? "no password field" : `${state.passwordFields} password field${state.passwordFields === 1 ? "" : "s"} to fill`;
  return `${found}, ${fields}`;
}

/** The name the checkpoint says the browser is signed in as, when it says one and a value was given. */
export function signedInName(checkpoint: ExecutionCheckpoint, values: Readonly<Record<string, string>>): string | undefined {
  const parameter = checkpoint.sign_in?.username_parameter;
  if (parameter === undefined || !checkpoint.goal.includes(`{{${parameter}}}`)) return undefined;
  const value = values[parameter];
  return value === undefined || value.trim() === "" ? undefined : value;
}

/**
 * The sign-in checkpoint, checked in the page: signed in (a sign-out control, no password field)
 * and, when the goal says "as {{username}}", the page shows the name given. Waits up to `timeoutMs`.
 */
export async function checkSignedIn(
  page: Page,
  checkpoint: ExecutionCheckpoint & { sign_in: SignInPlan },
  options: { timeoutMs: number; values: Readonly<Record<string, string>>; shouldStop?: () => boolean; intervalMs?: number },
): Promise<CheckpointVerdict> {
  const name = signedInName(checkpoint, options.values);
  const deadline = Date.now() + options.timeoutMs;
  let last: CheckpointVerdict = { result: "failed", details: "the page could not be read" };
  for (;;) {
    try {
      const state = await readSignInState(page, checkpoint.sign_in, name);
      const said = describeSignInState(state);
      if (state.signedIn && state.showsName !== false) {
        return {
          result: "passed",
          details: `signed in: ${said}${name === undefined ? "" : `; the page shows the name given for {{${checkpoint.sign_in.username_parameter}}}`}`,
        };
      }
      last = {
        result: "failed",
        details: state.signedIn
          ? `signed in (${said}), but the page does not show the name given for {{${checkpoint.sign_in.username_parameter}}}`
          : `expected a signed-in page (a sign-out control and no password field); found ${said}`,
      };
    } catch (error) {
      last = { result: "failed", details: `the page could not be read: ${firstLine(error)}` };
    }
    if (Date.now() + (options.intervalMs ?? 150) > deadline || options.shouldStop?.() === true) return last;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 150));
  }
}

/** A sign-in of the flow: the groups it replays, the first of them, and its checkpoint. */
export interface SignInGroups {
  checkpoint: ExecutionCheckpoint & { sign_in: SignInPlan };
  first: number;
  groups: number[];
}

/** The sign-ins a plan replays, by the index of their first group. */
export function signInGroupsOf(plan: ExecutionPlan, flow: RecorderFlow, checkpoints: readonly ExecutionCheckpoint[]): Map<number, SignInGroups> {
  const found = new Map<number, SignInGroups>();
  for (const checkpoint of checkpoints) {
    const signIn = checkpoint.sign_in;
    if (signIn === undefined || signIn.step_ids.length === 0) continue;
    const ids = new Set(signIn.step_ids);
    const groups = plan.groups.flatMap((group, index) => (group.indexes.some((step) => ids.has(flow.step_ids[step] ?? "")) ? [index] : []));
    const first = groups[0];
    if (first === undefined || found.has(first)) continue;
    found.set(first, { checkpoint: checkpoint as SignInGroups["checkpoint"], first, groups });
  }
  return found;
}
