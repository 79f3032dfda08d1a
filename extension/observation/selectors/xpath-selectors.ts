import { looksGenerated, positionAmongSameName } from "./css-selectors";
import { isUnique } from "./selector-context";

/**
 * An XPath with positional steps from the nearest stable, unique id (or from /html): unique by
 * construction. The Recorder writes the anchor as `//*[@id="main"]`; `id("main")` is the same in
 * XPath 1.0 and looks the id up instead of scanning the page.
 */
export function xpathSelector(element: Element, positions: Map<Element, number | undefined>): string[] | undefined {
  const steps: string[] = [];
  for (let current: Element | null = element; current !== null; current = current.parentElement) {
    const literal = current.id && !looksGenerated(current.id) ? xpathLiteral(current.id) : undefined;
    if (literal !== undefined && isUnique(current.ownerDocument, `#${CSS.escape(current.id)}`, current)) {
      steps.unshift(`id(${literal})`);
      return [`xpath/${steps.join("/")}`];
    }
    const test = xpathNameTest(current);
    const position = current.parentElement ? positionAmongSameName(current, positions) : undefined;
    steps.unshift(position !== undefined ? `${test}[${position}]` : test);
  }
  return [`xpath//${steps.join("/")}`];
}

/** HTML elements by name; others (SVG, MathML) by local-name(), which XPath in HTML documents needs. */
export function xpathNameTest(element: Element): string {
  return element.namespaceURI === "http://www.w3.org/1999/xhtml" ? element.localName : `*[local-name()="${element.localName}"]`;
}

export function xpathLiteral(text: string): string | undefined {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return undefined;
}

export function xpathFinds(element: Element, xpath: string): boolean {
  const document = element.ownerDocument;
  try {
    const result = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    return result.snapshotLength === 1 && result.snapshotItem(0) === element;
  } catch {
    return false;
  }
}
