import { isEditable, isNamedByTableOnly, roleOf } from "../names/accessible-name";
import { UNCACHED_NAMES, type Names } from "../names/name-cache";
import type { IndexKind } from "../page-index/page-index";
import { isShadowRoot } from "../snapshot/shadow-roots";

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

export interface SelectorContext {
  names: Names;
  /** The indexed elements of a kind in a root (page-index.ts); undefined when the root is not indexed. */
  elements?: (root: Root, kind: IndexKind) => readonly Element[] | undefined;
  /** False when nothing observed can be editable (page-index.ts): `isContentEditable`, a style update, need not be asked. */
  mayHoldEditable?: () => boolean;
}

const UNINDEXED: SelectorContext = { names: UNCACHED_NAMES };

/** Attributes teams put on elements for tests (the Recorder's list, most common first). */
const TEST_ID_ATTRIBUTES = ["data-testid", "data-test", "data-qa", "data-cy", "data-test-id", "data-qa-id", "data-testing"];
const TEST_ID_ATTRIBUTE_SET = new Set(TEST_ID_ATTRIBUTES);
const MAX_TEXT_SELECTOR_LENGTH = 64;
const MAX_SELECTOR_LENGTH = 1024;
const MAX_ALTERNATIVES = 12;

type Root = Document | ShadowRoot;

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

/** Exactly this element matches: the first match must be it (most selectors fail here, early), and there must be no second. */
function isUnique(root: Root, selector: string, element: Element): boolean {
  try {
    if (root.querySelector(selector) !== element) return false;
    return root.querySelectorAll(selector).length === 1;
  } catch {
    return false;
  }
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ")}"`;
}

function testIdSelector(element: Element, root: Root): string | undefined {
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
function queriedRoleCandidates(root: Root, role: string): ArrayLike<Element>[] {
  const byTag = (tag: string): ArrayLike<Element> => (isShadowRoot(root) ? root.querySelectorAll(tag) : root.getElementsByTagName(tag));
  const lists = (ROLE_TAGS[role] ?? []).map(byTag);
  lists.push(root.querySelectorAll(role === "textbox" ? `[role=${quote(role)}], [contenteditable]` : `[role=${quote(role)}]`));
  return lists;
}

/**
 * The page index's lists that hold every element `queriedRoleCandidates` would find for a role
 * (and others, which `isRoleCandidate` leaves out): `a` and `area` without `href` are not listed
 * there, but they have no role unless an explicit one, and then they are among the explicit roles.
 */
const INDEXED_ROLE_LISTS: Readonly<Record<string, readonly IndexKind[]>> = {
  button: ["buttons", "fields"],
  link: ["links", "areas"],
  textbox: ["fields", "roles"],
  searchbox: ["fields", "roles"],
  checkbox: ["fields", "roles"],
  radio: ["fields", "roles"],
  combobox: ["fields", "roles"],
  listbox: ["fields", "roles"],
  heading: ["headings"],
};

/** Whether the element is among the candidates `queriedRoleCandidates` finds for a role. */
function isRoleCandidate(element: Element, role: string): boolean {
  if ((ROLE_TAGS[role] ?? []).includes(element.localName) || element.getAttribute("role") === role) return true;
  return role === "textbox" && element.hasAttribute("contenteditable");
}

/** Above this many candidates uniqueness cannot be checked cheaply, and an unchecked selector is not offered. */
const MAX_ROLE_CANDIDATES = 1000;

function ariaSelector(element: Element, root: Root, name: string, { names, elements }: SelectorContext): string[] | undefined {
  // Puppeteer's ARIA syntax reads `[attr="…"]` after the name: a name with brackets cannot be written.
  if (!name || /[[\]"]/.test(name) || name.endsWith("…")) return undefined;
  // A field named after its column header has no name the browser knows (accessible-name.ts).
  if (isNamedByTableOnly(element, names.labels)) return undefined;
  const role = roleOf(element);
  if (role === "generic" || role === "none" || role === "presentation") return undefined;
  // Chromium exposes an editable region without a role of its own as generic: `[role="textbox"]` would not find it.
  if (role === "textbox" && !element.hasAttribute("role") && element.tagName !== "INPUT" && element.tagName !== "TEXTAREA") return undefined;
  const indexed = elements?.(root, "roles") !== undefined;
  const candidateLists = indexed ? (INDEXED_ROLE_LISTS[role] ?? ["roles"]).map((kind) => elements!(root, kind) ?? []) : queriedRoleCandidates(root, role);
  // Indexed lists hold a few more elements than the candidates (about the same count).
  if (candidateLists.reduce((sum, list) => sum + list.length, 0) > MAX_ROLE_CANDIDATES) return undefined;
  for (const candidates of candidateLists) {
    for (let index = 0; index < candidates.length; index += 1) {
      const candidate = candidates[index]!;
      // The remembered name first: it rules out almost every candidate without touching the DOM.
      if (candidate === element || names.name(candidate) !== name || names.memo(candidate, "role", roleOf) !== role) continue;
      if (!indexed || isRoleCandidate(candidate, role)) return undefined;
    }
  }
  return [`aria/${name}[role="${role}"]`];
}

/**
 * Label-based alternatives for fields: the aria-label or placeholder as an attribute selector, and
 * (outside shadow DOM) an XPath that finds the field through its <label>, which survives generated ids.
 */
function labelSelectors(element: Element, root: Root, name: string, inShadow: boolean, names: Names): string[] {
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

/** Above this many elements in a root, checking a text selector's uniqueness costs more than it is worth. */
const MAX_ELEMENTS_FOR_TEXT_CHECK = 5000;

/** Text nodes a text selector's check visits before it counts occurrences in the root's whole text instead. */
const TEXT_NODES_WALKED = 64;

function textSelector(element: Element, root: Root, { names, mayHoldEditable }: SelectorContext): string[] | undefined {
  if (["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName) || (mayHoldEditable?.() !== false && isEditable(element))) return undefined;
  const text = names.text(element);
  if (!text || text.length > MAX_TEXT_SELECTOR_LENGTH) return undefined;
  // Unique when exactly one text node in the root holds the whole text, and it is the element's
  // own. A repeated text usually shows within the first text nodes ("Add" in "Address"): that
  // answer needs no count of the root's elements (after a page change, a walk of the whole root).
  const holders = textHolders(element.ownerDocument, root, text, 2, TEXT_NODES_WALKED);
  if (holders.found.length > 1) return undefined;
  // A document's live element collection knows its length cheaply; a shadow root is small enough to count.
  const elementCount = isShadowRoot(root) ? root.querySelectorAll("*").length : root.getElementsByTagName("*").length;
  if (elementCount > MAX_ELEMENTS_FOR_TEXT_CHECK) return undefined;
  // A small root is walked whole.
  if (holders.complete) return holders.found.length === 1 && element.contains(holders.found[0]!) ? [`text/${text}`] : undefined;
  // Else the root's whole text (its text nodes, concatenated) is searched once: every holder is a
  // place where the text occurs there, so one place means at most one holder, which must be the
  // element's own. Two places count as not unique even when one straddles two text nodes: Puppeteer
  // finds `text/` by an element's whole text content, so it would match there too.
  if (countOccurrences(wholeText(root), text, 2) !== 1) return undefined;
  const own = textHolders(element.ownerDocument, element, text, 1, Number.POSITIVE_INFINITY);
  return own.found.length === 1 ? [`text/${text}`] : undefined;
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

/** The text of every text node in the root, in tree order (what a walk of its text nodes reads). */
function wholeText(root: Root): string {
  return (isShadowRoot(root) ? root.textContent : root.documentElement?.textContent) ?? "";
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
function structuralCss(element: Element, root: Root, positions: Map<Element, number | undefined> = new Map()): string {
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
 * An XPath with positional steps from the nearest stable, unique id (or from /html): unique by
 * construction. The Recorder writes the anchor as `//*[@id="main"]`; `id("main")` is the same in
 * XPath 1.0 and looks the id up instead of scanning the page.
 */
function xpathSelector(element: Element, positions: Map<Element, number | undefined>): string[] | undefined {
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

/**
 * The element's 1-based position among its siblings of the same local name and namespace (what
 * both `:nth-of-type` and XPath's `name[n]` count), or undefined when it has no such sibling.
 * Stops early instead of copying the parent's children; remembered in `positions` for the call.
 */
function positionAmongSameName(element: Element, positions: Map<Element, number | undefined>): number | undefined {
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
