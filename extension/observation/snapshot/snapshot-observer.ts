import { maskUrl } from "../../../shared/observation/url-rule";
import { PAGE_SNAPSHOT_MAX_BYTES, SNAPSHOT_REF_PREFIX, canonicalJson, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { cleanText, inputType, roleOf } from "../names/accessible-name";
import { UNCACHED_NAMES, type Names } from "../names/name-cache";
import { TYPED_ROLE_SELECTOR, sha256Hex, textFieldOf } from "../field-masking";
import { LIST_CONTAINERS, TOGGLES, readSnapshotExtras } from "./snapshot-extras";
import { openShadowRootsIn } from "./shadow-roots";
import { NO_MEMO, type ChangeLog, type SnapshotMemo } from "./snapshot-memo";

/**
 * The browser_snapshot adapter (issue #4): a structural view of the page — title, headings,
 * landmarks, dialogs, forms with their fields' labels and types, button and link names, status
 * text. Never a field's value, never the content of an editable region; page text that echoes a
 * typed value is scrubbed by the caller's `scrub`. Its canonical JSON (shared `canonicalJson`) fits
 * in 32 KB, and it is named by the SHA-256 of that JSON, so equal pages give equal refs.
 *
 * Where the elements and their names come from is the caller's `SnapshotSource`: while capturing,
 * the page index (page-index.ts), which keeps them up to date from DOM changes; `querySource`
 * reads the page afresh (the reference the index is tested against). Either way only the work the
 * limits keep is done: lists stop at their limit, and an element whose name was already listed is
 * not checked for visibility again (500 "Add" buttons give one name).
 */

export type SnapshotRoot = Document | ShadowRoot;

/** The kinds of element a snapshot lists, by the selectors that find them. */
export const HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading]";
export const LANDMARKS =
  "main, nav, aside, header, footer, search, [role=main], [role=navigation], [role=complementary], [role=banner], [role=contentinfo], [role=region], [role=search], section[aria-label], section[aria-labelledby]";
export const DIALOGS = "dialog, [role=dialog], [role=alertdialog]";
export const BUTTONS = "button, summary, input[type=button], input[type=submit], input[type=reset], input[type=image], [role=button]";
export const FIELDS = "input, select, textarea, [contenteditable], [role=textbox], [role=searchbox], [role=combobox][aria-autocomplete]";
export const LINKS = "a[href], [role=link]";
export const STATUS = "[role=status], [role=alert], output, [aria-live=polite], [aria-live=assertive]";

export const SNAPSHOT_KINDS = {
  headings: HEADINGS,
  landmarks: LANDMARKS,
  dialogs: DIALOGS,
  forms: "form",
  fields: FIELDS,
  buttons: BUTTONS,
  links: LINKS,
  status: STATUS,
  // Issue #14's lists and controls with a state (snapshot-extras.ts).
  lists: LIST_CONTAINERS,
  toggles: TOGGLES,
} as const;
export type SnapshotKind = keyof typeof SNAPSHOT_KINDS;

/** The elements a snapshot reads and their names. */
export interface SnapshotSource {
  /** Each observed document, followed by its open shadow roots in tree order (asked first: the lists are as of this call). */
  roots(): readonly SnapshotRoot[];
  /** The elements of one kind in one root, in tree order (one that left the page may linger: readers skip what is not connected). */
  elements(root: SnapshotRoot, kind: SnapshotKind): readonly Element[];
  names: Names;
  /** Where the page changed (the page index's log): with `memo`, a read re-reads only what a change could alter. */
  changes?: ChangeLog;
  /** What the last read remembered (snapshot-memo.ts); none: everything is read afresh. */
  memo?: SnapshotMemo;
}

export interface TakenSnapshot {
  snapshot: PageSnapshot;
  /** `snapshot:<sha256>`; undefined where crypto.subtle is missing (an insecure context). */
  ref: string | undefined;
  sha256: string | undefined;
}

export interface SnapshotOptions {
  /** The top window; its URL and title name the snapshot. */
  window: Window;
  source: SnapshotSource;
  /** Cuts typed values out of page text. */
  scrub: (text: string) => string;
  /** The top URL already masked (`maskUrl`), when the caller has it. */
  maskedUrl?: string;
  /** The last pass over every string before the snapshot is sized and named (the privacy boundary's `snapshot`). */
  sanitize?: (snapshot: PageSnapshot) => PageSnapshot;
}

const NAME_MAX = 200;
const LIMITS = { headings: 60, landmarks: 40, dialogs: 10, forms: 20, fields: 60, buttons: 80, links: 80, status_messages: 20 } as const;

/** A source that reads the given documents and all their open shadow roots afresh, with uncached names. */
export function querySource(documents: readonly Document[], names: Names = UNCACHED_NAMES): SnapshotSource {
  return {
    roots: () => documents.flatMap((document) => [document, ...openShadowRootsIn(document)]),
    elements: (root, kind) => [...root.querySelectorAll(SNAPSHOT_KINDS[kind])],
    names,
  };
}

/**
 * Reads the page into a snapshot (within 32 KB) and its canonical JSON. Synchronous: it sees one
 * consistent DOM. Not validated here (issue #17: zod on our own output is kept off the page's main
 * thread): the background and the agent parse it at their boundaries (`SnapshotUploadSchema`), and
 * a test parses what this returns.
 */
export function readPageSnapshot(options: SnapshotOptions): { snapshot: PageSnapshot; json: string } {
  const lists = readLists(options);
  return fitToLimit(options.sanitize === undefined ? lists : options.sanitize(lists));
}

/**
 * `canonicalJson(snapshot)` (keys sorted at every level, absent optional keys left out), written
 * directly for the snapshot's fixed shape: the generic one sorts the keys of every object again.
 * A test holds the two equal.
 */
export function snapshotJson(snapshot: PageSnapshot): string {
  const text = JSON.stringify;
  const optionalKey = (key: string, value: string | undefined): string => (value === undefined ? "" : `"${key}":${text(value)},`);
  const strings = (list: readonly string[]): string => `[${list.map((item) => text(item)).join(",")}]`;
  const dialogs = snapshot.dialogs.map((dialog) => `{${optionalKey("name", dialog.name)}"open":${dialog.open}}`);
  const forms = snapshot.forms.map((form) => {
    const fields = form.fields.map((field) => `{${optionalKey("label", field.label)}"required":${field.required},"type":${text(field.type)}}`);
    return `{"fields":[${fields.join(",")}]${form.name === undefined ? "" : `,"name":${text(form.name)}`}}`;
  });
  const headings = snapshot.headings.map((heading) => `{"level":${text(heading.level)},"text":${text(heading.text)}}`);
  const landmarks = snapshot.landmarks.map((landmark) => `{${optionalKey("name", landmark.name)}"role":${text(landmark.role)}}`);
  // Issue #14's optional lists, in their sorted places.
  const lists = snapshot.lists?.map((list) => `{"checked":${list.checked},"items":${list.items},${optionalKey("name", list.name)}"role":${text(list.role)}}`);
  const toggles = snapshot.toggles?.map((toggle) => `{${optionalKey("name", toggle.name)}"role":${text(toggle.role)},${toggle.row === undefined ? "" : `"row":${toggle.row},`}"state":${text(toggle.state)}}`);
  const after = (key: string, value: string | undefined) => (value === undefined ? "" : `"${key}":${value},`);
  return (
    `{"buttons":${strings(snapshot.buttons)},"dialogs":[${dialogs.join(",")}],"forms":[${forms.join(",")}],"headings":[${headings.join(",")}],` +
    `${after("hover_revealed", snapshot.hover_revealed && strings(snapshot.hover_revealed))}` +
    `"landmarks":[${landmarks.join(",")}],"links":${strings(snapshot.links)},${after("lists", lists && `[${lists.join(",")}]`)}"schema_version":${text(snapshot.schema_version)},` +
    `"status_messages":${strings(snapshot.status_messages)},${after("texts", snapshot.texts && strings(snapshot.texts))}"title":${text(snapshot.title)},` +
    `${after("toggles", toggles && `[${toggles.join(",")}]`)}"url":${text(snapshot.url)}}`
  );
}

/**
 * Names a snapshot: SHA-256 over its `canonicalJson` (keys sorted), the form the agent checks and
 * stores it in.
 */
export async function nameSnapshot(snapshot: PageSnapshot, json: string = canonicalJson(snapshot)): Promise<TakenSnapshot> {
  const sha256 = await sha256Hex(json);
  return { snapshot, sha256, ref: sha256 === undefined ? undefined : `${SNAPSHOT_REF_PREFIX}${sha256}` };
}

/** Every piece of page text in a snapshot, one per line: what a new typed value is looked for in before the snapshot is reused. */
export function snapshotText(snapshot: PageSnapshot): string {
  // The URL is left out: it is masked, not scrubbed.
  const lines: string[] = [snapshot.title];
  for (const heading of snapshot.headings) lines.push(heading.text);
  for (const landmark of snapshot.landmarks) lines.push(landmark.name ?? "");
  for (const dialog of snapshot.dialogs) lines.push(dialog.name ?? "");
  for (const form of snapshot.forms) {
    lines.push(form.name ?? "");
    for (const field of form.fields) lines.push(field.label ?? "");
  }
  lines.push(...snapshot.buttons, ...snapshot.links, ...snapshot.status_messages);
  for (const list of snapshot.lists ?? []) lines.push(list.name ?? "");
  for (const toggle of snapshot.toggles ?? []) lines.push(toggle.name ?? "");
  lines.push(...(snapshot.texts ?? []), ...(snapshot.hover_revealed ?? []));
  return lines.join("\n");
}

/** One read of a part of the snapshot, and what it depended on beside its elements and their names. */
interface PartRead<T> {
  scrub: (text: string) => string;
  /** Per root: whether editable regions were looked for. */
  editable: boolean[];
  /** The elements whose visibility was asked, and the answers. */
  asked: Element[];
  answers: boolean[];
  value: T[];
}

function readLists({ window: top, source, scrub, maskedUrl }: SnapshotOptions): PageSnapshot {
  const { names, memo = NO_MEMO } = source;
  const roots = source.roots();
  memo.begin(roots, source.changes);
  const isVisible = (element: Element): boolean => memo.isVisible(element);
  const clean = (text: string): string => cleanText(scrub(text), NAME_MAX);
  // Editable regions hold typed content: nothing inside one is listed (only a document that has one pays for the check).
  const editableRoots = new Set(roots.filter((root) => mayHoldEditable(root, source)));

  /** Visits the elements of a kind in every root, in order, until `take` says it has enough. */
  const visit = (kind: SnapshotKind, take: (element: Element) => boolean | void): void => {
    for (const root of roots) {
      const checkEditable = editableRoots.has(root);
      for (const element of source.elements(root, kind)) {
        if (!element.isConnected || (checkEditable && insideEditable(element))) continue;
        if (take(element) === true) return;
      }
    }
  };

  const editable = roots.map((root) => editableRoots.has(root));
  /**
   * One part of the snapshot as `read` gives it, or as the last read gave it while nothing it
   * depends on changed: no element of its kinds came, went or was renamed (page-index.ts), every
   * visibility it asked is the same, typed values are cut the same way and editable regions are in
   * the same roots. `read` must depend on nothing else.
   */
  const reused = <T>(key: string, kinds: readonly SnapshotKind[], read: (visible: (element: Element) => boolean) => T[]): T[] => {
    const previous = memo.last<PartRead<T>>(key);
    if (
      previous !== undefined &&
      previous.scrub === scrub &&
      previous.editable.length === editable.length &&
      previous.editable.every((value, position) => value === editable[position]) &&
      kinds.every((kind) => memo.kindUnchanged(kind)) &&
      previous.asked.every((element, position) => isVisible(element) === previous.answers[position])
    ) {
      memo.keep(key, previous);
      return [...previous.value];
    }
    const asked: Element[] = [];
    const answers: boolean[] = [];
    const value = read((element) => {
      const visible = isVisible(element);
      asked.push(element);
      answers.push(visible);
      return visible;
    });
    memo.keep(key, { scrub, editable, asked, answers, value });
    return [...value];
  };

  /** Distinct names of visible elements, in order of first appearance (a plain loop: on a large page it is the longest one). */
  const distinctVisibleNames = (kind: "buttons" | "links", limit: number): string[] =>
    reused(kind, [kind], (visible) => {
      const listed: string[] = [];
      const cleaned = new Set<string>();
      const seen = new Set<string>();
      for (const root of roots) {
        const checkEditable = editableRoots.has(root);
        const elements = source.elements(root, kind);
        for (let index = 0; index < elements.length; index += 1) {
          const element = elements[index]!;
          const raw = names.name(element);
          // An element with a name already listed adds nothing: no visibility check for it.
          if (raw === "" || seen.has(raw) || (checkEditable && insideEditable(element)) || !visible(element)) continue;
          seen.add(raw);
          const name = clean(raw);
          if (cleaned.has(name)) continue;
          cleaned.add(name);
          listed.push(name);
          if (listed.length >= limit) return listed;
        }
      }
      return listed;
    });

  const headings = reused<PageSnapshot["headings"][number]>("headings", ["headings"], (visible) => {
    const found: PageSnapshot["headings"] = [];
    visit("headings", (element) => {
      const text = names.text(element);
      if (text === "" || !visible(element)) return false;
      found.push({ level: names.memo(element, "heading-level", headingLevel), text: clean(text) });
      return found.length >= LIMITS.headings;
    });
    return found;
  });

  const landmarks = reused<PageSnapshot["landmarks"][number]>("landmarks", ["landmarks"], () => {
    const found: PageSnapshot["landmarks"] = [];
    visit("landmarks", (element) => {
      // A role is read from the element's attributes and tag (and a header's or footer's ancestors): remembered like its name.
      const role = names.memo(element, "role", roleOf);
      if (role === "generic") return false;
      found.push(optional({ role: role.slice(0, 40), name: clean(names.name(element)) }));
      return found.length >= LIMITS.landmarks;
    });
    return found;
  });

  const dialogs = reused<PageSnapshot["dialogs"][number]>("dialogs", ["dialogs"], (visible) => {
    const found: PageSnapshot["dialogs"] = [];
    visit("dialogs", (element) => {
      // A <dialog>'s `open` follows its attribute: a change to it renames the dialog (page-index.ts).
      found.push(optional({ name: clean(names.name(element)), open: element.tagName === "DIALOG" ? (element as HTMLDialogElement).open : visible(element) }));
      return found.length >= LIMITS.dialogs;
    });
    return found;
  });

  const forms = reused("forms", ["forms", "fields"], () => describeForms(roots, source, clean));
  const buttons = distinctVisibleNames("buttons", LIMITS.buttons);
  const links = distinctVisibleNames("links", LIMITS.links);

  const status_messages = reused("status", ["status"], (visible) => {
    const found: string[] = [];
    const statusSeen = new Set<string>();
    visit("status", (element) => {
      const raw = names.text(element);
      // A warning the page keeps hidden says nothing the person saw (issue #35): never evidence.
      if (raw === "" || !visible(element)) return false;
      const text = clean(raw);
      if (statusSeen.has(text)) return false;
      statusSeen.add(text);
      found.push(text);
      return found.length >= LIMITS.status_messages;
    });
    return found;
  });

  // Issue #14: lists, control states, counters and hover-revealed controls (snapshot-extras.ts).
  const extras = readSnapshotExtras({
    roots,
    names,
    clean: (text, max) => cleanText(scrub(text), max ?? NAME_MAX),
    controls: (root) => [...source.elements(root, "buttons"), ...source.elements(root, "links")],
    elements: (root, kind) => source.elements(root, kind),
    memo,
  });
  return {
    // Without the boundary's address, any value may have been typed: every one is masked.
    url: maskedUrl ?? maskUrl(top.location.href, "unknown"),
    title: clean(top.document.title),
    headings,
    landmarks,
    dialogs,
    forms,
    buttons,
    links,
    status_messages,
    ...extras,
    schema_version: 1,
  };
}

/** What a form's entry is read from, before typed values are cut out: remembered per form until something in it changes. */
interface FormFacts {
  name: string;
  heading: string;
  fields: { label: string; type: string; required: boolean }[];
}

/** Forms in tree order with their fields, then the fields outside any form (common in SPAs) as one unnamed form. */
function describeForms(roots: readonly SnapshotRoot[], source: SnapshotSource, clean: (text: string) => string): PageSnapshot["forms"] {
  const { names } = source;
  const forms: PageSnapshot["forms"] = [];
  const loose: Element[] = [];
  for (const root of roots) {
    // Runs of the tree-ordered list are found by tree position, which only connected elements have.
    const fields = source.elements(root, "fields").filter((field) => field.isConnected);
    for (const form of source.elements(root, "forms")) {
      if (forms.length >= LIMITS.forms) break;
      if (!form.isConnected) continue;
      // Its fields are its descendants: one run of the tree-ordered list.
      const facts = names.memo(form, "snapshot-form", (): FormFacts => {
        const own: FormFacts["fields"] = [];
        for (let index = firstFollowing(fields, form); index < fields.length && form.contains(fields[index]!) && own.length < LIMITS.fields; index += 1) {
          if (isField(fields[index]!)) own.push(fieldFacts(fields[index]!, names));
        }
        return { name: names.name(form), heading: formHeading(form, names), fields: own };
      });
      const name = clean(facts.name) || clean(facts.heading);
      forms.push(optional({ name, fields: facts.fields.map((field) => optional({ label: clean(field.label), type: field.type, required: field.required })) }));
    }
    if (forms.length >= LIMITS.forms) continue; // the unnamed form would be cut
    for (let index = 0; index < fields.length && loose.length < LIMITS.fields; index += 1) {
      const field = fields[index]!;
      if (names.memo(field, "loose-field", (element) => isField(element) && element.closest("form") === null)) loose.push(field);
    }
  }
  if (loose.length > 0 && forms.length < LIMITS.forms) {
    forms.push({ fields: loose.map((field) => fieldFacts(field, names)).map((field) => optional({ label: clean(field.label), type: field.type, required: field.required })) });
  }
  return forms;
}

/** Index of the first element of a tree-ordered list that comes after `node` (its descendants do). */
export function firstFollowing(list: readonly Node[], node: Node): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (node.compareDocumentPosition(list[middle]!) & Node.DOCUMENT_POSITION_FOLLOWING) high = middle;
    else low = middle + 1;
  }
  return low;
}

function fieldFacts(field: Element, names: Names): FormFacts["fields"][number] {
  const type =
    field.tagName === "INPUT" ? inputType(field) : field.tagName === "SELECT" ? "select" : field.tagName === "TEXTAREA" ? "textarea" : "contenteditable";
  const required = (field as HTMLInputElement).required === true || field.getAttribute("aria-required") === "true";
  return { label: names.name(field), type: type.slice(0, 40), required };
}

function isField(element: Element): boolean {
  if (element.tagName === "INPUT") return !["hidden", "submit", "button", "reset", "image"].includes(inputType(element));
  if (element.tagName === "SELECT" || element.tagName === "TEXTAREA") return true;
  // Only the root of an editable region is a field; its inside is typed content.
  return textFieldOf(element) === element;
}

function formHeading(form: Element, names: Names): string {
  const heading = form.querySelector("h1, h2, h3, h4, h5, h6, legend");
  return heading ? cleanText(names.text(heading), NAME_MAX) : "";
}

function headingLevel(element: Element): number {
  const fromTag = /^H([1-6])$/.exec(element.tagName)?.[1];
  const level = Number(fromTag ?? element.getAttribute("aria-level") ?? 2);
  return Number.isInteger(level) && level >= 1 && level <= 6 ? level : 2;
}

/** Whether anything in the root can be editable: an element with `contenteditable`, or a document in design mode. */
function mayHoldEditable(root: SnapshotRoot, source: SnapshotSource): boolean {
  const document = root.nodeType === Node.DOCUMENT_NODE ? (root as Document) : root.ownerDocument;
  if (document?.designMode === "on") return true;
  return source.elements(root, "fields").some((field) => source.names.memo(field, "has-contenteditable", hasContentEditable));
}

function hasContentEditable(element: Element): boolean {
  return element.hasAttribute("contenteditable") || element.matches(TYPED_ROLE_SELECTOR);
}

/** Inside typed content: an editable region, or an element with a typed-text role (field-masking.ts), below its root. */
function insideEditable(element: Element): boolean {
  const field = textFieldOf(element);
  return field !== undefined && field !== element && field.tagName !== "INPUT" && field.tagName !== "TEXTAREA";
}

/** Drops empty optional names so the JSON stays small and the schema's optional fields stay absent. */
function optional<T extends { name?: string; label?: string }>(entry: T): T {
  const copy = { ...entry };
  if (copy.name === "") delete copy.name;
  if (copy.label === "") delete copy.label;
  return copy;
}

/** UTF-8 length as TextEncoder would encode it (a lone surrogate becomes U+FFFD), without encoding. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Over 32 KB in UTF-8 (a UTF-16 unit takes at most 3 bytes: a short text is not measured). */
function tooLarge(json: string): boolean {
  return json.length * 3 > PAGE_SNAPSHOT_MAX_BYTES && utf8Length(json) > PAGE_SNAPSHOT_MAX_BYTES;
}

/** Halves the longest list until the canonical JSON fits in 32 KB (links and buttons go first). */
function fitToLimit(snapshot: PageSnapshot): { snapshot: PageSnapshot; json: string } {
  let current = snapshot;
  let json = snapshotJson(current);
  // Issue #14's extras go first.
  if (tooLarge(json)) {
    const { lists: _lists, toggles: _toggles, texts: _texts, hover_revealed: _hover, ...rest } = current;
    current = rest;
    json = snapshotJson(current);
  }
  for (let round = 0; round < 64 && tooLarge(json); round += 1) {
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
    json = snapshotJson(current);
  }
  return { snapshot: current, json };
}
