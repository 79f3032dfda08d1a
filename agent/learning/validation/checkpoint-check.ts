import { SCRUBBED } from "../../../shared/observation/typed-value-scrubber";
import type { Page, SerializedAXNode } from "puppeteer-core";

/**
 * What a checkpoint's `success_condition` asks of the page. The compiler writes these sentences
 * from fixed templates (`evidence()` in compiler/interpret.ts); anything else is a person's own
 * words, which only a person can confirm.
 */
export type SuccessCheck =
  | { kind: "page_says"; text: string }
  | { kind: "dialog_open"; name: string | undefined }
  | { kind: "dialog_closed"; name: string }
  | { kind: "page_title"; text: string }
  | { kind: "heading"; text: string }
  | { kind: "button"; name: string }
  | { kind: "by_hand"; text: string };

export interface CheckpointVerdict {
  result: "passed" | "failed" | "skipped";
  /** The evidence found (or missed), as text for a `ValidationStepResult`; never HTML. */
  details: string;
}

export const BY_HAND_REASON = "not machine-checkable; confirm by hand";

/** `cleanText` ends text it shortened with this (extension/observation/accessible-name.ts). */
const ELLIPSIS = "…";
/** Success conditions are cut at this length (interpret.ts), which may cut off the closing quote. */
const CONDITION_MAX = 240;

// The templates of interpret.ts `evidence()`, in the same order. `(.*)` is greedy so a quote inside the text is kept.
const TEMPLATES: ReadonlyArray<{ prefix: string; suffix: string; make: (text: string) => SuccessCheck }> = [
  { prefix: 'The page says "', suffix: '"', make: (text) => ({ kind: "page_says", text }) },
  { prefix: 'A dialog "', suffix: '" is open', make: (name) => ({ kind: "dialog_open", name }) },
  { prefix: 'The "', suffix: '" dialog is closed', make: (name) => ({ kind: "dialog_closed", name }) },
  { prefix: 'A page titled "', suffix: '" is shown', make: (text) => ({ kind: "page_title", text }) },
  { prefix: 'The heading "', suffix: '" appears', make: (text) => ({ kind: "heading", text }) },
  { prefix: 'A "', suffix: '" button appears', make: (name) => ({ kind: "button", name }) },
];

/** Reads a success condition back into the check it was written from. */
export function parseSuccessCondition(condition: string): SuccessCheck {
  const trimmed = condition.trim();
  if (trimmed === "A dialog is open") return { kind: "dialog_open", name: undefined };
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

function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Compares page text with captured text. The capture scrubbed typed values to `•••` and the
 * rehearsal types different test values, so `•••` matches any text; a trailing `…` means the
 * capture shortened the text, so it matches as a prefix. Case is ignored (CSS text-transform).
 */
export function textMatcher(expected: string, whole: boolean): (actual: string) => boolean {
  let text = normalize(expected);
  const shortened = text.endsWith(ELLIPSIS);
  if (shortened) text = text.slice(0, -ELLIPSIS.length).trimEnd();
  const body = text.split(SCRUBBED).map((part) => escapeRegExp(part)).join(".+?");
  const pattern = new RegExp(whole ? `^${body}${shortened ? "" : "$"}` : body, "i");
  return (actual) => pattern.test(normalize(actual));
}

/** Status regions as the capture reads them (extension/observation/snapshot-observer.ts `STATUS`). */
const STATUS = "[role=status], [role=alert], output, [aria-live=polite], [aria-live=assertive]";
const BODY_TEXT_MAX = 200_000;

/**
 * Runs in the page, as source text: a function compiled by tsx carries `__name` helpers that do not
 * exist in the page. Walks open shadow roots too, as the capture does.
 */
const READ_TEXT_SCRIPT = `(() => {
  const roots = [document];
  for (let index = 0; index < roots.length && index < 500; index += 1) {
    for (const element of roots[index].querySelectorAll("*")) if (element.shadowRoot) roots.push(element.shadowRoot);
  }
  const statuses = [];
  for (const root of roots) for (const element of root.querySelectorAll(${JSON.stringify(STATUS)})) statuses.push(element.textContent || "");
  const body = document.body ? document.body.innerText : "";
  return { statuses, body: body.slice(0, ${BODY_TEXT_MAX}) };
})()`;

interface PageText {
  statuses: string[];
  body: string;
}

async function readPageText(page: Page): Promise<PageText> {
  const statuses: string[] = [];
  let body = "";
  for (const frame of page.frames()) {
    // A frame that is navigating or detached has nothing to read this round.
    const read = (await frame.evaluate(READ_TEXT_SCRIPT).catch(() => undefined)) as Partial<PageText> | undefined;
    if (read === undefined) continue;
    statuses.push(...(read.statuses ?? []).map(normalize).filter((text) => text !== ""));
    body += `${read.body ?? ""}\n`;
  }
  return { statuses, body };
}

/**
 * Role and name of what the browser exposes to assistive technology: hidden and closed things are
 * not in it. The whole tree: Puppeteer's "interesting only" pruning drops headings.
 */
async function readAccessibleNodes(page: Page, roles: ReadonlySet<string>): Promise<Array<{ role: string; name: string }>> {
  const root = await page.accessibility.snapshot({ interestingOnly: false, includeIframes: true });
  const found: Array<{ role: string; name: string }> = [];
  const stack: SerializedAXNode[] = root === null ? [] : [root];
  while (stack.length > 0) {
    const node = stack.pop() as SerializedAXNode;
    if (roles.has(node.role)) found.push({ role: node.role, name: normalize(node.name ?? "") });
    stack.push(...(node.children ?? []));
  }
  return found.reverse();
}

const DIALOG_ROLES = new Set(["dialog", "alertdialog"]);
const HEADING_ROLES = new Set(["heading"]);
const BUTTON_ROLES = new Set(["button"]);

function quoteList(items: readonly string[], max = 5): string {
  if (items.length === 0) return "none";
  const shown = items.slice(0, max).map((item) => `"${item.length > 80 ? `${item.slice(0, 79)}…` : item}"`);
  return items.length > max ? `${shown.join(", ")} and ${items.length - max} more` : shown.join(", ");
}

/** One look at the page: passed with the evidence found, or failed with what was there instead. */
async function lookOnce(page: Page, check: Exclude<SuccessCheck, { kind: "by_hand" }>): Promise<CheckpointVerdict> {
  switch (check.kind) {
    case "page_says": {
      const { statuses, body } = await readPageText(page);
      const matches = textMatcher(check.text, false);
      const status = statuses.find(matches);
      if (status !== undefined) return { result: "passed", details: `found status "${status}"` };
      if (matches(body)) return { result: "passed", details: `found "${check.text}" in the page text (not in a status or alert region)` };
      return { result: "failed", details: `expected the page to say "${check.text}"; status messages on the page: ${quoteList(statuses)}; not in the page text either` };
    }
    case "dialog_open": {
      const dialogs = await readAccessibleNodes(page, DIALOG_ROLES);
      if (check.name === undefined) {
        const first = dialogs[0];
        if (first !== undefined) return { result: "passed", details: first.name ? `found open dialog "${first.name}"` : "found an open dialog" };
        return { result: "failed", details: "expected an open dialog; none is open" };
      }
      const dialog = dialogs.find((candidate) => textMatcher(check.name as string, true)(candidate.name));
      if (dialog !== undefined) return { result: "passed", details: `found open dialog "${dialog.name}"` };
      return { result: "failed", details: `expected an open dialog "${check.name}"; open dialogs: ${quoteList(dialogs.map((candidate) => candidate.name || "(unnamed)"))}` };
    }
    case "dialog_closed": {
      const dialogs = await readAccessibleNodes(page, DIALOG_ROLES);
      const still = dialogs.find((candidate) => textMatcher(check.name, true)(candidate.name));
      if (still === undefined) return { result: "passed", details: `dialog "${check.name}" is not open (open dialogs: ${quoteList(dialogs.map((candidate) => candidate.name || "(unnamed)"))})` };
      return { result: "failed", details: `expected dialog "${check.name}" to be closed; it is still open` };
    }
    case "page_title": {
      const title = normalize(await page.title());
      if (textMatcher(check.text, true)(title)) return { result: "passed", details: `page title is "${title}"` };
      return { result: "failed", details: `expected the page title "${check.text}"; the title is "${title}"` };
    }
    case "heading": {
      const headings = (await readAccessibleNodes(page, HEADING_ROLES)).map((node) => node.name);
      const heading = headings.find(textMatcher(check.text, true));
      if (heading !== undefined) return { result: "passed", details: `found heading "${heading}"` };
      return { result: "failed", details: `expected a heading "${check.text}"; headings on the page: ${quoteList(headings)}` };
    }
    case "button": {
      const buttons = (await readAccessibleNodes(page, BUTTON_ROLES)).map((node) => node.name);
      const button = buttons.find(textMatcher(check.name, true));
      if (button !== undefined) return { result: "passed", details: `found button "${button}"` };
      return { result: "failed", details: `expected a button "${check.name}"; buttons on the page: ${quoteList(buttons)}` };
    }
    default: {
      const unreachable: never = check;
      throw new Error(`unknown success check ${JSON.stringify(unreachable)}`);
    }
  }
}

export interface CheckOptions {
  /** How long the page may take to reach the state (a status set after a fetch, a dialog animating open). */
  timeoutMs: number;
  /** Polling interval; 150 ms by default. */
  intervalMs?: number;
  /** Stops waiting early, for instance when the rehearsal found a policy breach. */
  shouldStop?: () => boolean;
}

/**
 * §0C.14 rehearsal: checks a checkpoint's success condition against the live page, waiting up to
 * `timeoutMs` for it to hold. Free-text conditions are skipped: only a person can confirm them.
 */
export async function checkSuccessCondition(page: Page, condition: string, options: CheckOptions): Promise<CheckpointVerdict> {
  const check = parseSuccessCondition(condition);
  if (check.kind === "by_hand") return { result: "skipped", details: `${BY_HAND_REASON}: "${check.text}"` };
  const deadline = Date.now() + options.timeoutMs;
  const interval = options.intervalMs ?? 150;
  let last: CheckpointVerdict = { result: "failed", details: "the page could not be read" };
  for (;;) {
    try {
      last = await lookOnce(page, check);
      if (last.result === "passed") return last;
    } catch (error) {
      // The page may be between documents (execution context destroyed): look again.
      last = { result: "failed", details: `the page could not be read: ${firstLine(error)}` };
    }
    if (Date.now() + interval > deadline || options.shouldStop?.() === true) return last;
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split("\n")[0] ?? "").slice(0, 300);
}
