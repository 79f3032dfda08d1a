import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import type { StepEvidence } from "./attribute-evidence";
import type { NormalizedStep } from "./normalize-trace";
import { SCRUBBED } from "./page-diff";

/** Names that only say what kind of control it is: not a name a person would recognize. */
const ROLE_ONLY = /^(the )?(checkbox|check box|radio|radio button|switch|button|link|textbox|text box|field|input|element|item|toggle|option|combobox|menuitem|tab|row|cell|generic|img|image|icon|svg|×|x|✕|✓)$/i;

export function isRoleOnly(name: string | undefined, role?: string): boolean {
  if (name === undefined) return true;
  const trimmed = name.trim();
  return trimmed === "" || ROLE_ONLY.test(trimmed) || (role !== undefined && trimmed.toLowerCase() === role.toLowerCase());
}

/** What each list shows typed values for: parameter names in the order their rows were added. */
export type RowsByList = Map<string, string[]>;

/**
 * Which row a control sits in, said by what the row shows: the parameter whose value it shows
 * (rows showing typed values read `•••`; the k-th such row of a list shows the k-th value added to
 * it), else the row's own text, else its position.
 */
export function describeRow(context: string, settled: PageSnapshot | undefined, rows: RowsByList): { text: string; parameter?: string | undefined; position?: number | undefined } {
  const list = settled?.lists?.find((candidate) => candidate.item_texts.includes(context));
  if (context.includes(SCRUBBED)) {
    if (list !== undefined) {
      const scrubbedRows = list.item_texts.filter((text) => text.includes(SCRUBBED));
      const index = scrubbedRows.indexOf(context);
      const added = rows.get(list.name ?? "") ?? [];
      const parameter = scrubbedRows.length === added.length ? added[index] : undefined;
      if (parameter !== undefined) return { text: `the item showing {{${parameter}}}`, parameter };
      const position = list.item_texts.indexOf(context) + 1;
      return { text: `item ${position} of the ${list.name ? `"${list.name}" ` : ""}list`, position };
    }
    return { text: "the item showing the value typed" };
  }
  const clean = context.replace(/\s+[×✕✖xX]$/, "").trim();
  return { text: `the item "${clean.slice(0, 60)}"` };
}

/**
 * A human name for a step's control when the capture found none, or only its role ("Check the
 * checkbox"): the row it sits in (by parameter when the row shows a typed value), else the nearest
 * heading or label of the page it changed. Returns undefined when the control has a name.
 */
export function nameFromContext(step: NormalizedStep, evidence: StepEvidence | undefined, rows: RowsByList): string | undefined {
  if (!isRoleOnly(step.target_name, step.target_role)) return undefined;
  const toggle = evidence?.changes.find((change) => change.kind === "toggle");
  if (toggle !== undefined && toggle.kind === "toggle") {
    if (!isRoleOnly(toggle.name)) return toggle.name;
    if (toggle.context !== undefined) return `the ${toggle.role === "radio" ? "option" : toggle.role} of ${describeRow(toggle.context, evidence?.settled, rows).text}`;
  }
  // The nearest label: a heading of the page the step was on.
  const heading = evidence?.before?.headings.at(-1)?.text ?? evidence?.settled?.headings.at(-1)?.text;
  const role = step.target_role && step.target_role !== "generic" ? step.target_role : "control";
  if (heading !== undefined && heading.trim() !== "") return `the ${role} under "${heading}"`;
  return undefined;
}
