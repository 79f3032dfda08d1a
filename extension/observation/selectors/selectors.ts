import { UNCACHED_NAMES } from "../names/name-cache";
import { isShadowRoot } from "../snapshot/shadow-roots";
import { ariaSelector } from "./aria-selector";
import { bestCss, stableCss, structuralCss, testIdSelector } from "./css-selectors";
import { labelSelectors } from "./label-selectors";
import type { Root, SelectorContext } from "./selector-context";
import { textSelector } from "./text-selector";
import { xpathSelector } from "./xpath-selectors";

/**
 * Several selectors for one element, best first, in the Chrome DevTools Recorder shape (DESIGN §6):
 * each alternative is a list of parts, one per shadow root to pierce (`["#host", "button.buy"]`);
 * ARIA and text selectors pierce by themselves and have one part. Kinds, in order: test-id
 * attribute, `aria/Name[role="…"]`, label-based, `text/…`, stable css, `xpath/…`. A selector is
 * offered only when it finds exactly this element where it can be checked.
 *
 * The checks are what a click costs on a large page, so they do only what their answer needs: the
 * names of other elements come from the page index's cache, candidates for a role from its lists,
 * a uniqueness check stops at the first other match, and a text is looked for in the page's text
 * before any node is visited.
 */

const UNINDEXED: SelectorContext = { names: UNCACHED_NAMES };
const MAX_SELECTOR_LENGTH = 1024;
const MAX_ALTERNATIVES = 12;

export function selectorsFor(element: Element, name: string, context: SelectorContext = UNINDEXED): string[][] {
  const chain = shadowChain(element);
  const inShadow = chain.length > 1;
  const alternatives: string[][] = [];
  const add = (parts: (string | undefined)[] | undefined): void => {
    if (parts === undefined || parts.some((part) => part === undefined || part.length === 0 || part.length > MAX_SELECTOR_LENGTH)) return;
    const clean = parts as string[];
    if (!alternatives.some((existing) => existing.join("\u0000") === clean.join("\u0000"))) alternatives.push(clean);
  };

  // Host parts: how to reach each shadow host from its own root, outermost first.
  const hostParts = chain.slice(0, -1).map(({ element: host, root }) => bestCss(host, root));
  const own = chain[chain.length - 1]!;

  const testId = testIdSelector(own.element, own.root);
  if (testId) add([...hostParts, testId]);
  add(ariaSelector(own.element, own.root, name, context));
  for (const selector of labelSelectors(own.element, own.root, name, inShadow, context.names)) add([...hostParts, selector]);
  add(textSelector(own.element, own.root, context));
  // Both positional kinds need an element's place among its siblings: counted once (a list of 500 rows is long).
  const positions = new Map<Element, number | undefined>();
  const css = stableCss(own.element, own.root) ?? structuralCss(own.element, own.root, positions);
  add([...hostParts, css]);
  if (!inShadow) add(xpathSelector(own.element, positions));
  return alternatives.slice(0, MAX_ALTERNATIVES);
}

/** The element and each shadow host above it, with the root each one lives in, outermost first. */
function shadowChain(element: Element): { element: Element; root: Root }[] {
  const chain: { element: Element; root: Root }[] = [];
  let current: Element | undefined = element;
  while (current !== undefined) {
    const root = current.getRootNode() as Root;
    chain.unshift({ element: current, root });
    current = isShadowRoot(root) ? root.host : undefined;
  }
  return chain;
}

/**
 * The Recorder's `frame` path: for each frame from the top down, its index among its parent's
 * frames (`window.frames`). Empty for the top document.
 */
export function framePathOf(document: Document): number[] {
  const path: number[] = [];
  let view: Window | null = document.defaultView;
  while (view !== null && view.parent !== view) {
    const parent: Window = view.parent;
    let index = -1;
    for (let candidate = 0; candidate < parent.frames.length; candidate += 1) {
      if (parent.frames[candidate] === view) {
        index = candidate;
        break;
      }
    }
    if (index < 0) break;
    path.unshift(index);
    view = parent;
  }
  return path;
}
