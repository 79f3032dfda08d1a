import { maskUrl } from "../../shared/observation/masking-rules";
import { PAGE_SNAPSHOT_MAX_BYTES, PageSnapshotSchema, SNAPSHOT_REF_PREFIX, canonicalJson, type PageSnapshot } from "../../shared/observation/page-snapshot";
import { accessibleName, cleanText, inputType, roleOf, subtreeText } from "./accessible-name";
import { sha256Hex, textFieldOf } from "./field-masking";
import { openShadowRootsIn } from "./dom-observer";

/**
 * The browser_snapshot adapter (issue #4): a structural view of the page — title, headings,
 * landmarks, dialogs, forms with their fields' labels and types, button and link names, status
 * text. Never a field's value, never the content of an editable region; page text that echoes a
 * typed value is scrubbed by the caller's `scrub`. Its canonical JSON (shared `canonicalJson`) fits
 * in 32 KB, and it is named by the SHA-256 of that JSON, so equal pages give equal refs.
 */

export interface TakenSnapshot {
  snapshot: PageSnapshot;
  /** `snapshot:<sha256>`; undefined where crypto.subtle is missing (an insecure context). */
  ref: string | undefined;
  sha256: string | undefined;
}

export interface SnapshotOptions {
  /** The top window; its URL and title name the snapshot. */
  window: Window;
  /** The documents to describe: the top document and the observed same-origin frames. */
  documents: readonly Document[];
  /** Cuts typed values out of page text. */
  scrub: (text: string) => string;
}

const NAME_MAX = 200;
const LIMITS = { headings: 60, landmarks: 40, dialogs: 10, forms: 20, fields: 60, buttons: 80, links: 80, status_messages: 20 } as const;
const LANDMARKS =
  "main, nav, aside, header, footer, search, [role=main], [role=navigation], [role=complementary], [role=banner], [role=contentinfo], [role=region], [role=search], section[aria-label], section[aria-labelledby]";
const BUTTONS = "button, summary, input[type=button], input[type=submit], input[type=reset], input[type=image], [role=button]";
const FIELDS = "input, select, textarea, [contenteditable]";
const STATUS = "[role=status], [role=alert], output, [aria-live=polite], [aria-live=assertive]";

/** Reads the page into a snapshot. Synchronous: it sees one consistent DOM. */
export function readPageSnapshot({ window: top, documents, scrub }: SnapshotOptions): PageSnapshot {
  const roots: (Document | ShadowRoot)[] = [];
  for (const document of documents) roots.push(document, ...openShadowRootsIn(document));
  const all = (selector: string): Element[] => roots.flatMap((root) => [...root.querySelectorAll(selector)]).filter((element) => !insideEditable(element));
  const name = (element: Element): string => cleanText(scrub(accessibleName(element)), NAME_MAX);

  const headings = all("h1, h2, h3, h4, h5, h6, [role=heading]")
    .filter(isVisible)
    .map((element) => ({ level: headingLevel(element), text: cleanText(scrub(subtreeText(element)), NAME_MAX) }))
    .filter((heading) => heading.text !== "");

  const landmarks = all(LANDMARKS)
    .map((element) => ({ role: roleOf(element), element }))
    .filter(({ role }) => role !== "generic")
    .map(({ role, element }) => optional({ role: role.slice(0, 40), name: name(element) }));

  const dialogs = all("dialog, [role=dialog], [role=alertdialog]").map((element) =>
    optional({ name: name(element), open: element.tagName === "DIALOG" ? (element as HTMLDialogElement).open : isVisible(element) }),
  );

  const forms = describeForms(roots, name);

  const buttons = unique(all(BUTTONS).filter(isVisible).map(name));
  const links = unique(all("a[href], [role=link]").filter(isVisible).map(name));
  const status_messages = unique(all(STATUS).map((element) => cleanText(scrub(subtreeText(element)), NAME_MAX)));

  const snapshot: PageSnapshot = {
    url: maskUrl(top.location.href),
    title: cleanText(scrub(top.document.title), NAME_MAX),
    headings: headings.slice(0, LIMITS.headings),
    landmarks: landmarks.slice(0, LIMITS.landmarks),
    dialogs: dialogs.slice(0, LIMITS.dialogs),
    forms: forms.slice(0, LIMITS.forms),
    buttons: buttons.slice(0, LIMITS.buttons),
    links: links.slice(0, LIMITS.links),
    status_messages: status_messages.slice(0, LIMITS.status_messages),
    schema_version: 1,
  };
  return fitToLimit(snapshot);
}

/**
 * Reads the page and names the snapshot: SHA-256 over its `canonicalJson` (keys sorted), the form
 * the agent checks and stores it in.
 */
export async function takePageSnapshot(options: SnapshotOptions): Promise<TakenSnapshot> {
  const snapshot = PageSnapshotSchema.parse(readPageSnapshot(options));
  const sha256 = await sha256Hex(canonicalJson(snapshot));
  return { snapshot, sha256, ref: sha256 === undefined ? undefined : `${SNAPSHOT_REF_PREFIX}${sha256}` };
}

function describeForms(roots: readonly (Document | ShadowRoot)[], name: (element: Element) => string): PageSnapshot["forms"] {
  const forms: PageSnapshot["forms"] = [];
  const loose: Element[] = [];
  for (const root of roots) {
    for (const form of root.querySelectorAll("form")) {
      const fields = [...form.querySelectorAll(FIELDS)].filter(isField);
      forms.push(optional({ name: name(form) || formHeading(form), fields: fields.slice(0, LIMITS.fields).map((field) => describeField(field, name)) }));
    }
    loose.push(...[...root.querySelectorAll(FIELDS)].filter((field) => isField(field) && field.closest("form") === null));
  }
  // Fields outside any form (common in SPAs) are listed as one unnamed form.
  if (loose.length > 0) forms.push({ fields: loose.slice(0, LIMITS.fields).map((field) => describeField(field, name)) });
  return forms;
}

function describeField(field: Element, name: (element: Element) => string): PageSnapshot["forms"][number]["fields"][number] {
  const type =
    field.tagName === "INPUT" ? inputType(field) : field.tagName === "SELECT" ? "select" : field.tagName === "TEXTAREA" ? "textarea" : "contenteditable";
  const required = (field as HTMLInputElement).required === true || field.getAttribute("aria-required") === "true";
  return optional({ label: name(field), type: type.slice(0, 40), required });
}

function isField(element: Element): boolean {
  if (element.tagName === "INPUT") return !["hidden", "submit", "button", "reset", "image"].includes(inputType(element));
  if (element.tagName === "SELECT" || element.tagName === "TEXTAREA") return true;
  // Only the root of an editable region is a field; its inside is typed content.
  return textFieldOf(element) === element;
}

function formHeading(form: Element): string {
  const heading = form.querySelector("h1, h2, h3, h4, h5, h6, legend");
  return heading ? cleanText(subtreeText(heading), NAME_MAX) : "";
}

function headingLevel(element: Element): number {
  const fromTag = /^H([1-6])$/.exec(element.tagName)?.[1];
  const level = Number(fromTag ?? element.getAttribute("aria-level") ?? 2);
  return Number.isInteger(level) && level >= 1 && level <= 6 ? level : 2;
}

function insideEditable(element: Element): boolean {
  return (element as HTMLElement).isContentEditable === true && textFieldOf(element) !== element;
}

function isVisible(element: Element): boolean {
  return typeof element.checkVisibility === "function" ? element.checkVisibility() : true;
}

function unique(names: string[]): string[] {
  return [...new Set(names.filter((name) => name !== ""))];
}

/** Drops empty optional names so the JSON stays small and the schema's optional fields stay absent. */
function optional<T extends { name?: string; label?: string }>(entry: T): T {
  const copy = { ...entry };
  if (copy.name === "") delete copy.name;
  if (copy.label === "") delete copy.label;
  return copy;
}

/** Halves the longest list until the canonical JSON fits in 32 KB (links and buttons go first). */
function fitToLimit(snapshot: PageSnapshot): PageSnapshot {
  const encoder = new TextEncoder();
  let current = snapshot;
  for (let round = 0; round < 64 && encoder.encode(canonicalJson(current)).length > PAGE_SNAPSHOT_MAX_BYTES; round += 1) {
    const lists = ["links", "buttons", "headings", "landmarks", "status_messages", "dialogs"] as const;
    const longest = lists.reduce((best, key) => (current[key].length > current[best].length ? key : best), lists[0]);
    const fieldCount = current.forms.reduce((sum, form) => sum + form.fields.length, 0);
    if (fieldCount > current[longest].length) {
      current = { ...current, forms: current.forms.slice(0, Math.max(1, Math.ceil(current.forms.length / 2))).map((form) => ({ ...form, fields: form.fields.slice(0, Math.ceil(form.fields.length / 2)) })) };
    } else if (current[longest].length > 0) {
      current = { ...current, [longest]: current[longest].slice(0, Math.floor(current[longest].length / 2)) };
    } else {
      current = { ...current, forms: [], title: current.title.slice(0, 80) };
    }
  }
  return current;
}
