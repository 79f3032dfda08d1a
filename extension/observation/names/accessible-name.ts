/**
 * Role and accessible name of an element, simplified from the W3C "Accessible Name and Description
 * Computation" (accname 1.2): aria-labelledby, aria-label, <label>, alt, button value, legend or
 * caption, text content (for roles named from content), title, placeholder. DESIGN §6 names steps
 * from these. Privacy (DESIGN §4): a field's value and the content of an editable region are never
 * a name source, so nothing typed can reach a label through here.
 */

import { FIELD_TAGS, subtreeText } from "./subtree-text";
import { tableContextName } from "./table-names";

export const MAX_NAME_LENGTH = 240;
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
