import { cleanText } from "../names/accessible-name";
import type { Names } from "../names/name-cache";
import { TYPED_ROLE_SELECTOR, textFieldOf } from "../privacy/field-masking";
import { NO_MEMO, type SnapshotMemo } from "./snapshot-memo";
import type { SnapshotKind, SnapshotRoot, SnapshotSource } from "./snapshot-source";

/**
 * One read of the snapshot's parts (snapshot-observer.ts): the roots it reads, how page text is
 * cleaned, where editable regions may be, and each part read afresh or, while nothing it depends on
 * changed, reused from the last read.
 */

export const NAME_MAX = 200;
export const LIMITS = { headings: 60, landmarks: 40, dialogs: 10, forms: 20, fields: 60, buttons: 80, links: 80, status_messages: 20 } as const;

export interface PartsRead {
  roots: readonly SnapshotRoot[];
  source: SnapshotSource;
  names: Names;
  memo: SnapshotMemo;
  /** Cuts typed values out of page text. */
  scrub: (text: string) => string;
  /** Scrubs and cuts a name to `NAME_MAX`. */
  clean: (text: string, max?: number) => string;
  /** Roots that may hold an editable region: nothing inside one is listed (only a document that has one pays for the check). */
  editableRoots: ReadonlySet<SnapshotRoot>;
  /** Per root: whether editable regions were looked for. */
  editable: boolean[];
  /** While a part is read (`reused`): each page text `clean` was given, and what `scrub` made of it. */
  scrubbed: Map<string, string> | undefined;
}

/** One read of a part of the snapshot, and what it depended on beside its elements and their names. */
interface PartRead<T> {
  /** The scrubber it was read with (or one found to make the same of every text it cleaned). */
  scrub: (text: string) => string;
  /** Each page text the part cleaned, and what `scrub` made of it. */
  scrubbed: Map<string, string>;
  /** Per root: whether editable regions were looked for. */
  editable: boolean[];
  /** The elements whose visibility was asked, and the answers. */
  asked: Element[];
  answers: boolean[];
  value: T[];
}

/** Starts a read: the source's roots now, and its memo begun on them. */
export function beginPartsRead(source: SnapshotSource, scrub: (text: string) => string): PartsRead {
  const { names, memo = NO_MEMO } = source;
  const roots = source.roots();
  memo.begin(roots, source.changes);
  const editableRoots = new Set(roots.filter((root) => mayHoldEditable(root, source)));
  const editable = roots.map((root) => editableRoots.has(root));
  const read: PartsRead = {
    roots,
    source,
    names,
    memo,
    scrub,
    clean(text, max = NAME_MAX) {
      const scrubbed = scrub(text);
      read.scrubbed?.set(text, scrubbed);
      return cleanText(scrubbed, max);
    },
    editableRoots,
    editable,
    scrubbed: undefined,
  };
  return read;
}

/** Visits the elements of a kind in every root, in order, until `take` says it has enough. */
export function visit(read: PartsRead, kind: SnapshotKind, take: (element: Element) => boolean | void): void {
  for (const root of read.roots) {
    const checkEditable = read.editableRoots.has(root);
    for (const element of read.source.elements(root, kind)) {
      if (!element.isConnected || (checkEditable && insideEditable(element))) continue;
      if (take(element) === true) return;
    }
  }
}

/**
 * One part of the snapshot as `readPart` gives it, or as the last read gave it while nothing it
 * depends on changed: no element of its kinds came, went or was renamed (page-index.ts), every
 * visibility it asked is the same, typed values are cut the same way from every page text it
 * cleaned and editable regions are in the same roots. `readPart` must depend on nothing else, and
 * on the typed values only through `read.clean`.
 */
export function reused<T>(read: PartsRead, key: string, kinds: readonly SnapshotKind[], readPart: (visible: (element: Element) => boolean) => T[]): T[] {
  const { memo, scrub, editable } = read;
  const previous = memo.last<PartRead<T>>(key);
  if (
    previous !== undefined &&
    previous.editable.length === editable.length &&
    previous.editable.every((value, position) => value === editable[position]) &&
    kinds.every((kind) => memo.kindUnchanged(kind)) &&
    previous.asked.every((element, position) => memo.isVisible(element) === previous.answers[position]) &&
    scrubsAlike(previous, scrub)
  ) {
    memo.keep(key, previous);
    return [...previous.value];
  }
  const asked: Element[] = [];
  const answers: boolean[] = [];
  const scrubbed = new Map<string, string>();
  read.scrubbed = scrubbed;
  let value: T[];
  try {
    value = readPart((element) => {
      const visible = memo.isVisible(element);
      asked.push(element);
      answers.push(visible);
      return visible;
    });
  } finally {
    read.scrubbed = undefined;
  }
  memo.keep(key, { scrub, scrubbed, editable, asked, answers, value });
  return [...value];
}

/**
 * Whether `scrub` makes of every page text the part cleaned what its scrubber made (issue #32: new
 * typed values, which are in none of them, change none of the part): then reading the part again
 * with it would give the same part. The part is then known by this scrubber.
 */
function scrubsAlike<T>(previous: PartRead<T>, scrub: (text: string) => string): boolean {
  if (previous.scrub === scrub) return true;
  for (const [text, scrubbed] of previous.scrubbed) if (scrub(text) !== scrubbed) return false;
  previous.scrub = scrub;
  return true;
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
export function insideEditable(element: Element): boolean {
  const field = textFieldOf(element);
  return field !== undefined && field !== element && field.tagName !== "INPUT" && field.tagName !== "TEXTAREA";
}

/** Drops empty optional names so the JSON stays small and the schema's optional fields stay absent. */
export function optional<T extends { name?: string; label?: string }>(entry: T): T {
  const copy = { ...entry };
  if (copy.name === "") delete copy.name;
  if (copy.label === "") delete copy.label;
  return copy;
}
