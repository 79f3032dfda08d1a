import { isUnique, quote, type Root } from "./selector-context";

/**
 * CSS selectors, best first: a test-id attribute, stable ids, names and classes (anchored under the
 * nearest stable ancestor when not unique alone), else a structural path with `:nth-of-type`.
 */

/** Attributes teams put on elements for tests (the Recorder's list, most common first). */
const TEST_ID_ATTRIBUTES = ["data-testid", "data-test", "data-qa", "data-cy", "data-test-id", "data-qa-id", "data-testing"];
const TEST_ID_ATTRIBUTE_SET = new Set(TEST_ID_ATTRIBUTES);

export function testIdSelector(element: Element, root: Root): string | undefined {
  // Asked of every ancestor by the anchored and structural kinds: most have no test id at all.
  if (!element.hasAttributes() || !element.getAttributeNames().some((attribute) => TEST_ID_ATTRIBUTE_SET.has(attribute))) return undefined;
  for (const attribute of TEST_ID_ATTRIBUTES) {
    const value = element.getAttribute(attribute);
    if (!value) continue;
    const selector = `[${attribute}=${quote(value)}]`;
    if (isUnique(root, selector, element)) return selector;
  }
  return undefined;
}

/** Ids and classes that frameworks and CSS-in-JS generate change between builds or renders. */
export function looksGenerated(token: string): boolean {
  return (
    token.length > 40 ||
    /\d{3,}/.test(token) ||
    /^\d/.test(token) ||
    /[:]/.test(token) ||
    /^[a-f0-9-]{8,}$/i.test(token) ||
    /[a-z]\d+[a-z]+\d/i.test(token) ||
    /^(css|sc|jsx|emotion|styled|svelte|ember|ext-gen|mui|chakra|radix|headlessui|react-aria|ng-tns|tw)-/i.test(token) ||
    /^_[a-z0-9]{5,}$/i.test(token) ||
    /__[a-z0-9]{5,}$/i.test(token)
  );
}

/** Classes that say how an element looks right now, not what it is. */
const STATE_CLASS = /^(is-|has-)|^(active|selected|hover|focus|focused|open|opened|closed|disabled|checked|visible|hidden|show|shown|loading|current)$/i;

function stableClasses(element: Element): string[] {
  return [...element.classList].filter((name) => !looksGenerated(name) && !STATE_CLASS.test(name)).slice(0, 3);
}

/** The best CSS that finds the element in its root: a test id, a stable id, name, or classes, anchored when needed. */
export function bestCss(element: Element, root: Root): string {
  return testIdSelector(element, root) ?? stableCss(element, root) ?? structuralCss(element, root);
}

/** A CSS selector made of stable parts only (ids that do not look generated, name, stable classes). */
export function stableCss(element: Element, root: Root): string | undefined {
  const own = ownSimpleSelectors(element);
  for (const selector of own) if (isUnique(root, selector, element)) return selector;
  // Not unique on its own: anchor it under the nearest ancestor that has a stable id or test id.
  const anchor = nearestAnchor(element, root);
  if (anchor) {
    for (const selector of own) {
      const anchored = `${anchor} ${selector}`;
      if (isUnique(root, anchored, element)) return anchored;
    }
  }
  return undefined;
}

function ownSimpleSelectors(element: Element): string[] {
  const tag = cssTag(element);
  const selectors: string[] = [];
  if (element.id && !looksGenerated(element.id)) selectors.push(`#${CSS.escape(element.id)}`);
  const name = element.getAttribute("name");
  if (name && !looksGenerated(name)) {
    selectors.push(`${tag}[name=${quote(name)}]`);
    // A radio or checkbox value tells the options of a group apart; a text field's value attribute
    // may be a prefilled personal value, so it is never used.
    const value = element.getAttribute("value");
    if (value && /^(radio|checkbox)$/i.test(element.getAttribute("type") ?? "")) selectors.push(`${tag}[name=${quote(name)}][value=${quote(value)}]`);
  }
  const classes = stableClasses(element);
  if (classes.length > 0) {
    selectors.push(`${tag}.${classes.map((name) => CSS.escape(name)).join(".")}`);
  }
  const type = element.getAttribute("type");
  if (type && (element.tagName === "INPUT" || element.tagName === "BUTTON")) selectors.push(`${tag}[type=${quote(type)}]`);
  return selectors;
}

function cssTag(element: Element): string {
  return CSS.escape(element.localName);
}

function nearestAnchor(element: Element, root: Root): string | undefined {
  for (let parent = element.parentElement; parent !== null; parent = parent.parentElement) {
    const testId = testIdSelector(parent, root);
    if (testId) return testId;
    if (parent.id && !looksGenerated(parent.id)) {
      const selector = `#${CSS.escape(parent.id)}`;
      if (isUnique(root, selector, parent)) return selector;
    }
  }
  return undefined;
}

/**
 * A child-combinator path with :nth-of-type from the nearest anchor (or <html>): the least stable
 * kind, offered only when nothing stable exists. Inside a shadow root it starts at the root's top element.
 */
export function structuralCss(element: Element, root: Root, positions: Map<Element, number | undefined> = new Map()): string {
  const steps: string[] = [];
  let current: Element | null = element;
  while (current !== null) {
    if (current !== element) {
      const anchor = testIdSelector(current, root) ?? (current.id && !looksGenerated(current.id) ? `#${CSS.escape(current.id)}` : undefined);
      if (anchor && isUnique(root, anchor, current)) {
        steps.unshift(anchor);
        break;
      }
    }
    const parent: Element | null = current.parentElement;
    const position = parent ? positionAmongSameName(current, positions) : undefined;
    const step = position !== undefined ? `${cssTag(current)}:nth-of-type(${position})` : cssTag(current);
    steps.unshift(step);
    current = parent;
  }
  return steps.join(" > ");
}

/**
 * The element's 1-based position among its siblings of the same local name and namespace (what
 * both `:nth-of-type` and XPath's `name[n]` count), or undefined when it has no such sibling.
 * Stops early instead of copying the parent's children; remembered in `positions` for the call.
 */
export function positionAmongSameName(element: Element, positions: Map<Element, number | undefined>): number | undefined {
  if (positions.has(element)) return positions.get(element);
  const { localName, namespaceURI } = element;
  const same = (other: Element): boolean => other.localName === localName && other.namespaceURI === namespaceURI;
  const position = countSameName(element, same);
  positions.set(element, position);
  return position;
}

function countSameName(element: Element, same: (other: Element) => boolean): number | undefined {
  let position = 1;
  for (let sibling = element.previousElementSibling; sibling !== null; sibling = sibling.previousElementSibling) if (same(sibling)) position += 1;
  if (position > 1) return position;
  for (let sibling = element.nextElementSibling; sibling !== null; sibling = sibling.nextElementSibling) if (same(sibling)) return 1;
  return undefined;
}
