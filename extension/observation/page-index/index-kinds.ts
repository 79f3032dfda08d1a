import type { SnapshotKind } from "../snapshot/snapshot-source";

/**
 * The kinds of element the page index lists (page-index.ts): the snapshot's own kinds
 * (snapshot-source.ts `SNAPSHOT_KINDS`) plus explicit roles, image-map areas and editable regions,
 * which selectors compare a target with. An element's kinds are a bit set (`kindsOf`).
 */

export type Root = Document | ShadowRoot;
export type IndexKind = SnapshotKind | "roles" | "areas" | "editables";

const KIND_BITS: Readonly<Record<IndexKind, number>> = {
  headings: 1,
  landmarks: 2,
  dialogs: 4,
  forms: 8,
  fields: 16,
  buttons: 32,
  links: 64,
  status: 128,
  lists: 256,
  toggles: 512,
  roles: 1024,
  areas: 2048,
  editables: 4096,
};
/** Every kind, in bit order (kind `i` is bit `1 << i`). */
export const KINDS = Object.keys(KIND_BITS) as IndexKind[];
export const ALL_KINDS = (1 << KINDS.length) - 1;

/** Selectors of the kinds the snapshot does not list (what `kindsOf` answers for them). */
export const EXTRA_KINDS = {
  roles: "[role]",
  areas: "area[href]",
  editables: "[contenteditable], [role=textbox], [role=searchbox], [role=combobox][aria-autocomplete]",
} as const;

const LANDMARK_TAGS = new Set(["main", "nav", "aside", "header", "footer", "search"]);
const LANDMARK_ROLES = new Set(["main", "navigation", "complementary", "banner", "contentinfo", "region", "search"]);
const BUTTON_INPUT_TYPES = new Set(["button", "submit", "reset", "image"]);
const LIST_ROLES = new Set(["list", "listbox", "grid", "table", "tree"]);
const TOGGLE_ROLES = new Set(["checkbox", "radio", "switch", "menuitemcheckbox"]);

/**
 * The kinds an element belongs to, as a bit set: the same answer as `element.matches()` with each
 * kind's selector (a test holds them equal), computed without selector matching, which costs about
 * 30 ns per element and selector on a large page.
 */
export function kindsOf(element: Element): number {
  let kinds = 0;
  const attributes = element.hasAttributes();
  switch (element.localName) {
    case "h1":
    case "h2":
    case "h3":
    case "h4":
    case "h5":
    case "h6":
      kinds |= KIND_BITS.headings;
      break;
    case "form":
      kinds |= KIND_BITS.forms;
      break;
    case "input": {
      kinds |= KIND_BITS.fields;
      // Attribute selectors match `type` case-insensitively in HTML.
      const type = attributes ? element.getAttribute("type")?.toLowerCase() : undefined;
      if (type !== undefined && BUTTON_INPUT_TYPES.has(type)) kinds |= KIND_BITS.buttons;
      else if (type === "checkbox" || type === "radio") kinds |= KIND_BITS.toggles;
      break;
    }
    case "ul":
    case "ol":
    case "table":
      kinds |= KIND_BITS.lists;
      break;
    case "select":
    case "textarea":
      kinds |= KIND_BITS.fields;
      break;
    case "button":
    case "summary":
      kinds |= KIND_BITS.buttons;
      break;
    case "a":
      if (attributes && element.hasAttribute("href")) kinds |= KIND_BITS.links;
      break;
    case "area":
      if (attributes && element.hasAttribute("href")) kinds |= KIND_BITS.areas;
      break;
    case "dialog":
      kinds |= KIND_BITS.dialogs;
      break;
    case "output":
      kinds |= KIND_BITS.status;
      break;
    case "section":
      if (attributes && (element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby"))) kinds |= KIND_BITS.landmarks;
      break;
    default:
      if (LANDMARK_TAGS.has(element.localName)) kinds |= KIND_BITS.landmarks;
  }
  // Most elements a page adds carry a class at most: one call tells there is nothing more to read.
  if (!attributes) return kinds;
  const role = element.getAttribute("role");
  if (role !== null) {
    kinds |= KIND_BITS.roles;
    if (role === "heading") kinds |= KIND_BITS.headings;
    else if (role === "button") kinds |= KIND_BITS.buttons;
    else if (role === "link") kinds |= KIND_BITS.links;
    else if (role === "dialog" || role === "alertdialog") kinds |= KIND_BITS.dialogs;
    else if (role === "status" || role === "alert") kinds |= KIND_BITS.status;
    else if (LANDMARK_ROLES.has(role)) kinds |= KIND_BITS.landmarks;
    // Typed text outside a form field (field-masking.ts TYPED_ROLE_SELECTOR).
    else if (role === "textbox" || role === "searchbox" || (role === "combobox" && element.hasAttribute("aria-autocomplete"))) {
      kinds |= KIND_BITS.fields | KIND_BITS.editables;
    } else if (LIST_ROLES.has(role)) kinds |= KIND_BITS.lists;
    else if (TOGGLE_ROLES.has(role) || (role === "tab" && element.hasAttribute("aria-selected"))) kinds |= KIND_BITS.toggles;
  }
  if (element.hasAttribute("aria-pressed") || element.hasAttribute("aria-expanded") || element.hasAttribute("aria-sort")) kinds |= KIND_BITS.toggles;
  if (element.hasAttribute("contenteditable")) kinds |= KIND_BITS.fields | KIND_BITS.editables;
  const live = element.getAttribute("aria-live");
  if (live === "polite" || live === "assertive") kinds |= KIND_BITS.status;
  return kinds;
}

/** Attributes `kindsOf` reads: a change to one may move the element between lists. */
export const KIND_ATTRIBUTES = new Set([
  "role",
  "href",
  "type",
  "contenteditable",
  "aria-live",
  "aria-label",
  "aria-labelledby",
  "aria-autocomplete",
  "aria-pressed",
  "aria-expanded",
  "aria-selected",
  "aria-sort",
]);
