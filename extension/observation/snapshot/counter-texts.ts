import { subtreeText } from "../names/subtree-text";
import { contextOf } from "./list-counts";
import type { ChildView } from "./child-views";
import type { SnapshotMemo } from "./snapshot-memo";

/**
 * The snapshot's counters (issue #14): short texts with numbers ("2 items left"), never from inside
 * a row, a button, a link, a heading or a field.
 */

type Root = Document | ShadowRoot;

/** Text inside these is listed elsewhere (or typed): not a counter of its own. */
const NOT_COUNTER =
  "li, tr, button, a, h1, h2, h3, h4, h5, h6, input, textarea, select, option, script, style, noscript, svg, [role=status], [role=alert], [contenteditable], [role=button], [role=heading], [role=listitem], [role=row]";
const INLINE_TAGS = new Set(["STRONG", "B", "EM", "I", "SMALL", "SPAN", "MARK", "CODE", "DATA", "TIME", "ABBR"]);
const CONTAINERS = new Set(["BODY", "HTML", "MAIN", "SECTION", "ARTICLE", "FORM", "UL", "OL", "TABLE"]);
const MAX_TEXTS = 20;
const COUNTER_TEXT_MAX = 60;
const DIGIT = /\d/;

/** Elements of `NOT_COUNTER` by tag (what a page has most of: rows, buttons, links). */
const NOT_COUNTER_TAGS = new Set([
  "li",
  "tr",
  "button",
  "a",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "input",
  "textarea",
  "select",
  "option",
  "script",
  "style",
  "noscript",
  "svg",
]);

/**
 * An element no counter is read from inside: one of `NOT_COUNTER` that is not an inline tag (a
 * counter's phrase climbs out of a text only through inline tags, so every text inside it would
 * end at this element, which `NOT_COUNTER` refuses).
 */
function holdsNoCounter(element: Element): boolean {
  if (INLINE_TAGS.has(element.tagName)) return false;
  if (NOT_COUNTER_TAGS.has(element.localName)) return true;
  return element.hasAttributes() && (element.hasAttribute("role") || element.hasAttribute("contenteditable")) && element.matches(NOT_COUNTER);
}

/** A subtree no counter can come from: no text with a digit is reached below it (remembered by the memo while nothing in it changes). */
const QUIET = "no-counter-below";
/** Per parent: the positions of its children a counter may come from (neither skipped nor quiet). */
const LOUD_CHILDREN = "counter-children";

const hasDigitText = (parent: Element): boolean => {
  for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType === Node.TEXT_NODE && DIGIT.test(child.nodeValue ?? "")) return true;
  }
  return false;
};

/** One walk for counters: what it found so far, and where it goes on. */
interface CounterWalk {
  memo: SnapshotMemo;
  clean: (text: string, max?: number) => string;
  texts: string[];
  /** Set when a text's answer holds for everything inside an ancestor: the walk goes on after that ancestor. */
  skipTo: Element | null;
}

/**
 * Short texts with numbers (counters), in tree order, each read through `clean`: a walk over the
 * elements and texts of each root (as a TreeWalker gives them) that skips what no counter is read
 * from — rows, buttons, links, headings, fields — and subtrees the memo knows are quiet. Below an
 * element whose own texts hold no digit, only the children that changed since the walk last came
 * there (in the reads between too) and those a counter came from are visited: a list of 500 rows
 * costs nothing when one row changed.
 */
export function readTexts(roots: readonly Root[], memo: SnapshotMemo, clean: (text: string, max?: number) => string): string[] {
  const walk: CounterWalk = { memo, clean, texts: [], skipTo: null };
  for (const root of roots) {
    const start = root.nodeType === Node.DOCUMENT_NODE ? (root as Document).body : root;
    if (start === null || walk.texts.length >= MAX_TEXTS) continue;
    walkChildren(walk, start);
    walk.skipTo = null;
  }
  return walk.texts;
}

/** Visits one element child; true when it is quiet (and was seen whole). */
function visitElement(walk: CounterWalk, element: Element): boolean {
  // Rows, buttons, links, headings, fields: no text inside one is a counter, so none is visited.
  if (holdsNoCounter(element) || walk.memo.below(element, QUIET) === true) return true;
  const quiet = walkChildren(walk, element);
  if (quiet && walk.skipTo === null) walk.memo.rememberBelow(element, QUIET, true);
  return quiet;
}

/** Walks the children of `parent`; true when it is quiet (and the walk saw all of it). */
function walkChildren(walk: CounterWalk, parent: Node): boolean {
  if (parent.nodeType === Node.ELEMENT_NODE) {
    const view = walk.memo.children(parent as Element);
    if (!view.ownTexts(hasDigitText)) return walkElements(walk, view);
  }
  let quiet = true;
  for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
    if (walk.texts.length >= MAX_TEXTS) return false;
    if (child.nodeType === Node.ELEMENT_NODE) {
      const below = visitElement(walk, child as Element);
      if (walk.skipTo !== null) {
        if (walk.skipTo !== child) return false;
        walk.skipTo = null;
        quiet = false;
      } else if (!below) quiet = false;
      continue;
    }
    if (child.nodeType !== Node.TEXT_NODE || !DIGIT.test(child.nodeValue ?? "")) continue;
    quiet = false;
    if (!readCounter(walk, child as Text)) return false;
  }
  return quiet;
}

/** Walks the element children of a parent whose own texts hold no digit: those that changed, and those a counter may come from. */
function walkElements(walk: CounterWalk, view: ChildView): boolean {
  const { elements } = view;
  // Kept by the walk that last went through these children; changed: since then, also in reads that did not come here (issue #32).
  const kept = view.state<Set<number>>(LOUD_CHILDREN);
  const changed = kept?.changed;
  const loud = changed !== undefined ? kept!.value : new Set<number>();
  const positions = changed !== undefined ? [...new Set([...loud, ...changed])].sort((a, b) => a - b) : elements.keys();
  view.setState(LOUD_CHILDREN, loud);
  let complete = true;
  for (const position of positions) {
    if (!complete || walk.texts.length >= MAX_TEXTS) {
      // Not seen this time: looked at again next time.
      complete = false;
      loud.add(position);
      continue;
    }
    const element = elements[position]!;
    const quiet = visitElement(walk, element);
    if (walk.skipTo !== null) {
      loud.add(position);
      if (walk.skipTo !== element) {
        complete = false;
        continue;
      }
      walk.skipTo = null;
    } else if (quiet) loud.delete(position);
    else loud.add(position);
  }
  if (!complete) {
    // Left early (a skip past an ancestor, or enough texts): the remaining positions were kept loud above.
    return false;
  }
  return loud.size === 0;
}

/** Reads the counter a text with a digit belongs to; false when the walk must go on after an ancestor (`skipTo`). */
function readCounter(walk: CounterWalk, text: Text): boolean {
  let holder = text.parentElement;
  // Up from the number to the short phrase it is part of ("<strong>2</strong> items left"), never to a whole section.
  while (
    holder !== null &&
    INLINE_TAGS.has(holder.tagName) &&
    holder.parentElement !== null &&
    !CONTAINERS.has(holder.parentElement.tagName) &&
    holder.parentElement.childElementCount <= 3 &&
    subtreeText(holder.parentElement).length <= COUNTER_TEXT_MAX
  )
    holder = holder.parentElement;
  if (holder === null) return true;
  const listed = holder.closest(NOT_COUNTER);
  if (listed !== null) {
    // Every other text inside it ends at the same answer (a holder climbs past an element only
    // through inline tags): the walk goes on after it. 500 rows cost one check each, not three.
    if (INLINE_TAGS.has(listed.tagName)) return true;
    walk.skipTo = listed;
    return false;
  }
  // Nothing from inside a list's row, even across a shadow boundary: a row may show what was typed.
  if (walk.memo.upward(holder, "row", contextOf) !== undefined || !walk.memo.isVisible(holder)) return true;
  const value = walk.clean(subtreeText(holder), COUNTER_TEXT_MAX + 1);
  if (value !== "" && value.length <= COUNTER_TEXT_MAX && !walk.texts.includes(value)) walk.texts.push(value);
  return true;
}
