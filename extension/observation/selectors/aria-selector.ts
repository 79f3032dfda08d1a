import { isNamedByTableOnly, roleOf } from "../names/accessible-name";
import type { IndexKind } from "../page-index/index-kinds";
import { isShadowRoot } from "../snapshot/shadow-roots";
import { quote, type Root, type SelectorContext } from "./selector-context";

/** `aria/Name[role="…"]`: offered when no other element with that role has that name. */

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

export function ariaSelector(element: Element, root: Root, name: string, { names, elements }: SelectorContext): string[] | undefined {
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
