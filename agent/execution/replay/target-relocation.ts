import type { ElementHandle, Frame } from "puppeteer-core";
import type { RelocationHint } from "../../../shared/execution/recorder-flow";

/**
 * Replay that survives change (issue #14): when every selector of a step misses, the target is
 * looked for by similarity to what the selectors say of it — its role and accessible name, its
 * text, its attributes (test id, id, name, type, classes), the ancestors its css path names, and
 * its position — and used only when one element is clearly the most similar. The rehearsal says it
 * relocated, and from what. Used by the executor (target-finder.ts).
 */

/** What a step's selectors say about its target. */
export interface TargetFingerprint {
  role?: string | undefined;
  name?: string | undefined;
  text?: string | undefined;
  tag?: string | undefined;
  id?: string | undefined;
  testId?: { attribute: string; value: string } | undefined;
  attributes: Array<{ name: string; value: string }>;
  classes: string[];
  /** `#id` and `.class` tokens of ancestors in the css path. */
  ancestors: string[];
  /** 1-based position among same-tag siblings, from the last step of an xpath or `:nth-of-type`/`:nth-child`. */
  position?: number | undefined;
  /** The row it sits in: the text that row shows (a test value), or the row's position. */
  rowText?: string | undefined;
  rowPosition?: number | undefined;
}

export interface Relocated {
  handle: ElementHandle<Element>;
  score: number;
  /** What matched, for the person reading the result ("role button, name "Save", class save"). */
  matched: string[];
}

const TEST_IDS = ["data-testid", "data-test", "data-qa", "data-cy", "data-test-id", "data-qa-id", "data-testing"];

/** Reads the selectors (Recorder syntax, best first) into one fingerprint of the element. */
export function fingerprintOf(selectors: readonly string[][]): TargetFingerprint {
  const print: TargetFingerprint = { attributes: [], classes: [], ancestors: [] };
  for (const parts of selectors) {
    const last = parts.at(-1);
    if (last === undefined) continue;
    const aria = /^aria\/(.*?)(?:\[role="([^"]*)"\])?$/.exec(last);
    if (aria !== null) {
      print.name ??= aria[1] || undefined;
      print.role ??= aria[2];
      continue;
    }
    if (last.startsWith("text/")) {
      print.text ??= last.slice(5);
      continue;
    }
    if (last.startsWith("xpath/")) {
      // The row it sits in: the last list item or table row on its path, and where that row is.
      const rowStep = [...last.matchAll(/\/(?:li|tr)\[(\d+)\]/g)].at(-1)?.[1];
      if (rowStep !== undefined) print.rowPosition ??= Number(rowStep);
      const position = /\[(\d+)\]$/.exec(last)?.[1];
      if (position !== undefined) print.position ??= Number(position);
      print.tag ??= /\/([a-z][a-z0-9-]*)(?:\[\d+\])?$/i.exec(last)?.[1]?.toLowerCase();
      continue;
    }
    if (last.startsWith("pierce/")) continue;
    // CSS: the last compound is the element; earlier ones are ancestors.
    const compounds = last.split(/\s*[>+~]\s*|\s+/).filter((part) => part !== "");
    const own = compounds.at(-1) ?? "";
    print.tag ??= /^[a-z][a-z0-9-]*/i.exec(own)?.[0]?.toLowerCase();
    print.id ??= /#([A-Za-z_][\w-]*)/.exec(own)?.[1];
    for (const match of own.matchAll(/\.([A-Za-z_][\w-]*)/g)) if (!print.classes.includes(match[1] as string)) print.classes.push(match[1] as string);
    for (const match of own.matchAll(/\[([\w-]+)="([^"]*)"\]/g)) {
      const [, attribute, value] = match as unknown as [string, string, string];
      if (TEST_IDS.includes(attribute)) print.testId ??= { attribute, value };
      else if (!print.attributes.some((known) => known.name === attribute)) print.attributes.push({ name: attribute, value });
    }
    const nth = /:nth-(?:of-type|child)\((\d+)\)/.exec(own)?.[1];
    if (nth !== undefined) print.position ??= Number(nth);
    const row = compounds
      .slice(0, -1)
      .map((compound) => /^(?:li|tr)\b.*:nth-(?:of-type|child)\((\d+)\)/.exec(compound)?.[1])
      .filter((position): position is string => position !== undefined)
      .at(-1);
    if (row !== undefined) print.rowPosition ??= Number(row);
    for (const ancestor of compounds.slice(0, -1))
      for (const token of ancestor.match(/[#.][A-Za-z_][\w-]*/g) ?? []) if (!print.ancestors.includes(token)) print.ancestors.push(token);
  }
  return print;
}

/**
 * In-page source shared by the scoring script and {@link rowShows}: `clean` (spacing and case
 * folded), `rowOf` (the list row an element sits in, across shadow roots) and `deepText` (a node's
 * text, open shadow roots included).
 */
const ROW_HELPERS = `const clean = (t) => (t || "").replace(/\\s+/g, " ").trim().toLowerCase();
  const rowOf = (el) => {
    for (let node = el, depth = 0; node && depth < 14; depth += 1) {
      const parent = node.parentElement || (node.getRootNode() && node.getRootNode().host) || null;
      if (!parent) return null;
      if (parent.matches("li, tr, [role=listitem], [role=option], [role=row], [role=treeitem]") || (parent.parentElement && parent.parentElement.matches("ul, ol, [role=list]"))) return parent;
      node = parent;
    }
    return null;
  };
  const deepText = (node) => { let text = ""; const visit = (n) => { if (n.nodeType === 3) text += " " + n.nodeValue; if (n.shadowRoot) n.shadowRoot.childNodes.forEach(visit); n.childNodes && n.childNodes.forEach(visit); }; visit(node); return clean(text); };`;

/**
 * Scores every element of the frame (open shadow roots included) against the fingerprint in the
 * page, as source text (see checkpoint-check.ts). Returns the best one's index in the walk order
 * with its score and what matched, and the runner-up's score.
 */
const SCORE_SCRIPT = `(print) => {
  const roots = [document];
  const all = [];
  for (let i = 0; i < roots.length && i < 500; i += 1) for (const el of roots[i].querySelectorAll("*")) { all.push(el); if (el.shadowRoot) roots.push(el.shadowRoot); }
  ${ROW_HELPERS}
  const roleOf = (el) => {
    const explicit = (el.getAttribute("role") || "").trim().split(/\\s+/)[0];
    if (explicit) return explicit.toLowerCase();
    const tag = el.tagName;
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "A" && el.hasAttribute("href")) return "link";
    if (tag === "SELECT") return "combobox";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "INPUT") { const t = (el.getAttribute("type") || "text").toLowerCase(); return t === "checkbox" ? "checkbox" : t === "radio" ? "radio" : ["button", "submit", "reset", "image"].includes(t) ? "button" : "textbox"; }
    return "";
  };
  const nameOf = (el) => {
    const label = el.getAttribute("aria-label");
    if (label) return clean(label);
    if (el.labels && el.labels.length) return clean([...el.labels].map((l) => l.textContent).join(" "));
    if (el.tagName === "INPUT") { if (["button", "submit"].includes(el.type) && el.value) return clean(el.value); return clean(el.getAttribute("placeholder") || el.getAttribute("title") || ""); }
    return clean(el.textContent).slice(0, 200);
  };
  const rowIndex = (row) => { let n = 0; for (const sibling of row.parentElement ? row.parentElement.children : []) { if (typeof sibling.checkVisibility === "function" && !sibling.checkVisibility()) continue; n += 1; if (sibling === row) return n; } return 0; };
  const positionOf = (el) => { let n = 1; for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === el.tagName) n += 1; return n; };
  const hasAncestor = (el, token) => { for (let a = el.parentElement || (el.getRootNode() && el.getRootNode().host); a; a = a.parentElement || (a.getRootNode() && a.getRootNode().host)) { if (token[0] === "#" ? a.id === token.slice(1) : a.classList.contains(token.slice(1))) return true; } return false; };
  let best = -1, bestScore = 0, second = 0, bestMatched = [];
  all.forEach((el, index) => {
    if (typeof el.checkVisibility === "function" && !el.checkVisibility()) return;
    let score = 0;
    const matched = [];
    const add = (points, what) => { score += points; matched.push(what); };
    const role = roleOf(el);
    if (print.role && role === print.role) add(2, "role " + role);
    if (print.name) { const name = nameOf(el); const want = clean(print.name); if (name === want) add(5, 'name "' + print.name + '"'); else if (want.length >= 3 && name.includes(want)) add(2, 'name contains "' + print.name + '"'); }
    if (print.text) { const text = clean(el.textContent); const want = clean(print.text); if (text === want) add(4, 'text "' + print.text + '"'); }
    if (print.testId && el.getAttribute(print.testId.attribute) === print.testId.value) add(6, print.testId.attribute);
    if (print.id && el.id === print.id) add(4, "id " + print.id);
    if (print.tag && el.tagName.toLowerCase() === print.tag) add(1, "tag " + print.tag);
    for (const a of print.attributes) if (el.getAttribute(a.name) === a.value) add(a.name === "name" ? 3 : a.name === "type" ? 1 : 2, a.name + "=" + a.value);
    for (const c of print.classes) if (el.classList.contains(c)) add(1, "class " + c);
    for (const t of print.ancestors) if (hasAncestor(el, t)) add(0.5, "inside " + t);
    if (print.rowText || print.rowPosition) {
      const row = rowOf(el);
      // A control bound to a row's text is never one in a row that does not show it (issue #35).
      if (print.rowText && !(row && deepText(row).includes(clean(print.rowText)))) return;
      if (row && print.rowText) add(6, "in the row showing the test value");
      if (row && print.rowPosition && rowIndex(row) === print.rowPosition) add(3, "in row " + print.rowPosition);
    }
    if (print.position !== undefined && print.tag && el.tagName.toLowerCase() === print.tag && positionOf(el) === print.position) add(0.5, "position " + print.position);
    if (score > bestScore) { second = bestScore; bestScore = score; best = index; bestMatched = matched; }
    else if (score > second) second = score;
  });
  return { index: best, score: bestScore, second, matched: bestMatched };
}`;

const HANDLE_SCRIPT = `(index) => {
  const roots = [document];
  const all = [];
  for (let i = 0; i < roots.length && i < 500; i += 1) for (const el of roots[i].querySelectorAll("*")) { all.push(el); if (el.shadowRoot) roots.push(el.shadowRoot); }
  return all[index] || null;
}`;

/** The least a candidate must score, and by how much it must beat the next one, to be taken. */
const MIN_SCORE = 4;
const MIN_MARGIN = 1.5;

/**
 * Finds the element most similar to the fingerprint, or undefined when none is similar enough or
 * two are equally so (acting on a guess would be worse than failing the step).
 */
export async function relocateBySimilarity(
  frame: Frame,
  selectors: readonly string[][],
  hint: RelocationHint | undefined = undefined,
  values: Readonly<Record<string, string>> = {},
): Promise<Relocated | undefined> {
  const print = fingerprintOf(selectors);
  // What the compiler knew of it beyond its selectors (its role and name, the row it sits in).
  if (hint !== undefined) {
    print.role ??= hint.role;
    print.name ??= hint.name;
    print.rowText = wantedRowText(hint, values);
    print.rowPosition = hint.row_position ?? print.rowPosition;
  }
  // A fingerprint with nothing but a tag and a position would match any sibling: not enough to act on.
  if (
    print.name === undefined &&
    print.text === undefined &&
    print.testId === undefined &&
    print.id === undefined &&
    print.attributes.length === 0 &&
    print.classes.length === 0 &&
    print.rowText === undefined &&
    print.rowPosition === undefined
  )
    return undefined;
  const scored = (await frame.evaluate(`(${SCORE_SCRIPT})(${JSON.stringify(print)})`)) as { index: number; score: number; second: number; matched: string[] };
  if (scored.index < 0 || scored.score < MIN_SCORE || scored.score - scored.second < MIN_MARGIN) return undefined;
  const handle = (await frame.evaluateHandle(`(${HANDLE_SCRIPT})(${scored.index})`)).asElement() as ElementHandle<Element> | null;
  if (handle === null) return undefined;
  return { handle, score: scored.score, matched: scored.matched };
}

/**
 * A control the page shows only while the pointer is over its row (`.row:hover .remove`): hovers
 * over its nearest visible ancestor, as a person would, and says whether it is visible now.
 */
export async function revealByHover(handle: ElementHandle<Element>): Promise<boolean> {
  const ancestor = (
    await handle.evaluateHandle((element) => {
      let node: Element | null = element.parentElement;
      while (node !== null && typeof node.checkVisibility === "function" && !node.checkVisibility()) node = node.parentElement;
      return node;
    })
  ).asElement() as ElementHandle<Element> | null;
  if (ancestor === null) return false;
  try {
    await ancestor.hover();
    return await handle.isVisible();
  } catch {
    return false;
  } finally {
    await ancestor.dispose().catch(() => undefined);
  }
}

/**
 * The text a row-bound step's control must sit beside: the run's value of the parameter its row
 * shows, or the row's own text (issue #35). Undefined when the step is not bound to a row's text.
 */
export function wantedRowText(hint: RelocationHint | undefined, values: Readonly<Record<string, string>>): string | undefined {
  if (hint?.row_parameter !== undefined) return values[hint.row_parameter];
  return hint?.row_text;
}

/**
 * Whether the element sits in a list row that shows `wanted` (any case and spacing), or in no row
 * at all. A list drawn anew or sorted puts another row where the demonstration's was: a selector
 * by position then finds the wrong row's control, and acting there would change the wrong item.
 */
export async function rowShows(handle: ElementHandle<Element>, wanted: string): Promise<boolean> {
  const check = await handle.frame.evaluateHandle(`(element, want) => { ${ROW_HELPERS}
  const row = rowOf(element);
  return !row || deepText(row).includes(clean(want));
}`);
  try {
    return await check.evaluate((shows, element, want) => (shows as unknown as (element: Element, want: string) => boolean)(element, want), handle, wanted);
  } finally {
    await check.dispose().catch(() => undefined);
  }
}
