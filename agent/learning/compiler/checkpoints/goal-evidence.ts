import type { PageSnapshot } from "../../../../shared/observation/page-snapshot";
import type { SkillParameter } from "../../../../shared/execution/checkpoint-plan";
import { SCRUBBED, type PageChange } from "./page-diff";

/**
 * Issue #35 "Goal evidence first": which of the page's changes may prove a sub-goal, and in what
 * order. A checkpoint proves what the task achieved — the created or changed thing showing the
 * inputs, a success notice, the new page or its address — never what changed because someone signed
 * in (menus, dashboard widgets), lists unrelated to the inputs, values that differ on every run (row
 * ids, times, totals) or a secret input. One rule, here; word-checkpoints.ts words what it keeps.
 */

/** What is known around a sub-goal when its evidence is weighed. */
export interface EvidenceContext {
  /** Parameters entered in this sub-goal's steps, in order. */
  entered: readonly SkillParameter[];
  /**
   * Parameters entered up to the end of this sub-goal, in the order they were first entered: whose
   * values the page may show now. Those entered to sign in are not among them once signed in: the
   * name signed in with names the account, not the thing the task made.
   */
  known: readonly SkillParameter[];
  /** The sub-goal led to another page or view (its route changed). */
  newPage: boolean;
  /** The sub-goal signed someone in: what changed with it is the account's furniture (`signsIn`). */
  signIn: boolean;
}

/** Why a change is not evidence of the sub-goal's outcome. */
export type IncidentalReason = "sign_in" | "page_furniture" | "unrelated_list" | "per_run_value" | "secret";

/** Secret inputs (passwords, one-time codes, card numbers) are asked at run time and never shown as evidence. */
export const isSecret = (parameter: SkillParameter): boolean => parameter.type_hint === "secret";

const SIGN_OUT = /\b(log|sign)\s?(out|off)\b/i;

/**
 * A sub-goal that entered a secret and after which a way to sign out appeared: someone signed in.
 * (Entering a secret alone is not one: a new user's password, a payment.)
 */
export function signsIn(entered: readonly SkillParameter[], before: PageSnapshot | undefined, after: PageSnapshot | undefined): boolean {
  if (after === undefined || !entered.some(isSecret)) return false;
  // One in a closed account menu counts too (hover_revealed: "Log out" under "Howdy, Jon").
  const signOut = (snapshot: PageSnapshot | undefined) =>
    [...(snapshot?.buttons ?? []), ...(snapshot?.links ?? []), ...(snapshot?.hover_revealed ?? [])].some((name) => SIGN_OUT.test(name));
  return signOut(after) && !signOut(before);
}

/** Kinds that change when someone signs in whatever the task: menus, widgets, counters, controls of the account. */
const CHANGES_WITH_SIGN_IN: ReadonlySet<PageChange["kind"]> = new Set([
  "list_grew",
  "list_shrank",
  "counter",
  "toggle",
  "button",
  "heading",
  "dialog_opened",
  "dialog_closed",
]);

// A number that belongs to one run: an id or reference after its word, a time, a date, an amount, a long number.
const ID_NUMBER = /\b(?:id|ids|no|nr|number|num|ref|reference|order|invoice|ticket|issue|row|record|revision|rev|version|key|#)\s*[:#.]?\s*#?\d+/i;
const HASH_NUMBER = /#\d+/;
const TIME = /\b\d{1,2}:\d{2}(?::\d{2})?\b/;
const DATE = /\b(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})\b/;
const AMOUNT = /(?:[$€£¥]\s*\d|\d[.,]\d{2}\b|\d\s*(?:€|\$|£|usd|eur|gbp)\b)/i;
const LONG_NUMBER = /\d{3,}/;
const AGO = /\b\d+\s*(?:seconds?|minutes?|mins?|hours?|days?|weeks?|months?|years?)\s+ago\b/i;

/**
 * True when the text carries a number that a later run will not show again: an id ("Inserted row
 * id: 3", "Issue #12"), a time, a date, an amount, "5 minutes ago" or any number of three digits or
 * more. A small count of what was done ("1 row inserted", "Step 2 of 3") is not one.
 */
export function hasPerRunValue(text: string): boolean {
  return [ID_NUMBER, HASH_NUMBER, TIME, DATE, AMOUNT, LONG_NUMBER, AGO].some((pattern) => pattern.test(text));
}

/**
 * The part of a notice a later run shows again: its sentences without a per-run value ("1 row
 * inserted. Inserted row id: 3" → "1 row inserted."), or undefined when nothing with words is left.
 * A page's notice is matched as a part of the page's text, so a sentence of it is a fair check.
 */
export function stablePart(text: string): string | undefined {
  if (!hasPerRunValue(text)) return text;
  const sentences = text.split(/(?<=[.!?;])\s+|\s+[|—–]\s+|\s+-\s+/).filter((sentence) => sentence.trim() !== "");
  // One sentence, the longest: the check looks for it as one piece of the page's text.
  const kept = sentences
    .map((sentence) => sentence.trim())
    .filter((sentence) => !hasPerRunValue(sentence) && /\p{L}{3,}/u.test(sentence))
    .sort((a, b) => b.length - a.length)[0];
  return kept;
}

/** A path segment or query value that names one record: digits only, or a long hexadecimal or uuid-like id. */
const RECORD_ID = /(?:^|[/=&?#])(?:\d+|(?=[0-9a-f-]*\d)[0-9a-f]{8,}|(?=[0-9a-f-]*\d)[0-9a-f]{8}-[0-9a-f-]{27,})(?=$|[/&?#.])/i;

/**
 * A list the sub-goal's page shows one row longer than it was at the same address earlier in the
 * demonstration (a table browsed, a row inserted on a form page, the table shown again): the row
 * the sub-goal added, though the page it was added on did not show the list. `seen` holds each
 * list's last count by address and name; the diff of the sub-goal's own pages may have paired it
 * with another list or left it out.
 */
export function revisitedLists(changes: readonly PageChange[], settled: PageSnapshot | undefined, seen: ReadonlyMap<string, number>): PageChange[] {
  if (settled === undefined) return [...changes];
  const grown = new Map<string, PageChange>();
  for (const list of settled.lists ?? []) {
    if (list.name === undefined || list.name.includes(SCRUBBED)) continue;
    const before = seen.get(listKey(settled.url, list.name));
    if (before !== undefined && list.items === before + 1) grown.set(list.name, { kind: "list_grew", list: list.name, by: 1, from: before, revisited: true });
  }
  if (grown.size === 0) return [...changes];
  return [
    ...changes.filter((change) => !(change.kind === "list_grew" && ((change.list !== undefined && grown.has(change.list)) || change.appeared === true))),
    ...grown.values(),
  ];
}

/** A list at an address: the address as captured (routing query values kept) and the list's name. */
export const listKey = (url: string, name: string): string => `${url.split("#")[0]}\u0000${name}`;

/** Why a change proves nothing about the outcome, or undefined when it may. */
export function incidentalReason(change: PageChange, context: EvidenceContext): IncidentalReason | undefined {
  if (context.signIn && CHANGES_WITH_SIGN_IN.has(change.kind)) return "sign_in";
  const typed = context.known.some((parameter) => !isSecret(parameter));
  switch (change.kind) {
    case "list_grew":
      // A list the new page brings along (a sidebar, a dashboard panel) was not added to; one seen
      // at this same address before, one row shorter, was.
      if (context.newPage && change.revisited !== true && (change.appeared === true || typed)) return "page_furniture";
      // Entering one thing adds one item: a list that grew by several is something else.
      if (typed && change.by > 1) return "unrelated_list";
      return undefined;
    case "list_shrank":
      return context.newPage && typed ? "page_furniture" : undefined;
    case "counter":
      if (hasPerRunValue(change.text.replace(/\d+/, "1"))) return "per_run_value";
      return context.newPage && typed ? "page_furniture" : undefined;
    case "route":
      return (typed && RECORD_ID.test(change.to)) || LONG_NUMBER.test(change.to) ? "per_run_value" : undefined;
    case "title":
    case "heading":
      return hasPerRunValue(change.text) ? "per_run_value" : undefined;
    case "status":
      return stablePart(change.text) === undefined ? "per_run_value" : undefined;
    case "toggle":
    case "button":
    case "dialog_opened":
    case "dialog_closed":
      return undefined;
    default: {
      const unreachable: never = change;
      throw new Error(`unknown page change ${JSON.stringify(unreachable)}`);
    }
  }
}

/** For the sign-in recognition and anyone else who only asks whether a change may be evidence. */
export function isIncidentalEvidence(change: PageChange, context: EvidenceContext): boolean {
  return incidentalReason(change, context) !== undefined;
}

/** Field names that hold what a created thing is called: what its page title, heading and list row show. */
const NAMING = /(^|_)(title|name|subject|summary|heading|topic|page|label|caption|headline)(_|$)/;

/** Where a masked value was seen: a title, heading, name or address holds a short value, not a long text. */
export type MaskedPlace = "title" | "heading" | "status" | "route" | "name" | "row";

/**
 * The parameters a page may show in `place`, most likely first: never a secret; in a short place
 * never a long text or a file; fields that name the thing (title, name, subject) before others,
 * then in the order they were entered (the name of a thing is usually entered first).
 */
export function showableParameters(known: readonly SkillParameter[], place: MaskedPlace): SkillParameter[] {
  const short = place !== "status";
  const allowed = known.filter((parameter) => !isSecret(parameter) && parameter.type_hint !== "file" && !(short && parameter.type_hint === "long_text"));
  const naming = allowed.filter((parameter) => NAMING.test(parameter.name));
  return [...naming, ...allowed.filter((parameter) => !naming.includes(parameter))];
}

/**
 * The parameter a single masked value stands for, when it can be told: the only showable one, or
 * the only one that names the thing. Undefined when two could be it: a wrong guess would make the
 * check fail on the rehearsal's own test values.
 */
function soleCandidate(known: readonly SkillParameter[], place: MaskedPlace): SkillParameter | undefined {
  const candidates = showableParameters(known, place);
  if (candidates.length === 1) return candidates[0];
  const naming = candidates.filter((parameter) => NAMING.test(parameter.name));
  return naming.length === 1 ? naming[0] : undefined;
}

/**
 * Page text with each `•••` the capture cut out replaced by the `{{parameter}}` whose value it was
 * ("••• [Notes]" → "{{page_name}} [Notes]"). The capture only marks where a typed value was; which
 * one is told by what was entered before the page showed it. Undefined when a mark cannot be told.
 */
export function withParameters(text: string, known: readonly SkillParameter[], place: MaskedPlace): string | undefined {
  const marks = text.split(SCRUBBED).length - 1;
  if (marks === 0) return text;
  if (marks === 1) {
    const parameter = soleCandidate(known, place);
    return parameter === undefined ? undefined : text.replace(SCRUBBED, `{{${parameter.name}}}`);
  }
  // Several marks: each value once, in the order entered, when there are exactly as many.
  const candidates = known.filter((parameter) => !isSecret(parameter) && parameter.type_hint !== "file");
  if (candidates.length !== marks) return undefined;
  let index = 0;
  return text.replace(new RegExp(SCRUBBED, "g"), () => `{{${(candidates[index++] as SkillParameter).name}}}`);
}

/** The parameter whose value one new row shows: the one that names the thing, else the last entered. */
export function rowParameter(entered: readonly SkillParameter[]): SkillParameter | undefined {
  const candidates = showableParameters(entered, "row");
  return candidates.find((parameter) => NAMING.test(parameter.name)) ?? candidates.at(-1);
}

/** How telling a kind of change is when no input shows in it: a notice first, then what the action opened or changed, then where it led. */
const PREFERENCE: readonly PageChange["kind"][] = [
  "status",
  "dialog_opened",
  "list_grew",
  "toggle",
  "title",
  "route",
  "list_shrank",
  "dialog_closed",
  "counter",
  "heading",
  "button",
];

/** Within a kind, a control that became checked (the option picked) says more than the one that lost it. */
const turnedOn = (change: PageChange) => (change.kind === "toggle" && /^(checked|selected|pressed|expanded|sorted)/.test(change.state) ? 0 : 1);

/** Whether the page shows one of the inputs in this change (a masked value, or a new row after an entry). */
function showsInput(change: PageChange, context: EvidenceContext): boolean {
  switch (change.kind) {
    case "title":
    case "heading":
    case "status":
      return change.text.includes(SCRUBBED);
    case "route":
      return change.to.includes(SCRUBBED);
    case "list_grew":
      return change.by === 1 && rowParameter(context.entered) !== undefined;
    default:
      return false;
  }
}

/**
 * The changes that may prove the sub-goal, most telling first (issue #35): those that show an input
 * (the created thing with the inputs in it), then a success notice, then what opened or changed,
 * then the new page's title, address and heading. Incidental changes are left out.
 */
export function rankEvidence(changes: readonly PageChange[], context: EvidenceContext): PageChange[] {
  return changes
    .filter((change) => !isIncidentalEvidence(change, context))
    .map((change) => ({ change, input: showsInput(change, context) ? 0 : 1 }))
    .sort((a, b) => a.input - b.input || PREFERENCE.indexOf(a.change.kind) - PREFERENCE.indexOf(b.change.kind) || turnedOn(a.change) - turnedOn(b.change))
    .map(({ change }) => change);
}
