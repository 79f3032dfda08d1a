import { accessibleName, isEditable, roleOf, subtreeText } from "./accessible-name";

/**
 * Several selectors for one element, best first, in the Chrome DevTools Recorder shape (DESIGN §6):
 * each alternative is a list of parts, one per shadow root to pierce (`["#host", "button.buy"]`);
 * ARIA and text selectors pierce by themselves and have one part. Kinds, in order: test-id
 * attribute, `aria/Name[role="…"]`, label-based, `text/…`, stable css, `xpath/…`. A selector is
 * offered only when it finds exactly this element where it can be checked.
 */

/** Attributes teams put on elements for tests (the Recorder's list, most common first). */
const TEST_ID_ATTRIBUTES = ["data-testid", "data-test", "data-qa", "data-cy", "data-test-id", "data-qa-id", "data-testing"];
const MAX_TEXT_SELECTOR_LENGTH = 64;
const MAX_SELECTOR_LENGTH = 1024;
const MAX_ALTERNATIVES = 12;

type Root = Document | ShadowRoot;

export function selectorsFor(element: Element, name: string): string[][] {
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
  add(ariaSelector(own.element, own.root, name));
  for (const selector of labelSelectors(own.element, own.root, name, inShadow)) add([...hostParts, selector]);
  add(textSelector(own.element, own.root));
  const css = stableCss(own.element, own.root) ?? structuralCss(own.element, own.root);
  add([...hostParts, css]);
  if (!inShadow) add(xpathSelector(own.element));
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

export function isShadowRoot(node: Node): node is ShadowRoot {
  return node.nodeType === Node.DOCUMENT_FRAGMENT_NODE && (node as ShadowRoot).host !== undefined;
}

function isUnique(root: Root, selector: string, element: Element): boolean {
  try {
    const found = root.querySelectorAll(selector);
    return found.length === 1 && found[0] === element;
  } catch {
    return false;
  }
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ")}"`;
}

function testIdSelector(element: Element, root: Root): string | undefined {
  for (const attribute of TEST_ID_ATTRIBUTES) {
    const value = element.getAttribute(attribute);
    if (!value) continue;
    const selector = `[${attribute}=${quote(value)}]`;
    if (isUnique(root, selector, element)) return selector;
  }
  return undefined;
}

/** Tags that may carry a role implicitly, for the uniqueness check of ARIA selectors (explicit roles are queried too). */
const ROLE_TAGS: Readonly<Record<string, readonly string[]>> = {
  button: ["button", "summary", "input"],
  link: ["a", "area"],
  textbox: ["input", "textarea"],
  searchbox: ["input"],
  checkbox: ["input"],
  radio: ["input"],
  combobox: ["select", "input"],
  listbox: ["select"],
  heading: ["h1", "h2", "h3", "h4", "h5", "h6"],
};

/** Elements that may have this role: by tag (a document's tag collections are cheap) and by explicit role. */
function roleCandidates(root: Root, role: string): Element[] {
  const byTag = (tag: string): ArrayLike<Element> => (isShadowRoot(root) ? root.querySelectorAll(tag) : root.getElementsByTagName(tag));
  const candidates: Element[] = [];
  for (const tag of ROLE_TAGS[role] ?? []) candidates.push(...Array.from(byTag(tag)));
  candidates.push(...Array.from(root.querySelectorAll(role === "textbox" ? `[role=${quote(role)}], [contenteditable]` : `[role=${quote(role)}]`)));
  return candidates;
}
/** Above this many candidates uniqueness cannot be checked cheaply, and an unchecked selector is not offered. */
const MAX_ROLE_CANDIDATES = 1000;
/** Attributes a name can come from without appearing in the element's text. */
const NAME_ATTRIBUTES = ["aria-label", "aria-labelledby", "title", "alt", "value", "placeholder"];

function ariaSelector(element: Element, root: Root, name: string): string[] | undefined {
  // Puppeteer's ARIA syntax reads `[attr="…"]` after the name: a name with brackets cannot be written.
  if (!name || /[[\]"]/.test(name) || name.endsWith("…")) return undefined;
  const role = roleOf(element);
  if (role === "generic" || role === "none" || role === "presentation") return undefined;
  const candidates = roleCandidates(root, role);
  if (candidates.length > MAX_ROLE_CANDIDATES) return undefined;
  const firstWord = name.split(" ")[0]!;
  for (const candidate of candidates) {
    if (candidate === element) continue;
    // Cheap pre-check before the full name computation: could this candidate have the same name at all?
    const mayMatch =
      (candidate.textContent ?? "").includes(firstWord) ||
      NAME_ATTRIBUTES.some((attribute) => candidate.hasAttribute(attribute)) ||
      ((candidate as HTMLInputElement).labels?.length ?? 0) > 0;
    if (mayMatch && roleOf(candidate) === role && accessibleName(candidate) === name) return undefined;
  }
  return [`aria/${name}[role="${role}"]`];
}

/**
 * Label-based alternatives for fields: the aria-label or placeholder as an attribute selector, and
 * (outside shadow DOM) an XPath that finds the field through its <label>, which survives generated ids.
 */
function labelSelectors(element: Element, root: Root, name: string, inShadow: boolean): string[] {
  const selectors: string[] = [];
  const tag = element.tagName.toLowerCase();
  for (const attribute of ["aria-label", "placeholder"]) {
    const value = element.getAttribute(attribute);
    if (!value) continue;
    const selector = `${tag}[${attribute}=${quote(value)}]`;
    if (isUnique(root, selector, element)) selectors.push(selector);
  }
  const labels = (element as HTMLInputElement).labels;
  const label = labels?.[0];
  if (!inShadow && label && name) {
    const text = xpathLiteral(name);
    if (text !== undefined) {
      // id(…/@for) looks the id up once; `//*[@id=//label…]` would scan the page once per element.
      const xpath = label.contains(element)
        ? `//label[starts-with(normalize-space(), ${text})]//${xpathNameTest(element)}`
        : `id(//label[normalize-space()=${text}]/@for)`;
      if (xpathFinds(element, xpath)) selectors.push(`xpath/${xpath}`);
    }
  }
  return selectors;
}

/** Above this many elements in a root, checking a text selector's uniqueness costs more than it is worth. */
const MAX_ELEMENTS_FOR_TEXT_CHECK = 5000;

function textSelector(element: Element, root: Root): string[] | undefined {
  if (isEditable(element) || ["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName)) return undefined;
  const text = subtreeText(element);
  if (!text || text.length > MAX_TEXT_SELECTOR_LENGTH) return undefined;
  // A document's live element collection knows its length cheaply; a shadow root is small enough to count.
  const elementCount = isShadowRoot(root) ? root.querySelectorAll("*").length : root.getElementsByTagName("*").length;
  if (elementCount > MAX_ELEMENTS_FOR_TEXT_CHECK) return undefined;
  // Unique when exactly one text node in the root holds the whole text, and it is the element's own.
  const walker = element.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const firstWord = text.split(" ")[0]!;
  let holder: Node | undefined;
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const value = node.nodeValue ?? "";
    if (!value.includes(firstWord) || !value.replace(/\s+/g, " ").includes(text)) continue;
    if (holder !== undefined) return undefined;
    holder = node;
  }
  return holder !== undefined && element.contains(holder) ? [`text/${text}`] : undefined;
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
function bestCss(element: Element, root: Root): string {
  return testIdSelector(element, root) ?? stableCss(element, root) ?? structuralCss(element, root);
}

/** A CSS selector made of stable parts only (ids that do not look generated, name, stable classes). */
function stableCss(element: Element, root: Root): string | undefined {
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
function structuralCss(element: Element, root: Root): string {
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
    const sameTag = parent ? [...parent.children].filter((child) => child.localName === current!.localName) : [];
    const step = sameTag.length > 1 ? `${cssTag(current)}:nth-of-type(${sameTag.indexOf(current) + 1})` : cssTag(current);
    steps.unshift(step);
    current = parent;
  }
  return steps.join(" > ");
}

/**
 * An XPath with positional steps from the nearest stable, unique id (or from /html): unique by
 * construction. The Recorder writes the anchor as `//*[@id="main"]`; `id("main")` is the same in
 * XPath 1.0 and looks the id up instead of scanning the page.
 */
function xpathSelector(element: Element): string[] | undefined {
  const steps: string[] = [];
  for (let current: Element | null = element; current !== null; current = current.parentElement) {
    const literal = current.id && !looksGenerated(current.id) ? xpathLiteral(current.id) : undefined;
    if (literal !== undefined && isUnique(current.ownerDocument, `#${CSS.escape(current.id)}`, current)) {
      steps.unshift(`id(${literal})`);
      return [`xpath/${steps.join("/")}`];
    }
    const parent: Element | null = current.parentElement;
    const test = xpathNameTest(current);
    const siblings = parent ? [...parent.children].filter((child) => child.localName === current!.localName && child.namespaceURI === current!.namespaceURI) : [];
    steps.unshift(siblings.length > 1 ? `${test}[${siblings.indexOf(current) + 1}]` : test);
  }
  return [`xpath//${steps.join("/")}`];
}

/** HTML elements by name; others (SVG, MathML) by local-name(), which XPath in HTML documents needs. */
function xpathNameTest(element: Element): string {
  return element.namespaceURI === "http://www.w3.org/1999/xhtml" ? element.localName : `*[local-name()="${element.localName}"]`;
}

function xpathLiteral(text: string): string | undefined {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return undefined;
}

function xpathFinds(element: Element, xpath: string): boolean {
  const document = element.ownerDocument;
  try {
    const result = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    return result.snapshotLength === 1 && result.snapshotItem(0) === element;
  } catch {
    return false;
  }
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
