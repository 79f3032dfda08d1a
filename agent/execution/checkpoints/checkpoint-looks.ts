import type { Page, SerializedAXNode } from "puppeteer-core";
import type { SuccessCheck } from "../../../shared/learning/checkpoints/success-conditions";
import { reachableFrames } from "../pages/frame-reach";
import { firstNumberIn, numberShape, readPageFacts, type PageFacts } from "../pages/page-facts";
import { normalize, routeEndsWith, textMatcher } from "../pages/text-match";

/** One look at the live page for one kind of success check (checkpoint-check.ts waits and looks again). */

export interface CheckpointVerdict {
  result: "passed" | "failed" | "skipped";
  /** The evidence found (or missed), as text for a `ValidationStepResult`; never HTML. */
  details: string;
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
  for (const frame of (await reachableFrames(page)).frames) {
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
  // Each frame of the page's own origin by itself: a frame of another site is not read (frame-reach.ts).
  const roots: SerializedAXNode[] = [];
  const main = await page.accessibility.snapshot({ interestingOnly: false, includeIframes: false });
  if (main !== null) roots.push(main);
  for (const frame of (await reachableFrames(page)).frames) {
    if (frame === page.mainFrame()) continue;
    // Puppeteer's own per-frame tree (what `includeIframes` reads for every frame), asked of ours only.
    const tree = (frame as unknown as { accessibility?: Pick<Page["accessibility"], "snapshot"> }).accessibility;
    const root = tree === undefined ? null : await tree.snapshot({ interestingOnly: false }).catch(() => null);
    if (root !== null) roots.push(root);
  }
  const found: Array<{ role: string; name: string }> = [];
  const stack: SerializedAXNode[] = roots.reverse();
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

type Check<K extends SuccessCheck["kind"]> = Extract<SuccessCheck, { kind: K }>;
type Values = Readonly<Record<string, string>>;

/** One look at the page: passed with the evidence found, or failed with what was there instead. */
export async function lookOnce(
  page: Page,
  check: Exclude<SuccessCheck, { kind: "by_hand" }>,
  values: Values,
  baseline: PageFacts | undefined,
): Promise<CheckpointVerdict> {
  switch (check.kind) {
    case "page_says":
      return pageSays(page, check, values);
    case "dialog_open":
      return dialogOpen(page, check);
    case "dialog_closed":
      return dialogClosed(page, check);
    case "page_title": {
      const title = normalize(await page.title());
      if (textMatcher(check.text, true, values)(title)) return { result: "passed", details: `page title is "${title}"` };
      return { result: "failed", details: `expected the page title "${check.text}"; the title is "${title}"` };
    }
    case "heading": {
      const headings = (await readAccessibleNodes(page, HEADING_ROLES)).map((node) => node.name);
      const heading = headings.find(textMatcher(check.text, true, values));
      if (heading !== undefined) return { result: "passed", details: `found heading "${heading}"` };
      return { result: "failed", details: `expected a heading "${check.text}"; headings on the page: ${quoteList(headings)}` };
    }
    case "button": {
      const buttons = (await readAccessibleNodes(page, BUTTON_ROLES)).map((node) => node.name);
      const button = buttons.find(textMatcher(check.name, true));
      if (button !== undefined) return { result: "passed", details: `found button "${button}"` };
      return { result: "failed", details: `expected a button "${check.name}"; buttons on the page: ${quoteList(buttons)}` };
    }
    case "route": {
      const url = new URL(page.url());
      const route = `${url.pathname}${url.hash}`;
      if (routeEndsWith(route, check.route, values)) return { result: "passed", details: `the address is ${route}` };
      return { result: "failed", details: `expected the address to end with "${check.route}"; it is ${route}` };
    }
    case "list_has_value":
      return listHasValue(page, check, values);
    case "list_count":
      return listCount(page, check, baseline);
    case "control_state":
      return controlState(page, check, values);
    case "counter":
      return counter(page, check, baseline);
    default: {
      const unreachable: never = check;
      throw new Error(`unknown success check ${JSON.stringify(unreachable)}`);
    }
  }
}

async function pageSays(page: Page, check: Check<"page_says">, values: Values): Promise<CheckpointVerdict> {
  const { statuses, body } = await readPageText(page);
  const matches = textMatcher(check.text, false, values);
  const status = statuses.find(matches);
  if (status !== undefined) return { result: "passed", details: `found status "${status}"` };
  if (matches(body)) return { result: "passed", details: `found "${check.text}" in the page text (not in a status or alert region)` };
  return {
    result: "failed",
    details: `expected the page to say "${check.text}"; status messages on the page: ${quoteList(statuses)}; not in the page text either`,
  };
}

async function dialogOpen(page: Page, check: Check<"dialog_open">): Promise<CheckpointVerdict> {
  const dialogs = await readAccessibleNodes(page, DIALOG_ROLES);
  if (check.name === undefined) {
    const first = dialogs[0];
    if (first !== undefined) return { result: "passed", details: first.name ? `found open dialog "${first.name}"` : "found an open dialog" };
    return { result: "failed", details: "expected an open dialog; none is open" };
  }
  const dialog = dialogs.find((candidate) => textMatcher(check.name as string, true)(candidate.name));
  if (dialog !== undefined) return { result: "passed", details: `found open dialog "${dialog.name}"` };
  return {
    result: "failed",
    details: `expected an open dialog "${check.name}"; open dialogs: ${quoteList(dialogs.map((candidate) => candidate.name || "(unnamed)"))}`,
  };
}

async function dialogClosed(page: Page, check: Check<"dialog_closed">): Promise<CheckpointVerdict> {
  const dialogs = await readAccessibleNodes(page, DIALOG_ROLES);
  const still = dialogs.find((candidate) => textMatcher(check.name, true)(candidate.name));
  if (still === undefined)
    return {
      result: "passed",
      details: `dialog "${check.name}" is not open (open dialogs: ${quoteList(dialogs.map((candidate) => candidate.name || "(unnamed)"))})`,
    };
  return { result: "failed", details: `expected dialog "${check.name}" to be closed; it is still open` };
}

async function listHasValue(page: Page, check: Check<"list_has_value">, values: Values): Promise<CheckpointVerdict> {
  const value = values[check.parameter];
  if (value === undefined || value.trim() === "") return { result: "failed", details: `no test value for {{${check.parameter}}} to look for` };
  const facts = await readPageFacts(page);
  const lists = facts.lists.filter((list) => check.list === undefined || textMatcher(check.list, true)(list.name));
  const wanted = normalize(value).toLowerCase();
  const found = lists.find((list) => list.items.some((item) => item.toLowerCase().includes(wanted)));
  if (found !== undefined)
    return { result: "passed", details: `an item of the ${found.name ? `"${found.name}" ` : ""}list shows the test value of {{${check.parameter}}}` };
  return {
    result: "failed",
    details: `no item of ${check.list ? `the "${check.list}" list` : "any list"} shows the test value of {{${check.parameter}}} (${lists.length} list(s), ${lists.reduce((sum, list) => sum + list.items.length, 0)} items)`,
  };
}

async function listCount(page: Page, check: Check<"list_count">, baseline: PageFacts | undefined): Promise<CheckpointVerdict> {
  if (baseline === undefined) return { result: "failed", details: "the page was not read before the steps, so the change in the list cannot be told" };
  const facts = await readPageFacts(page);
  const named = (name: string) => check.list === undefined || textMatcher(check.list, true)(name);
  const countOf = (lists: PageFacts["lists"]) => lists.filter((list) => named(list.name)).map((list) => list.items.length);
  const before = countOf(baseline.lists);
  const after = countOf(facts.lists);
  // Lists pair by position among the matching ones; one that appeared counted from 0 (and one that went, to 0).
  const length = Math.max(before.length, after.length);
  for (let index = 0; index < length; index += 1) {
    if ((after[index] ?? 0) - (before[index] ?? 0) === check.delta)
      return { result: "passed", details: `the ${check.list ? `"${check.list}" ` : ""}list went from ${before[index] ?? 0} to ${after[index] ?? 0} items` };
  }
  return {
    result: "failed",
    details: `expected the ${check.list ? `"${check.list}" ` : ""}list to change by ${check.delta} item(s); item counts before ${JSON.stringify(before)}, now ${JSON.stringify(after)}`,
  };
}

async function controlState(page: Page, check: Check<"control_state">, values: Values): Promise<CheckpointVerdict> {
  const facts = await readPageFacts(page);
  const sameRole = facts.toggles.filter((toggle) => toggle.role === check.role || (check.role === "checkbox" && toggle.role === "switch"));
  let candidates = sameRole;
  let where: string;
  if (check.row === undefined) {
    candidates = sameRole.filter((toggle) => textMatcher(check.name ?? "", true)(toggle.name));
    where = `"${check.name}"`;
  } else if ("parameter" in check.row) {
    const value = values[check.row.parameter];
    if (value === undefined) return { result: "failed", details: `no test value for {{${check.row.parameter}}} to find its item by` };
    const wanted = normalize(value).toLowerCase();
    candidates = sameRole.filter((toggle) => toggle.context.toLowerCase().includes(wanted));
    where = `the item showing the test value of {{${check.row.parameter}}}`;
  } else if ("text" in check.row) {
    const matches = textMatcher(check.row.text, false);
    candidates = sameRole.filter((toggle) => matches(toggle.context));
    where = `the item "${check.row.text}"`;
  } else {
    const position = check.row.position;
    const listName = check.row.list;
    const list = (await readPageFacts(page)).lists.find((candidate) => listName === undefined || textMatcher(listName, true)(candidate.name));
    const item = list?.items[position - 1];
    candidates = item === undefined ? [] : sameRole.filter((toggle) => toggle.context === item);
    where = `item ${position}`;
  }
  const good = candidates.find((toggle) => toggle.state === check.state);
  if (good !== undefined) return { result: "passed", details: `the ${check.role} of ${where} is ${check.state}` };
  if (candidates.length === 0) return { result: "failed", details: `no ${check.role} of ${where} found (${sameRole.length} ${check.role}(es) on the page)` };
  return {
    result: "failed",
    details: `expected the ${check.role} of ${where} to be ${check.state}; it is ${candidates.map((toggle) => toggle.state).join(", ")}`,
  };
}

async function counter(page: Page, check: Check<"counter">, baseline: PageFacts | undefined): Promise<CheckpointVerdict> {
  if (baseline === undefined) return { result: "failed", details: "the page was not read before the steps, so the change of the number cannot be told" };
  const facts = await readPageFacts(page);
  const shape = textMatcher(check.pattern, true);
  const numbersOf = (texts: readonly string[]) => texts.filter((text) => shape(numberShape(text))).map(firstNumberIn);
  const before = numbersOf(baseline.texts);
  const after = numbersOf(facts.texts);
  const changed = after.some(
    (now, index) =>
      now !== undefined && before[index] !== undefined && (check.delta === undefined ? now !== before[index] : now - (before[index] as number) === check.delta),
  );
  if (changed) return { result: "passed", details: `the number in "${check.pattern}" went from ${before.join(", ")} to ${after.join(", ")}` };
  return {
    result: "failed",
    details: `expected the number in "${check.pattern}" to ${check.delta === undefined ? "change" : `change by ${check.delta}`}; before ${before.join(", ") || "none"}, now ${after.join(", ") || "none"}`,
  };
}
