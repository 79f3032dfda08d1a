import { isEditable } from "../names/accessible-name";
import { isShadowRoot, rootText } from "../snapshot/shadow-roots";
import type { Root, SelectorContext } from "./selector-context";

/** `text/…`: offered when exactly one text node in the root holds the element's whole text, and it is the element's own. */

const MAX_TEXT_SELECTOR_LENGTH = 64;

/** Above this many elements in a root, checking a text selector's uniqueness costs more than it is worth. */
const MAX_ELEMENTS_FOR_TEXT_CHECK = 5000;

/** Text nodes a text selector's check visits before it counts occurrences in the root's whole text instead. */
const TEXT_NODES_WALKED = 64;

export function textSelector(element: Element, root: Root, { names, mayHoldEditable, wholeText }: SelectorContext): string[] | undefined {
  if (["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName) || (mayHoldEditable?.() !== false && isEditable(element))) return undefined;
  const text = names.text(element);
  if (!text || text.length > MAX_TEXT_SELECTOR_LENGTH) return undefined;
  // Unique when exactly one text node in the root holds the whole text, and it is the element's
  // own. A repeated text usually shows within the first text nodes ("Add" in "Address"): that
  // answer needs no count of the root's elements (after a page change, a walk of the whole root).
  const holders = textHolders(element.ownerDocument, root, text, 2, TEXT_NODES_WALKED);
  if (holders.found.length > 1) return undefined;
  if (!checksWholeText(root)) return undefined;
  // A small root is walked whole.
  if (holders.complete) return holders.found.length === 1 && element.contains(holders.found[0]!) ? [`text/${text}`] : undefined;
  // Else the root's whole text (its text nodes, concatenated) is searched once: every holder is a
  // place where the text occurs there, so one place means at most one holder, which must be the
  // element's own. Two places count as not unique even when one straddles two text nodes: Puppeteer
  // finds `text/` by an element's whole text content, so it would match there too.
  if (countOccurrences(wholeText?.(root) ?? rootText(root), text, 2) !== 1) return undefined;
  const own = textHolders(element.ownerDocument, element, text, 1, Number.POSITIVE_INFINITY);
  return own.found.length === 1 ? [`text/${text}`] : undefined;
}

/** Whether a text check in this root may search its whole text: above `MAX_ELEMENTS_FOR_TEXT_CHECK` elements it gives up instead. */
export function checksWholeText(root: Root): boolean {
  // A document's live element collection knows its length cheaply; a shadow root is small enough to count.
  const elementCount = isShadowRoot(root) ? root.querySelectorAll("*").length : root.getElementsByTagName("*").length;
  return elementCount <= MAX_ELEMENTS_FOR_TEXT_CHECK;
}

/** Text nodes under `scope` whose whitespace-collapsed value holds the text: up to `limit` of them, walking at most `budget` nodes. */
function textHolders(document: Document, scope: Node, text: string, limit: number, budget: number): { found: Node[]; complete: boolean } {
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  const firstWord = text.split(" ")[0]!;
  const found: Node[] = [];
  let visited = 0;
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    if (++visited > budget) return { found, complete: false };
    const value = node.nodeValue ?? "";
    if (!value.includes(firstWord) || !value.replace(/\s+/g, " ").includes(text)) continue;
    found.push(node);
    if (found.length >= limit) return { found, complete: false };
  }
  return { found, complete: true };
}

/** How many places (up to `limit`) a whitespace-normalized text starts at in a raw text where it occurs with any whitespace runs. */
function countOccurrences(haystack: string, text: string, limit: number): number {
  const pattern = new RegExp(text.split(" ").map(escapeRegExp).join("\\s+"), "g");
  let count = 0;
  while (count < limit) {
    const match = pattern.exec(haystack);
    if (match === null) break;
    count += 1;
    // Overlapping places count too: every holder starts one.
    pattern.lastIndex = match.index + 1;
  }
  return count;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
