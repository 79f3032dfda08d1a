import { rowWords } from "../../../shared/learning/checkpoints/success-conditions";
import type { StepEvidence } from "./attribute-evidence";
import type { NormalizedStep } from "./normalize-trace";
import { SCRUBBED } from "./checkpoints/page-diff";

/** Names that only say what kind of control it is: not a name a person would recognize. */
const ROLE_ONLY =
  /^(the )?(checkbox|check box|radio|radio button|switch|button|link|textbox|text box|field|input|element|item|toggle|option|combobox|menuitem|tab|row|cell|generic|img|image|icon|svg|×|x|✕|✓)$/i;

export function isRoleOnly(name: string | undefined, role?: string): boolean {
  if (name === undefined) return true;
  const trimmed = name.trim();
  return trimmed === "" || ROLE_ONLY.test(trimmed) || (role !== undefined && trimmed.toLowerCase() === role.toLowerCase());
}

/**
 * What each list shows typed values in: how many items it had before the first one was added, and
 * the parameters added since, in order (rows are appended: the k-th new row shows the k-th value).
 */
export type RowsByList = Map<string, { before: number; parameters: string[] }>;

/** Which row a control sits in, said by the parameter whose value it shows, else by its position. */
export function describeRow(row: number, listName: string | undefined, rows: RowsByList): { text: string; parameter?: string | undefined } {
  const candidates = listName !== undefined ? [rows.get(listName)] : [...rows.values()];
  for (const added of candidates) {
    const parameter = added === undefined ? undefined : added.parameters[row - added.before - 1];
    if (parameter !== undefined) return { text: rowWords({ parameter }), parameter };
  }
  return { text: rowWords({ position: row, list: listName }) };
}

/**
 * The row a control that changed state sits in: by the parameter it shows (a row added after the
 * value was entered), else by its own text when the capture could tell it (a row that was on the
 * page, found again wherever the list draws it), else by its position.
 */
export function rowOfToggle(
  row: number,
  rowText: string | undefined,
  listName: string | undefined,
  rows: RowsByList,
): { text: string; parameter?: string | undefined; rowText?: string | undefined } {
  const described = describeRow(row, listName, rows);
  if (described.parameter !== undefined && (rowText === undefined || rowText.includes(SCRUBBED))) return described;
  if (rowText !== undefined && rowText.trim() !== "" && !rowText.includes(SCRUBBED)) return { text: rowWords({ text: rowText }), rowText };
  return described;
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
    if (toggle.row !== undefined)
      return `the ${toggle.role === "radio" ? "option" : toggle.role} of ${rowOfToggle(toggle.row, toggle.row_text, onlyList(evidence), rows).text}`;
  }
  // The nearest label: a heading of the page the step was on.
  const heading = evidence?.before?.headings.at(-1)?.text ?? evidence?.settled?.headings.at(-1)?.text;
  const role = step.target_role && step.target_role !== "generic" ? step.target_role : "control";
  if (heading !== undefined && heading.trim() !== "") return `the ${role} under "${heading}"`;
  return undefined;
}

/** The list a row is in, when the page shows one list with items (the usual case). */
export function onlyList(evidence: StepEvidence | undefined): string | undefined {
  const lists = (evidence?.settled?.lists ?? []).filter((list) => list.items > 0);
  return lists.length === 1 ? lists[0]?.name : undefined;
}
