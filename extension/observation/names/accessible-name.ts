/**
 * Role and accessible name of an element, simplified from the W3C "Accessible Name and Description
 * Computation" (accname 1.2): aria-labelledby, aria-label, <label>, alt, button value, legend or
 * caption, text content (for roles named from content), title, placeholder. DESIGN §6 names steps
 * from these. Privacy (DESIGN §4): a field's value and the content of an editable region are never
 * a name source, so nothing typed can reach a label through here.
 */

export const MAX_NAME_LENGTH = 240;
/** Enough text to name anything; stops the walk early on huge containers. */
const TEXT_BUDGET = 400;

const SKIPPED_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "IFRAME", "OBJECT", "EMBED", "CANVAS"]);
const FIELD_TAGS = new Set(["INPUT", "SELECT", "TEXTAREA"]);
const NAME_FROM_CONTENT_ROLES = new Set([
  "button",
  "cell",
  "checkbox",
  "columnheader",
  "gridcell",
  "heading",
  "link",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "option",
  "radio",
  "row",
  "rowheader",
  "switch",
  "tab",
  "tooltip",
  "treeitem",
  "legend",
  "caption",
]);

const INPUT_ROLES: Readonly<Record<string, string>> = {
  button: "button",
  submit: "button",
  reset: "button",
  image: "button",
  checkbox: "checkbox",
  radio: "radio",
  range: "slider",
  number: "spinbutton",
  search: "searchbox",
  email: "textbox",
  tel: "textbox",
  text: "textbox",
  url: "textbox",
  password: "textbox",
};

const TAG_ROLES: Readonly<Record<string, string>> = {
  BUTTON: "button",
  SUMMARY: "button",
  TEXTAREA: "textbox",
  IMG: "img",
  H1: "heading",
  H2: "heading",
  H3: "heading",
  H4: "heading",
  H5: "heading",
  H6: "heading",
  NAV: "navigation",
  MAIN: "main",
  ASIDE: "complementary",
  DIALOG: "dialog",
  OPTION: "option",
  LI: "listitem",
  UL: "list",
  OL: "list",
  TABLE: "table",
  TR: "row",
  TD: "cell",
  TH: "columnheader",
  FIELDSET: "group",
  PROGRESS: "progressbar",
  OUTPUT: "status",
  SEARCH: "search",
};

/** Collapses whitespace and cuts to the schema's limit. */
export function cleanText(text: string, max = MAX_NAME_LENGTH): string {
  const collapsed = text.replace(/\s+/g, " ").trim();
  return collapsed.length <= max ? collapsed : `${collapsed.slice(0, max - 1).trimEnd()}…`;
}

/** True for inputs, textareas and editable regions: their content is something a person typed. */
export function isEditable(element: Element): boolean {
  if ((element as HTMLElement).isContentEditable === true) return true;
  return element.tagName === "TEXTAREA" || (element.tagName === "INPUT" && !NON_TEXT_INPUT_TYPES.has(inputType(element)));
}

/** Input types whose value is not typed text (they are chosen, clicked or attached). */
export const NON_TEXT_INPUT_TYPES = new Set(["button", "submit", "reset", "image", "checkbox", "radio", "file", "hidden"]);

export function inputType(element: Element): string {
  return (element.getAttribute("type") ?? "text").toLowerCase().trim() || "text";
}

export function roleOf(element: Element): string {
  const explicit = element.getAttribute("role")?.trim().split(/\s+/)[0];
  if (explicit) return explicit.toLowerCase();
  const tag = element.tagName;
  switch (tag) {
    case "A":
    case "AREA":
      return element.hasAttribute("href") ? "link" : "generic";
    case "INPUT": {
      const type = inputType(element);
      if (type === "hidden") return "none";
      if (type === "file") return "button";
      const role = INPUT_ROLES[type] ?? "textbox";
      return role === "textbox" && element.hasAttribute("list") ? "combobox" : role;
    }
    case "SELECT": {
      const select = element as HTMLSelectElement;
      return select.multiple || select.size > 1 ? "listbox" : "combobox";
    }
    case "FORM":
      return "form";
    case "SECTION":
      return hasOwnName(element) ? "region" : "generic";
    case "HEADER":
      return element.closest("article, aside, main, nav, section") ? "generic" : "banner";
    case "FOOTER":
      return element.closest("article, aside, main, nav, section") ? "generic" : "contentinfo";
    default:
      if ((element as HTMLElement).isContentEditable && !(element.parentElement as HTMLElement | null)?.isContentEditable) return "textbox";
      return TAG_ROLES[tag] ?? "generic";
  }
}

function hasOwnName(element: Element): boolean {
  return element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby");
}

/** The `<label>`s of a labelable element, in tree order (what the `labels` getter answers). */
export type LabelLookup = (element: Element) => readonly HTMLLabelElement[];

/**
 * `labels` as Chromium's getter answers it, without the getter: Chromium recomputes `labels` by
 * walking the whole document after any DOM change, and a page with hundreds of buttons made that
 * most of the capture's cost (BENCHMARKS.md). A label belongs to the control its `control` names
 * (its `for` target, or else its first labelable descendant), so the enclosing labels and the
 * `label[for=id]`s of the element's tree are the only ones to ask.
 */
export function labelsByQuery(element: Element): HTMLLabelElement[] {
  const found: HTMLLabelElement[] = [];
  for (let ancestor = element.parentElement; ancestor !== null; ancestor = ancestor.parentElement) {
    if (ancestor.tagName === "LABEL" && (ancestor as HTMLLabelElement).control === element) found.push(ancestor as HTMLLabelElement);
  }
  found.reverse();
  if (element.id) {
    const root = element.getRootNode() as Document | ShadowRoot;
    for (const label of root.querySelectorAll<HTMLLabelElement>(`label[for="${CSS.escape(element.id)}"]`)) {
      if (!found.includes(label) && label.control === element) found.push(label);
    }
  }
  return found.length > 1 ? sortedInTreeOrder(found) : found;
}

function sortedInTreeOrder<T extends Node>(nodes: T[]): T[] {
  return nodes.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
}

/**
 * The accessible name of an element (trimmed, at most 240 characters), or "" when it has none. A
 * form field with no name of its own in a table or grid is named by its column header, else its
 * row's label (issue #35: a data-entry grid's cells are "name" and "email", not "value", "value 2").
 */
export function accessibleName(element: Element, labels: LabelLookup = labelsByQuery): string {
  const own = computeName(element, labels);
  if (own.trim() !== "" || !FIELD_TAGS.has(element.tagName)) return cleanText(own);
  return cleanText(tableContextName(element));
}

/**
 * True when a field's name is only its column header or row label: the browser does not name it
 * so, and a selector by that name (`aria/…`) would not find it.
 */
export function isNamedByTableOnly(element: Element, labels: LabelLookup = labelsByQuery): boolean {
  return FIELD_TAGS.has(element.tagName) && computeName(element, labels).trim() === "" && tableContextName(element) !== "";
}

const CELL = "td, th, [role=gridcell], [role=cell]";

/**
 * What a field in a table is: the label of its row when other rows have fields in the same column
 * (a data-entry grid whose rows are "name", "email" under one "Value" header), else its column's
 * header, else its row's label (its `th`, or its first cell when that holds text and no field), or "".
 */
export function tableContextName(element: Element): string {
  const cell = element.closest(CELL);
  const row = cell?.parentElement;
  if (cell === null || cell === undefined || row === null || row === undefined) return "";
  const cellsOf = (of: Element) => [...of.children].filter((child) => child.matches(CELL));
  const cells = cellsOf(row);
  const column = columnOf(cells, cell);
  const table = cell.closest("table, [role=grid], [role=table], [role=treegrid]");
  const header = table === null ? undefined : headerRow(table, row);
  let columnName = "";
  if (header !== undefined) {
    const heading = cellAt(cellsOf(header), column);
    columnName = heading === undefined ? "" : subtreeText(heading).trim();
  }
  const label = cells.find((each) => each !== cell && (each.tagName === "TH" || each.getAttribute("role") === "rowheader")) ?? (cells[0] !== cell ? cells[0] : undefined);
  const rowName = label === undefined || label.querySelector("input, select, textarea") !== null ? "" : subtreeText(label).trim();
  if (rowName !== "" && table !== null) {
    const fieldsInColumn = [...table.querySelectorAll("tr, [role=row]")].filter((other) => cellAt(cellsOf(other), column)?.querySelector("input, select, textarea") != null).length;
    if (fieldsInColumn > 1 || columnName === "") return rowName;
  }
  return columnName || rowName;
}

/** The column a cell starts at, counting spans. */
function columnOf(cells: readonly Element[], cell: Element): number {
  let column = 0;
  for (const each of cells) {
    if (each === cell) break;
    column += (each as HTMLTableCellElement).colSpan || 1;
  }
  return column;
}

/** The cell of a row that covers a column, counting spans. */
function cellAt(cells: readonly Element[], column: number): Element | undefined {
  let at = 0;
  for (const each of cells) {
    const span = (each as HTMLTableCellElement).colSpan || 1;
    if (column >= at && column < at + span) return each;
    at += span;
  }
  return undefined;
}

/** The row of column headers above `row`: the table head's last row, else the first row made of header cells. */
function headerRow(table: Element, row: Element): Element | undefined {
  const head = (table as HTMLTableElement).tHead;
  if (head !== null && head !== undefined && head.rows.length > 0) return head.rows[head.rows.length - 1];
  const rows = table.querySelectorAll("tr, [role=row]");
  for (const candidate of rows) {
    if (candidate === row) return undefined;
    const cells = [...candidate.children];
    if (cells.length > 0 && cells.every((each) => each.tagName === "TH" || each.getAttribute("role") === "columnheader")) return candidate;
  }
  return undefined;
}

function computeName(element: Element, labelsOf: LabelLookup): string {
  const labelledBy = element.getAttribute("aria-labelledby");
  if (labelledBy) {
    const root = element.getRootNode() as Document | ShadowRoot;
    const text = labelledBy
      .split(/\s+/)
      .map((id) => root.getElementById(id))
      .filter((ref): ref is HTMLElement => ref !== null)
      .map((ref) => ref.getAttribute("aria-label") ?? subtreeText(ref))
      .join(" ");
    if (text.trim()) return text;
  }
  const ariaLabel = element.getAttribute("aria-label");
  if (ariaLabel?.trim()) return ariaLabel;

  const tag = element.tagName;
  if (FIELD_TAGS.has(tag) || tag === "BUTTON" || tag === "METER" || tag === "OUTPUT" || tag === "PROGRESS") {
    const labels = labelsOf(element);
    if (labels.length > 0) {
      const text = labels.map((label) => subtreeText(label)).join(" ");
      if (text.trim()) return text;
    }
  }
  if (tag === "INPUT") {
    const type = inputType(element);
    if (type === "image") return element.getAttribute("alt") ?? element.getAttribute("value") ?? "";
    // A button's value is its page-defined caption, not something typed.
    if (type === "submit" || type === "reset" || type === "button") {
      return element.getAttribute("value") ?? (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
    }
  }
  if (tag === "IMG" || tag === "AREA") {
    const alt = element.getAttribute("alt");
    if (alt?.trim()) return alt;
  }
  if (tag === "FIELDSET") {
    const legend = element.querySelector(":scope > legend");
    if (legend) return subtreeText(legend);
  }
  if (tag === "TABLE") {
    const caption = element.querySelector(":scope > caption");
    if (caption) return subtreeText(caption);
  }
  if (!isEditable(element) && !FIELD_TAGS.has(tag) && allowsNameFromContent(element)) {
    const text = subtreeText(element);
    if (text.trim()) return text;
  }
  const title = element.getAttribute("title");
  if (title?.trim()) return title;
  const placeholder = element.getAttribute("placeholder") ?? element.getAttribute("aria-placeholder");
  if (placeholder?.trim()) return placeholder;
  return "";
}

function allowsNameFromContent(element: Element): boolean {
  const role = roleOf(element);
  // Generic elements (a clickable div) are named by their text too, as the Recorder does.
  return NAME_FROM_CONTENT_ROLES.has(role) || role === "generic" || element.tagName === "LABEL";
}

/**
 * Visible text of a subtree, following open shadow roots and slots. Form controls and editable
 * regions contribute nothing (their content is typed); images contribute their alt text.
 */
export function subtreeText(root: Node): string {
  const parts: string[] = [];
  let used = 0;
  const visit = (node: Node): void => {
    if (used >= TEXT_BUDGET) return;
    if (node.nodeType === Node.TEXT_NODE) {
      const data = node.nodeValue ?? "";
      parts.push(data);
      used += data.length;
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
    if (node.nodeType === Node.ELEMENT_NODE) {
      const element = node as Element;
      if (node !== root) {
        if (SKIPPED_TAGS.has(element.tagName) || FIELD_TAGS.has(element.tagName)) return;
        if (element.getAttribute("aria-hidden") === "true" || element.hasAttribute("hidden")) return;
        const label = element.getAttribute("aria-label");
        if (label?.trim()) {
          parts.push(` ${label} `);
          used += label.length;
          return;
        }
      }
      if ((element as HTMLElement).isContentEditable) return;
      // Typed text outside a form field (field-masking.ts TYPED_ROLE_SELECTOR) is not page text.
      if (node !== root && isTypedRole(element)) return;
      if (element.tagName === "IMG") {
        parts.push(` ${element.getAttribute("alt") ?? ""} `);
        return;
      }
      if (element.tagName === "BR") parts.push(" ");
      if (element.tagName === "SLOT") {
        const assigned = (element as HTMLSlotElement).assignedNodes({ flatten: true });
        if (assigned.length > 0) {
          for (const child of assigned) visit(child);
          return;
        }
      }
      const shadow = (element as HTMLElement).shadowRoot;
      if (shadow) {
        for (const child of shadow.childNodes) visit(child);
        return;
      }
    }
    // Block boundaries separate words ("Sign" "up" in two divs is not "Signup").
    parts.push(" ");
    for (const child of node.childNodes) visit(child);
    parts.push(" ");
  };
  visit(root);
  return parts.join("").replace(/\s+/g, " ").trim();
}

function isTypedRole(element: Element): boolean {
  const role = element.getAttribute("role");
  return role === "textbox" || role === "searchbox" || (role === "combobox" && element.hasAttribute("aria-autocomplete"));
}

/** Names, texts and labels of elements: `accessibleName`, `subtreeText`, `labels`, possibly remembered. */
export interface Names {
  name(element: Element): string;
  text(element: Element): string;
  labels: LabelLookup;
  /**
   * Something else read from an element and what is below it (and the names there), remembered
   * like its name: `compute` must read nothing else. `key` tells such facts apart.
   */
  memo<T>(element: Element, key: string, compute: (element: Element) => T): T;
  /** The document's `<label>` elements in tree order (what `getElementsByTagName("label")` lists). */
  documentLabels(document: Document): readonly Element[];
}

export const UNCACHED_NAMES: Names = {
  name: (element) => accessibleName(element),
  text: subtreeText,
  labels: labelsByQuery,
  memo: (element, _key, compute) => compute(element),
  documentLabels: (document) => [...document.getElementsByTagName("label")],
};

/**
 * Names and texts remembered per element: the snapshot and the uniqueness checks of selectors ask
 * for the same hundreds of names after every action. The page index (page-index.ts) forgets an
 * element when a DOM change could alter its name: a change to it or below it (through shadow roots
 * and slots), to a label that names it, or to an element its `aria-labelledby` points at.
 */
export interface NameCache extends Names {
  forget(element: Element): void;
  /** Forgets everything, the label maps included (a change whose reach is not local). */
  forgetAll(): void;
  /** True for an id that names something: a label's `for`, or an `aria-labelledby` reference a cached name was read through. */
  isReferencedId(id: string): boolean;
}

interface CachedEntry {
  name?: string;
  text?: string;
  facts?: Map<string, unknown>;
}

export function createNameCache(): NameCache {
  let entries = new WeakMap<Element, CachedEntry>();
  /** Per tree (document, shadow root): which labels name which control, as `labels` would answer. */
  let labelMaps = new WeakMap<Node, Map<Element, HTMLLabelElement[]>>();
  /**
   * Per document, its labels: listed once, kept until `forgetAll`, which the page index calls
   * whenever a label comes or goes (a live collection walks the whole page again after any change).
   */
  let labelLists = new WeakMap<Document, Element[]>();
  const referencedIds = new Set<string>();

  const labelsOf: LabelLookup = (element) => {
    const root = element.getRootNode();
    let map = labelMaps.get(root);
    if (map === undefined) {
      map = new Map();
      const scope = root as ParentNode;
      if (typeof scope.querySelectorAll === "function") {
        for (const label of scope.querySelectorAll<HTMLLabelElement>("label")) {
          const forId = label.getAttribute("for");
          if (forId !== null) referencedIds.add(forId);
          const control = label.control;
          if (control === null) continue;
          const labels = map.get(control);
          if (labels === undefined) map.set(control, [label]);
          else labels.push(label);
        }
      }
      labelMaps.set(root, map);
    }
    return map.get(element) ?? [];
  };

  const entryOf = (element: Element): CachedEntry => {
    let entry = entries.get(element);
    if (entry === undefined) {
      entry = {};
      entries.set(element, entry);
    }
    return entry;
  };

  return {
    labels: labelsOf,
    name(element) {
      const entry = entryOf(element);
      if (entry.name === undefined) {
        const labelledBy = element.getAttribute("aria-labelledby");
        if (labelledBy) for (const id of labelledBy.split(/\s+/)) if (id) referencedIds.add(id);
        entry.name = accessibleName(element, labelsOf);
      }
      return entry.name;
    },
    text(element) {
      const entry = entryOf(element);
      entry.text ??= subtreeText(element);
      return entry.text;
    },
    memo(element, key, compute) {
      const entry = entryOf(element);
      entry.facts ??= new Map();
      if (entry.facts.has(key)) return entry.facts.get(key) as ReturnType<typeof compute>;
      const value = compute(element);
      entry.facts.set(key, value);
      return value;
    },
    forget(element) {
      entries.delete(element);
    },
    documentLabels(document) {
      let labels = labelLists.get(document);
      if (labels === undefined) {
        labels = [...document.getElementsByTagName("label")];
        labelLists.set(document, labels);
      }
      return labels;
    },
    forgetAll() {
      entries = new WeakMap();
      labelMaps = new WeakMap();
      labelLists = new WeakMap();
      referencedIds.clear();
    },
    isReferencedId(id) {
      return referencedIds.has(id);
    },
  };
}
