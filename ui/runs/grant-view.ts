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
