/**
 * The sentences a checkpoint's `success_condition` is written in, and reading them back (issue
 * #14). One table for both directions: the compiler writes a check as words a person reads in
 * SKILL.md and the review drawer; the rehearsal (execution/checkpoints/checkpoint-check.ts) reads the same
 * words back into the check. Anything else is a person's own words, which only a person confirms.
 */

/** Which row a control sits in: by the parameter it shows, its own text, or its position. */
export type RowRef = { parameter: string } | { text: string } | { position: number; list: string | undefined };

export type SuccessCheck =
  | { kind: "page_says"; text: string }
  | { kind: "dialog_open"; name: string | undefined }
  | { kind: "dialog_closed"; name: string }
  | { kind: "page_title"; text: string }
  | { kind: "heading"; text: string }
  | { kind: "button"; name: string }
  | { kind: "route"; route: string }
  | { kind: "list_has_value"; parameter: string; list: string | undefined }
  | { kind: "list_count"; list: string | undefined; delta: number }
  | { kind: "control_state"; name: string | undefined; row: RowRef | undefined; role: string; state: string }
  | { kind: "counter"; pattern: string; delta: number | undefined }
  | { kind: "by_hand"; text: string };

/** Checks whose result depends on the page before the checkpoint's steps ran. */
export function needsBaseline(check: SuccessCheck): boolean {
  return check.kind === "list_count" || check.kind === "counter";
}

const STATES =
  "checked|unchecked|mixed|pressed|not pressed|selected|not selected|expanded|collapsed|sorted ascending|sorted descending|sorted other|not sorted";

/** The word a sentence uses for a control's role. */
export function roleWord(role: string): string {
  switch (role) {
    case "radio":
      return "option";
    case "columnheader":
      return "column";
    case "menuitemcheckbox":
      return "menu option";
    case "":
    case "generic":
      return "control";
    default:
      return role;
  }
}

/** How a sentence names a list row: by the parameter it shows, its own text, or its position. */
export function rowWords(row: RowRef): string {
  if ("parameter" in row) return `the item showing {{${row.parameter}}}`;
  if ("text" in row) return `the item "${row.text}"`;
  return `item ${row.position} of the ${row.list ? `"${row.list}" ` : ""}list`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** The sentence for a check. */
export function writeSuccessCondition(check: SuccessCheck): string {
  switch (check.kind) {
    case "page_says":
      return `The page says "${check.text}"`;
    case "dialog_open":
      return check.name ? `A dialog "${check.name}" is open` : "A dialog is open";
    case "dialog_closed":
      return `The "${check.name}" dialog is closed`;
    case "page_title":
      return `A page titled "${check.text}" is shown`;
    case "heading":
      return `The heading "${check.text}" appears`;
    case "button":
      return `A "${check.name}" button appears`;
    case "route":
      return `The address ends with "${check.route}"`;
    case "list_has_value":
      return `An item showing {{${check.parameter}}} is in the ${check.list ? `"${check.list}" ` : ""}list`;
    case "list_count":
      return `The ${check.list ? `"${check.list}" ` : ""}list has ${check.delta > 0 ? `${plural(check.delta, "item")} more` : `${plural(-check.delta, "item")} fewer`}`;
    case "control_state":
      return check.row !== undefined
        ? `The ${roleWord(check.role)} of ${rowWords(check.row)} is ${check.state}`
        : `The "${check.name ?? ""}" ${roleWord(check.role)} is ${check.state}`;
    case "counter":
      return check.delta === undefined
        ? `The number in "${check.pattern}" changes`
        : `The number in "${check.pattern}" goes ${check.delta > 0 ? "up" : "down"} by ${Math.abs(check.delta)}`;
    case "by_hand":
      return check.text;
    default: {
      const unreachable: never = check;
      throw new Error(`unknown success check ${JSON.stringify(unreachable)}`);
    }
  }
}

/** `cleanText` ends text it shortened with this (extension/observation/accessible-name.ts). */
const ELLIPSIS = "…";
/** Success conditions are cut at this length (interpret.ts), which may cut off the closing quote. */
const CONDITION_MAX = 240;

// Quoted-text templates: `(.*)` is greedy so a quote inside the text is kept.
const TEMPLATES: ReadonlyArray<{ prefix: string; suffix: string; make: (text: string) => SuccessCheck }> = [
  { prefix: 'The page says "', suffix: '"', make: (text) => ({ kind: "page_says", text }) },
  { prefix: 'A dialog "', suffix: '" is open', make: (name) => ({ kind: "dialog_open", name }) },
  { prefix: 'The "', suffix: '" dialog is closed', make: (name) => ({ kind: "dialog_closed", name }) },
  { prefix: 'A page titled "', suffix: '" is shown', make: (text) => ({ kind: "page_title", text }) },
  { prefix: 'The heading "', suffix: '" appears', make: (text) => ({ kind: "heading", text }) },
  { prefix: 'A "', suffix: '" button appears', make: (name) => ({ kind: "button", name }) },
  { prefix: 'The address ends with "', suffix: '"', make: (route) => ({ kind: "route", route }) },
];

const PATTERNS: ReadonlyArray<{ pattern: RegExp; make: (match: RegExpExecArray) => SuccessCheck }> = [
  {
    pattern: /^An item showing \{\{([a-z0-9_]+)\}\} is in the (?:"(.+)" )?list$/,
    make: (m) => ({ kind: "list_has_value", parameter: m[1] as string, list: m[2] }),
  },
  {
    pattern: /^The (?:"(.+)" )?list has (\d+) items? (more|fewer)$/,
    make: (m) => ({ kind: "list_count", list: m[1], delta: Number(m[2]) * (m[3] === "more" ? 1 : -1) }),
  },
  {
    pattern: new RegExp(`^The ([a-z ]+?) of (?:the item showing \\{\\{([a-z0-9_]+)\\}\\}|the item "(.+)"|item (\\d+) of the (?:"(.+)" )?list) is (${STATES})$`),
    make: (m) => ({
      kind: "control_state",
      name: undefined,
      role: fromRoleWord(m[1] as string),
      row: m[2] !== undefined ? { parameter: m[2] } : m[3] !== undefined ? { text: m[3] } : { position: Number(m[4]), list: m[5] },
      state: m[6] as string,
    }),
  },
  {
    pattern: new RegExp(`^The "(.+)" ([a-z ]+?) is (${STATES})$`),
    make: (m) => ({ kind: "control_state", name: m[1], role: fromRoleWord(m[2] as string), row: undefined, state: m[3] as string }),
  },
  {
    pattern: /^The number in "(.+)" (?:goes (up|down) by (\d+)|changes)$/,
    make: (m) => ({ kind: "counter", pattern: m[1] as string, delta: m[2] === undefined ? undefined : Number(m[3]) * (m[2] === "up" ? 1 : -1) }),
  },
];

function fromRoleWord(word: string): string {
  switch (word) {
    case "option":
      return "radio";
    case "column":
      return "columnheader";
    case "menu option":
      return "menuitemcheckbox";
    case "control":
      return "generic";
    default:
      return word;
  }
}

/** Reads a success condition back into the check it was written from. */
export function parseSuccessCondition(condition: string): SuccessCheck {
  const trimmed = condition.trim();
  if (trimmed === "A dialog is open") return { kind: "dialog_open", name: undefined };
  for (const { pattern, make } of PATTERNS) {
    const match = pattern.exec(trimmed);
    if (match !== null) return make(match);
  }
  for (const template of TEMPLATES) {
    if (!trimmed.startsWith(template.prefix)) continue;
    if (trimmed.endsWith(template.suffix) && trimmed.length > template.prefix.length + template.suffix.length) {
      return template.make(trimmed.slice(template.prefix.length, trimmed.length - template.suffix.length));
    }
    // Cut at 240 characters: what is left is a prefix of the text, matched as one.
    if (condition.length >= CONDITION_MAX) return template.make(`${trimmed.slice(template.prefix.length)}${ELLIPSIS}`);
  }
  return { kind: "by_hand", text: trimmed };
}

/**
 * How the rehearsal checks a condition, in words for the person reviewing a proposal (the review
 * drawer). Undefined for a person's own words: only a person confirms those.
 */
export function explainCheck(check: SuccessCheck): string | undefined {
  switch (check.kind) {
    case "page_says":
      return `Looks for the text “${check.text}” on the page (a status or alert message first).`;
    case "dialog_open":
      return check.name ? `Checks that a dialog named “${check.name}” is open.` : "Checks that a dialog is open.";
    case "dialog_closed":
      return `Checks that the “${check.name}” dialog is no longer open.`;
    case "page_title":
      return `Checks that the page's title is “${check.text}”.`;
    case "heading":
      return `Checks that a heading “${check.text}” is shown.`;
    case "button":
      return `Checks that a “${check.name}” button is shown (not one that only appears under the pointer).`;
    case "route":
      return `Checks that the page's address ends with “${check.route}”.`;
    case "list_has_value":
      return `Checks that an item of the ${check.list ? `“${check.list}” ` : ""}list shows the value given for {{${check.parameter}}}.`;
    case "list_count":
      return `Counts the items of the ${check.list ? `“${check.list}” ` : ""}list before and after these steps: ${check.delta > 0 ? `${check.delta} more` : `${-check.delta} fewer`}.`;
    case "control_state":
      return check.row !== undefined
        ? `Checks that the ${roleWord(check.role)} in the row ${"parameter" in check.row ? `showing the value given for {{${check.row.parameter}}}` : "text" in check.row ? `“${check.row.text}”` : `at position ${check.row.position}`} is ${check.state}.`
        : `Checks that the “${check.name}” ${roleWord(check.role)} is ${check.state}.`;
    case "counter":
      return `Reads the number in “${check.pattern.replace("#", "…")}” before and after these steps: ${check.delta === undefined ? "it changes" : `${check.delta > 0 ? "up" : "down"} by ${Math.abs(check.delta)}`}.`;
    case "by_hand":
      return undefined;
    default: {
      const unreachable: never = check;
      throw new Error(`unknown success check ${JSON.stringify(unreachable)}`);
    }
  }
}
