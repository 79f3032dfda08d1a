import type { PageSnapshot } from "../../shared/observation/page-snapshot";
import { roleOf, subtreeText, type Names } from "./accessible-name";

/**
 * The parts of a snapshot that say whether a sub-goal was reached (issue #14): lists and how many
 * items they show, controls with a state (checked, expanded, sorted), short texts with numbers (a
 * counter), and which buttons only show while the pointer is over something. No list item's text
 * and no name of a control inside a row leaves the page: a row often shows what was typed. Other
 * text goes through the caller's `clean` (scrub of typed values + length cut).
 */

type Root = Document | ShadowRoot;
type Extras = Required<Pick<PageSnapshot, "lists" | "toggles" | "texts" | "hover_revealed">>;

export const LIST_CONTAINERS = "ul, ol, table, [role=list], [role=listbox], [role=grid], [role=table], [role=tree]";
const LIST_ITEMS = "li, tr, [role=listitem], [role=option], [role=row], [role=treeitem]";
export const TOGGLES =
  "input[type=checkbox], input[type=radio], [role=checkbox], [role=radio], [role=switch], [role=menuitemcheckbox], [aria-pressed], [aria-expanded], [role=tab][aria-selected], [aria-sort]";
const CHECKED_INSIDE = "input[type=checkbox], input[type=radio], [aria-checked], [aria-selected]";
/** Text inside these is listed elsewhere (or typed): not a counter of its own. */
const NOT_COUNTER = "li, tr, button, a, h1, h2, h3, h4, h5, h6, input, textarea, select, option, script, style, noscript, svg, [role=status], [role=alert], [contenteditable], [role=button], [role=heading], [role=listitem], [role=row]";
const INLINE_TAGS = new Set(["STRONG", "B", "EM", "I", "SMALL", "SPAN", "MARK", "CODE", "DATA", "TIME", "ABBR"]);
const CONTAINERS = new Set(["BODY", "HTML", "MAIN", "SECTION", "ARTICLE", "FORM", "UL", "OL", "TABLE"]);
const LIMITS = { lists: 8, toggles: 40, texts: 20, hover: 40, counted: 500 } as const;
const COUNTER_TEXT_MAX = 60;
const DIGIT = /\d/;
/** Pseudo-classes that show or hide things while the pointer is over, or focus is inside, an ancestor. */
const POINTER_STATE = /:(hover|focus-within|focus-visible|focus)\b/g;
const VISIBILITY_PROPERTIES = ["display", "visibility", "opacity"] as const;

export interface HoverRules {
  /** Selectors (with the pointer states removed) of rules that show or hide descendants on hover or focus. */
  selectors(roots: readonly Root[]): string[];
}

/** Remembers each sheet's hover rules while its rule count stays (as state-styles.ts does). */
export function createHoverRules(): HoverRules {
  const known = new WeakMap<CSSStyleSheet, { ruleCount: number; selectors: string[] }>();
  const fromRules = (rules: CSSRuleList, into: string[], depth: number): void => {
    for (const rule of rules) {
      const style = rule as Partial<CSSStyleRule & CSSGroupingRule>;
      if (typeof style.selectorText === "string" && style.style !== undefined && VISIBILITY_PROPERTIES.some((property) => style.style?.getPropertyValue(property) !== "")) {
        for (const selector of style.selectorText.split(",")) {
          const at = selector.search(POINTER_STATE);
          // Only a state of an ancestor (`.row:hover .remove`): a button's own :hover changes its look, not whether it is there.
          if (at >= 0 && /[\s>+~]/.test(selector.slice(at).trim())) into.push(selector.replace(POINTER_STATE, "").trim());
        }
      }
      if (style.cssRules !== undefined && depth < 6) fromRules(style.cssRules, into, depth + 1);
    }
  };
  const ofSheet = (sheet: CSSStyleSheet): string[] => {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      return []; // another origin's sheet cannot be read
    }
    const remembered = known.get(sheet);
    if (remembered !== undefined && remembered.ruleCount === rules.length) return remembered.selectors;
    const selectors: string[] = [];
    fromRules(rules, selectors, 0);
    known.set(sheet, { ruleCount: rules.length, selectors });
    return selectors;
  };
  return {
    selectors(roots) {
      const all: string[] = [];
      for (const root of roots) {
        for (const sheet of root.styleSheets) all.push(...ofSheet(sheet));
        for (const sheet of root.adoptedStyleSheets ?? []) all.push(...ofSheet(sheet));
      }
      return all;
    },
  };
}

const defaultHoverRules = createHoverRules();

function isVisible(element: Element): boolean {
  return typeof element.checkVisibility === "function" ? element.checkVisibility() : true;
}

/** The elements matching `selector` under `root`, its descendants' open shadow roots included (bounded). */
function deepQueryAll(root: Element, selector: string, limit: number): Element[] {
  const found: Element[] = [];
  const scopes: Array<Element | ShadowRoot> = [root, ...(root.shadowRoot ? [root.shadowRoot] : [])];
  for (let index = 0; index < scopes.length && index < 50 && found.length < limit; index += 1) {
    for (const element of scopes[index]!.querySelectorAll("*")) {
      if (element.matches(selector)) found.push(element);
      if (element.shadowRoot) scopes.push(element.shadowRoot);
    }
  }
  return found;
}

function itemsOf(list: Element): Element[] {
  const items: Element[] = [];
  const take = (parent: Element) => {
    for (const child of parent.children) {
      if (items.length >= LIMITS.counted) return;
      if (child.tagName === "TEMPLATE" || child.tagName === "SCRIPT" || child.tagName === "STYLE") continue;
      if (child.tagName === "TBODY" || child.tagName === "THEAD" || child.tagName === "TFOOT") {
        if (child.tagName === "TBODY") take(child);
        continue;
      }
      if (list.tagName === "UL" || list.tagName === "OL" || child.matches(LIST_ITEMS)) items.push(child);
    }
  };
  take(list);
  return items.filter(isVisible);
}

/**
 * How many of a list's items hold a checked control: the item itself, or one inside it (inside
 * open shadow roots too). Where no observed shadow root is in the list (nearly always), one query
 * over the list finds the checked controls and each is given to the item it sits in; otherwise each
 * item is searched, shadow roots included.
 */
function checkedItems(list: Element, items: readonly Element[], shadowHosts: readonly Element[]): number {
  if (shadowHosts.some((host) => list.contains(host))) {
    return items.filter((item) => (item.matches(CHECKED_INSIDE) && isChecked(item)) || deepQueryAll(item, CHECKED_INSIDE, 4).some(isChecked)).length;
  }
  const itemSet = new Set(items);
  const checked = new Set<Element>();
  for (const control of list.querySelectorAll(CHECKED_INSIDE)) {
    if (!isChecked(control)) continue;
    for (let node: Element | null = control; node !== null && node !== list; node = node.parentElement) {
      if (itemSet.has(node)) {
        checked.add(node);
        break;
      }
    }
  }
  return checked.size;
}

/** Elements of `NOT_COUNTER` by tag (what a page has most of: rows, buttons, links). */
const NOT_COUNTER_TAGS = new Set(["li", "tr", "button", "a", "h1", "h2", "h3", "h4", "h5", "h6", "input", "textarea", "select", "option", "script", "style", "noscript", "svg"]);

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

/** The last node inside an element, in tree order (a walk set there goes on after the element). */
function lastInside(element: Node): Node {
  let node = element;
  while (node.lastChild !== null) node = node.lastChild;
  return node;
}

/** A heading just before the list (its own, or one of up to three ancestors' earlier siblings), or a caption. */
function listName(list: Element, names: Names): string {
  const own = names.name(list);
  if (own !== "") return own;
  const caption = list.querySelector(":scope > caption");
  if (caption !== null) return names.text(caption);
  let node: Element | null = list;
  for (let depth = 0; node !== null && depth < 4; depth += 1, node = node.parentElement) {
    for (let sibling = node.previousElementSibling; sibling !== null; sibling = sibling.previousElementSibling) {
      const heading = sibling.matches("h1, h2, h3, h4, h5, h6, [role=heading], label, legend") ? sibling : sibling.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]");
      if (heading !== null) return names.text(heading);
    }
  }
  return "";
}

function isChecked(element: Element): boolean {
  if (element instanceof HTMLInputElement) return element.checked;
  return element.getAttribute("aria-checked") === "true" || element.getAttribute("aria-selected") === "true";
}

function stateOf(element: Element): string {
  const sort = element.getAttribute("aria-sort");
  if (sort !== null) return sort === "none" ? "not sorted" : `sorted ${sort}`;
  if (element instanceof HTMLInputElement && (element.type === "checkbox" || element.type === "radio")) return element.indeterminate ? "mixed" : element.checked ? "checked" : "unchecked";
  const checked = element.getAttribute("aria-checked");
  if (checked !== null) return checked === "true" ? "checked" : checked === "mixed" ? "mixed" : "unchecked";
  const pressed = element.getAttribute("aria-pressed");
  if (pressed !== null) return pressed === "true" ? "pressed" : "not pressed";
  const selected = element.getAttribute("aria-selected");
  if (selected !== null) return selected === "true" ? "selected" : "not selected";
  const expanded = element.getAttribute("aria-expanded");
  return expanded === "true" ? "expanded" : "collapsed";
}

/**
 * The list row a control sits in (its name may be the row's text, which may be typed). A column
 * header is not in a row of the list: it is known by its name.
 */
function contextOf(element: Element): Element | undefined {
  if (element.tagName === "TH" || element.matches("[role=columnheader], [role=rowheader]")) return undefined;
  let node: Element | null = element;
  for (let depth = 0; node !== null && depth < 12; depth += 1) {
    const parent: Element | null = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null);
    if (parent === null) return undefined;
    // A row is a list item, or any element a list holds directly (a custom element in a <ul>).
    if (parent.matches(LIST_ITEMS) || parent.parentElement?.matches("ul, ol, [role=list]") === true) return parent;
    node = parent;
  }
  return undefined;
}

/** 1-based position of a row among its visible siblings. */
function rowPosition(row: Element): number | undefined {
  const parent = row.parentElement;
  if (parent === null || !isVisible(row)) return undefined;
  let position = 0;
  for (const sibling of parent.children) {
    if (sibling.tagName === "TEMPLATE" || sibling.tagName === "SCRIPT" || !isVisible(sibling)) continue;
    position += 1;
    if (sibling === row) return position;
  }
  return undefined;
}

export interface ExtrasOptions {
  roots: readonly Root[];
  names: Names;
  clean: (text: string, max?: number) => string;
  /** Names of the buttons and links the snapshot lists, to tell which of them are hover-revealed. */
  controls: (root: Root) => Iterable<Element>;
  /** The lists and the controls with a state in a root, in tree order (the page index keeps them; default: queried). Ones no longer in the page are skipped. */
  elements?: (root: Root, kind: "lists" | "toggles") => Iterable<Element>;
  hoverRules?: HoverRules;
}

const queried = (root: Root, kind: "lists" | "toggles"): Iterable<Element> => root.querySelectorAll(kind === "lists" ? LIST_CONTAINERS : TOGGLES);

export function readSnapshotExtras(options: ExtrasOptions): Extras {
  const { roots, names, clean, controls, elements = queried, hoverRules = defaultHoverRules } = options;
  const lists: Extras["lists"] = [];
  const candidates: Array<{ list: Element; inChrome: boolean; order: number }> = [];
  let order = 0;
  for (const root of roots) {
    for (const list of elements(root, "lists")) {
      if (!list.isConnected) continue;
      order += 1;
      // A list inside another list's item is part of that item.
      if (list.parentElement?.closest(LIST_ITEMS) != null || !isVisible(list)) continue;
      candidates.push({ list, inChrome: list.closest("nav, header, footer, [role=navigation], [role=banner], [role=contentinfo], [role=menu], [role=tablist]") !== null, order });
    }
  }
  candidates.sort((a, b) => Number(a.inChrome) - Number(b.inChrome) || a.order - b.order);
  const shadowHosts = roots.filter((root): root is ShadowRoot => root.nodeType === Node.DOCUMENT_FRAGMENT_NODE).map((root) => root.host);
  for (const { list } of candidates.slice(0, LIMITS.lists)) {
    const items = itemsOf(list);
    const name = clean(listName(list, names));
    lists.push({
      ...(name === "" ? {} : { name }),
      role: roleOf(list).slice(0, 40),
      items: items.length,
      checked: checkedItems(list, items, shadowHosts),
    });
  }

  const toggles: Extras["toggles"] = [];
  for (const root of roots) {
    for (const element of elements(root, "toggles")) {
      if (toggles.length >= LIMITS.toggles) break;
      if (!element.isConnected) continue;
      if (!isVisible(element) && !(element instanceof HTMLInputElement && element.parentElement !== null && isVisible(element.parentElement))) continue;
      const around = contextOf(element);
      // In a row: known by the row's position, never by a name that may be the row's (typed) text.
      const name = around === undefined ? clean(names.name(element)) : "";
      const row = around === undefined ? undefined : rowPosition(around);
      toggles.push({ ...(name === "" ? {} : { name }), role: roleOf(element).slice(0, 40), state: stateOf(element), ...(row === undefined ? {} : { row }) });
    }
  }

  const texts: string[] = [];
  for (const root of roots) {
    const start = root.nodeType === Node.DOCUMENT_NODE ? (root as Document).body : root;
    if (start === null) continue;
    const walker = (root.nodeType === Node.DOCUMENT_NODE ? (root as Document) : root.ownerDocument ?? document).createTreeWalker(start, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null && texts.length < LIMITS.texts; node = walker.nextNode()) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        // Rows, buttons, links, headings, fields: no text inside one is a counter, so none is visited.
        if (holdsNoCounter(node as Element)) walker.currentNode = lastInside(node);
        continue;
      }
      if (!DIGIT.test(node.nodeValue ?? "")) continue;
      let holder = node.parentElement;
      // Up from the number to the short phrase it is part of ("<strong>2</strong> items left"), never to a whole section.
      while (holder !== null && INLINE_TAGS.has(holder.tagName) && holder.parentElement !== null && !CONTAINERS.has(holder.parentElement.tagName) && holder.parentElement.childElementCount <= 3 && subtreeText(holder.parentElement).length <= COUNTER_TEXT_MAX) holder = holder.parentElement;
      if (holder === null) continue;
      const listed = holder.closest(NOT_COUNTER);
      if (listed !== null) {
        // Every other text inside it ends at the same answer (a holder climbs past an element only
        // through inline tags): the walk goes on after it. 500 rows cost one check each, not three.
        if (!INLINE_TAGS.has(listed.tagName)) walker.currentNode = lastInside(listed);
        continue;
      }
      // Nothing from inside a list's row, even across a shadow boundary: a row may show what was typed.
      if (contextOf(holder) !== undefined || !isVisible(holder)) continue;
      const text = clean(subtreeText(holder), COUNTER_TEXT_MAX + 1);
      if (text === "" || text.length > COUNTER_TEXT_MAX || texts.includes(text)) continue;
      texts.push(text);
    }
  }

  const hover_revealed: string[] = [];
  const selectors = hoverRules.selectors(roots);
  if (selectors.length > 0) {
    for (const root of roots) {
      for (const element of controls(root)) {
        if (hover_revealed.length >= LIMITS.hover) break;
        const revealed = selectors.some((selector) => {
          try {
            return selector !== "" && element.matches(selector);
          } catch {
            return false;
          }
        });
        const name = revealed ? clean(names.name(element)) : "";
        if (name !== "" && !hover_revealed.includes(name)) hover_revealed.push(name);
      }
    }
  }
  return { lists, toggles, texts, hover_revealed };
}
