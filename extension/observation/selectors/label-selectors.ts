import type { Names } from "../names/name-cache";
import { isUnique, quote, type Root } from "./selector-context";
import { xpathFinds, xpathLiteral, xpathNameTest } from "./xpath-selectors";

/**
 * Label-based alternatives for fields: the aria-label or placeholder as an attribute selector, and
 * (outside shadow DOM) an XPath that finds the field through its <label>, which survives generated ids.
 */
export function labelSelectors(element: Element, root: Root, name: string, inShadow: boolean, names: Names): string[] {
  const selectors: string[] = [];
  const tag = element.tagName.toLowerCase();
  for (const attribute of ["aria-label", "placeholder"]) {
    const value = element.getAttribute(attribute);
    if (!value) continue;
    const selector = `${tag}[${attribute}=${quote(value)}]`;
    if (isUnique(root, selector, element)) selectors.push(selector);
  }
  const label = names.labels(element)[0];
  if (!inShadow && label && name) {
    const text = xpathLiteral(name);
    if (text !== undefined) {
      // id(…/@for) looks the id up once; `//*[@id=//label…]` would scan the page once per element.
      const nested = label.contains(element);
      const xpath = nested ? `//label[starts-with(normalize-space(), ${text})]//${xpathNameTest(element)}` : `id(//label[normalize-space()=${text}]/@for)`;
      const found = labelXPathFinds(element, name, nested, names) ?? xpathFinds(element, xpath);
      if (found) selectors.push(`xpath/${xpath}`);
    }
  }
  return selectors;
}

const XHTML = "http://www.w3.org/1999/xhtml";
/** Whitespace XPath's normalize-space() and our text agree on; with any other kind the XPath is evaluated instead. */
const OTHER_WHITESPACE = /[^\S \t\r\n]/;

/**
 * What the label XPaths above find, answered from the document's labels without evaluating them
 * (Blink's XPath walks the whole page): `id(//label[normalize-space()=T]/@for)` is the elements
 * whose id a label with that exact text names, `//label[starts-with(normalize-space(), T)]//tag`
 * the tag's elements inside labels starting so. Undefined where the answer could differ from
 * Blink's (not an HTML document, unusual whitespace, non-HTML labels): then the XPath is evaluated.
 */
function labelXPathFinds(element: Element, text: string, nested: boolean, names: Names): boolean | undefined {
  const document = element.ownerDocument;
  if (document.contentType !== "text/html" || element.namespaceURI !== XHTML) return undefined;
  const found = new Set<Element>();
  for (const label of names.documentLabels(document)) {
    // What a label's text and `for` say is remembered with its name (forgotten when it or what is inside it changes).
    const normalized = names.memo(label, "xpath-label-text", normalizedLabelText);
    if (normalized === undefined) return undefined;
    if (nested) {
      if (!normalized.startsWith(text)) continue;
      for (const inside of label.getElementsByTagName(element.localName)) {
        if (inside.namespaceURI !== XHTML) return undefined;
        found.add(inside);
      }
    } else {
      if (normalized !== text) continue;
      const forId = label.getAttribute("for");
      if (forId === null) continue;
      if (/\s/.test(forId)) return undefined;
      const target = document.getElementById(forId);
      if (target !== null) found.add(target);
    }
    if (found.size > 1) return false;
  }
  return found.size === 1 && found.has(element);
}

/** A label's text as XPath's normalize-space() gives it, or undefined where ours could differ (not HTML, unusual whitespace). */
function normalizedLabelText(label: Element): string | undefined {
  if (label.namespaceURI !== XHTML) return undefined;
  const value = label.textContent ?? "";
  if (OTHER_WHITESPACE.test(value)) return undefined;
  return value.replace(/[ \t\r\n]+/g, " ").replace(/^ | $/g, "");
}
