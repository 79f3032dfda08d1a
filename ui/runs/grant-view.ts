import { DAY_MS } from "../../shared/common/durations";
import type { ConsequenceClass, GrantInputsMode, RunGrant } from "../../shared/execution/run-grants";

/**
 * Words of standing grants (issue #33), for the run's confirmation box and the skill's grants in
 * Skills: the terms spelled out the same way in both places.
 */

/** The separate tick a step that deletes or pays needs before a grant covers it. */
export const CONSEQUENCE_CLASS_TICK: Record<ConsequenceClass, string> = {
  deletes: "I understand this step deletes something, and allow that too",
  pays: "I understand this step pays, and allow that too",
};

export const CONSEQUENCE_CLASS_LABEL: Record<ConsequenceClass, string> = {
  deletes: "deletes",
  pays: "pays",
};

/** "these exact inputs (Recipient)" or "any inputs". */
export function inputsText(mode: GrantInputsMode, labels: readonly string[]): string {
  if (mode === "any") return "any inputs";
  return labels.length === 0 ? "these exact inputs (this skill has none that are not secret)" : `these exact inputs (${labels.join(", ")})`;
}

/** A grant's terms in one line: skill and version, step, site, inputs, and the classes ticked. */
export function grantTermsText(grant: Pick<RunGrant, "skill_version" | "step_label" | "site_host" | "inputs" | "input_names" | "consequence_classes">): string {
  const classes =
    grant.consequence_classes.length === 0 ? "" : `; allowed to: ${grant.consequence_classes.map((kind) => CONSEQUENCE_CLASS_LABEL[kind]).join(", ")}`;
  return `Version ${grant.skill_version} · ${grant.step_label} · on ${grant.site_host} · with ${inputsText(grant.inputs, grant.input_names)}${classes}`;
}

/** How long an "Always allow" lasts, as the person chooses it; the agent ends the grant at `expires_at`. */
export const GRANT_DURATIONS = [
  { value: "until_revoked", label: "Until I revoke it", days: undefined },
  { value: "day", label: "For a day", days: 1 },
  { value: "week", label: "For a week", days: 7 },
  { value: "month", label: "For 30 days", days: 30 },
] as const;
export type GrantDuration = (typeof GRANT_DURATIONS)[number]["value"];

/** The grant's `expires_at` for a chosen duration from `now`; none until revoked. */
export function expiresAtFor(duration: GrantDuration, now: Date): string | undefined {
  const days = GRANT_DURATIONS.find((choice) => choice.value === duration)?.days;
  return days === undefined ? undefined : new Date(now.getTime() + days * DAY_MS).toISOString();
}
