import { maskUrl } from "../../../shared/observation/url-rule";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { cleanText, roleOf } from "../names/accessible-name";
import { fitToLimit } from "./snapshot-json";
import { readSnapshotExtras } from "./snapshot-extras";
import { describeForms } from "./snapshot-forms";
import { LIMITS, NAME_MAX, beginPartsRead, insideEditable, optional, reused, visit, type PartsRead } from "./snapshot-parts";
import type { SnapshotSource } from "./snapshot-source";

/**
 * The browser_snapshot adapter (issue #4): a structural view of the page — title, headings,
 * landmarks, dialogs, forms with their fields' labels and types, button and link names, status
 * text. Never a field's value, never the content of an editable region; page text that echoes a
 * typed value is scrubbed by the caller's `scrub`. Its canonical JSON (shared `canonicalJson`) fits
 * in 32 KB, and it is named by the SHA-256 of that JSON, so equal pages give equal refs.
 *
 * Where the elements and their names come from is the caller's `SnapshotSource`: while capturing,
 * the page index (page-index/page-index.ts), which keeps them up to date from DOM changes; `querySource`
 * reads the page afresh (the reference the index is tested against). Either way only the work the
 * limits keep is done: lists stop at their limit, and an element whose name was already listed is
 * not checked for visibility again (500 "Add" buttons give one name).
 */

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

function readLists({ window: top, source, scrub, maskedUrl }: SnapshotOptions): PageSnapshot {
  const read = beginPartsRead(source, scrub);
  const { roots, names, memo, clean } = read;
  const headings = readHeadings(read);
  const landmarks = readLandmarks(read);
  const dialogs = readDialogs(read);
  const forms = reused(read, "forms", ["forms", "fields"], () => describeForms(read));
  const buttons = distinctVisibleNames(read, "buttons", LIMITS.buttons);
  const links = distinctVisibleNames(read, "links", LIMITS.links);
  const status_messages = readStatus(read);
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

/** Distinct names of visible elements, in order of first appearance (a plain loop: on a large page it is the longest one). */
function distinctVisibleNames(read: PartsRead, kind: "buttons" | "links", limit: number): string[] {
  const { roots, editableRoots, source, names, clean } = read;
  return reused(read, kind, [kind], (visible) => {
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
}

function readHeadings(read: PartsRead): PageSnapshot["headings"] {
  const { names, clean } = read;
  return reused<PageSnapshot["headings"][number]>(read, "headings", ["headings"], (visible) => {
    const found: PageSnapshot["headings"] = [];
    visit(read, "headings", (element) => {
      const text = names.text(element);
      if (text === "" || !visible(element)) return false;
      found.push({ level: names.memo(element, "heading-level", headingLevel), text: clean(text) });
      return found.length >= LIMITS.headings;
    });
    return found;
  });
}

function readLandmarks(read: PartsRead): PageSnapshot["landmarks"] {
  const { names, clean } = read;
  return reused<PageSnapshot["landmarks"][number]>(read, "landmarks", ["landmarks"], () => {
    const found: PageSnapshot["landmarks"] = [];
    visit(read, "landmarks", (element) => {
      // A role is read from the element's attributes and tag (and a header's or footer's ancestors): remembered like its name.
      const role = names.memo(element, "role", roleOf);
      if (role === "generic") return false;
      found.push(optional({ role: role.slice(0, 40), name: clean(names.name(element)) }));
      return found.length >= LIMITS.landmarks;
    });
    return found;
  });
}

function readDialogs(read: PartsRead): PageSnapshot["dialogs"] {
  const { names, clean } = read;
  return reused<PageSnapshot["dialogs"][number]>(read, "dialogs", ["dialogs"], (visible) => {
    const found: PageSnapshot["dialogs"] = [];
    visit(read, "dialogs", (element) => {
      // A <dialog>'s `open` follows its attribute: a change to it renames the dialog (page-index.ts).
      found.push(optional({ name: clean(names.name(element)), open: element.tagName === "DIALOG" ? (element as HTMLDialogElement).open : visible(element) }));
      return found.length >= LIMITS.dialogs;
    });
    return found;
  });
}

function readStatus(read: PartsRead): string[] {
  const { names, clean } = read;
  return reused(read, "status", ["status"], (visible) => {
    const found: string[] = [];
    const statusSeen = new Set<string>();
    visit(read, "status", (element) => {
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
}

function headingLevel(element: Element): number {
  const fromTag = /^H([1-6])$/.exec(element.tagName)?.[1];
  const level = Number(fromTag ?? element.getAttribute("aria-level") ?? 2);
  return Number.isInteger(level) && level >= 1 && level <= 6 ? level : 2;
}
