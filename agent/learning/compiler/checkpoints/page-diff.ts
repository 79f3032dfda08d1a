import type { PageSnapshot } from "../../../../shared/observation/page-snapshot";

/** The capture's mark for a typed value cut out of page text (extension/observation/field-masking.ts). */
export const SCRUBBED = "•••";

type List = NonNullable<PageSnapshot["lists"]>[number];
type Toggle = NonNullable<PageSnapshot["toggles"]>[number];

/**
 * One lasting difference between the page before and after an action (issue #14), in the terms a
 * checkpoint is written in. Never a selector, a coordinate or a typed value.
 */
export type PageChange =
  | { kind: "route"; to: string }
  | { kind: "title"; text: string }
  | { kind: "dialog_opened"; name: string | undefined }
  | { kind: "dialog_closed"; name: string }
  | { kind: "status"; text: string }
  | {
      kind: "list_grew";
      list: string | undefined;
      by: number;
      from: number;
      /** The list was not on the page before (a new page's panel, or a list shown once it has items). */
      appeared?: boolean;
      /** Counted against the same list at the same address seen earlier in the demonstration (a form on another page added a row to it). */
      revisited?: boolean;
    }
  | { kind: "list_shrank"; list: string | undefined; by: number }
  | {
      kind: "toggle";
      name: string | undefined;
      role: string;
      row: number | undefined;
      /** The text of the row it sits in (scrubbed): how a run finds the row again when the list was drawn anew or sorted. */
      row_text?: string | undefined;
      state: string;
    }
  | { kind: "counter"; pattern: string; delta: number | undefined; text: string }
  | { kind: "heading"; text: string }
  | { kind: "button"; name: string };

export type PageChangeKind = PageChange["kind"];

/** Path and fragment of a URL: what names a page or a view of a single-page app. */
export function routeOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.hash}`;
  } catch {
    return url;
  }
}

/** A text with its numbers replaced by `#`: the shape a counter keeps while its number changes. */
export function numberPattern(text: string): string {
  return text.replace(/\d+(?:[.,]\d+)*/g, "#");
}

function firstNumber(text: string): number | undefined {
  const match = /\d+/.exec(text);
  return match === null ? undefined : Number(match[0]);
}

/** Lists matched by name and role, then by position among the unnamed. */
function pairLists(before: readonly List[], after: readonly List[]): Array<[List | undefined, List]> {
  const used = new Set<List>();
  return after.map((list, index) => {
    const same =
      before.find(
        (old) =>
          !used.has(old) && old.role === list.role && (old.name ?? "") === (list.name ?? "") && (list.name !== undefined || before.indexOf(old) === index),
      ) ?? before.find((old) => !used.has(old) && old.role === list.role && (old.name ?? "") === (list.name ?? ""));
    if (same !== undefined) used.add(same);
    return [same, list];
  });
}

const toggleKey = (toggle: Toggle) => `${toggle.role}|${toggle.name ?? ""}|${toggle.row ?? ""}`;
const rowTextKey = (toggle: Toggle) => `${toggle.role}|${toggle.name ?? ""}|${toggle.row_text ?? ""}`;

/** Row texts shown by one row only in a snapshot: a text two rows show names neither. */
function uniqueRowTexts(toggles: readonly Toggle[]): Map<string, Toggle> {
  const byText = new Map<string, Toggle | null>();
  for (const toggle of toggles) {
    if (toggle.row_text === undefined) continue;
    const key = rowTextKey(toggle);
    byText.set(key, byText.has(key) ? null : toggle);
  }
  return new Map([...byText].filter((entry): entry is [string, Toggle] => entry[1] !== null));
}

/**
 * The controls whose state changed. A control in a row is paired with the one in the row showing
 * the same text before (a list drawn anew or sorted keeps its rows' texts, not their places); one
 * whose row text is not unique is paired by position, unless rows were added or removed.
 */
function toggleChanges(before: readonly Toggle[], after: readonly Toggle[], rowsMoved: boolean): PageChange[] {
  const changes: PageChange[] = [];
  const previous = new Map(before.map((toggle) => [toggleKey(toggle), toggle.state]));
  const beforeByText = uniqueRowTexts(before);
  const afterByText = uniqueRowTexts(after);
  for (const toggle of after) {
    const key = rowTextKey(toggle);
    const byText = afterByText.get(key) === toggle ? beforeByText.get(key) : undefined;
    // Rows known only by position: when a list gained or lost rows, a position names another row.
    const was = byText !== undefined ? byText.state : toggle.row !== undefined && rowsMoved ? undefined : previous.get(toggleKey(toggle));
    if (was === undefined || was === toggle.state) continue;
    // Only a text the row showed before and after names it (a row that says "done" once ticked is known by its place).
    const rowText = byText !== undefined ? toggle.row_text : undefined;
    changes.push({
      kind: "toggle",
      name: toggle.name,
      role: toggle.role,
      row: toggle.row,
      ...(rowText === undefined ? {} : { row_text: rowText }),
      state: toggle.state,
    });
  }
  return changes;
}

/**
 * What changed from `before` to `after`, best evidence first within each kind. `before` missing
 * means the page is new: only its route, title and headings say so.
 */
export function diffPages(before: PageSnapshot | undefined, after: PageSnapshot): PageChange[] {
  const changes: PageChange[] = [];
  if (before === undefined || routeOf(before.url) !== routeOf(after.url)) changes.push({ kind: "route", to: routeOf(after.url) });
  if (before === undefined || before.title !== after.title) {
    if (after.title.trim() !== "") changes.push({ kind: "title", text: after.title });
  }
  for (const dialog of after.dialogs) {
    if (dialog.open && !(before?.dialogs ?? []).some((old) => old.open && old.name === dialog.name)) changes.push({ kind: "dialog_opened", name: dialog.name });
  }
  for (const dialog of before?.dialogs ?? []) {
    if (dialog.open && dialog.name !== undefined && !after.dialogs.some((now) => now.open && now.name === dialog.name))
      changes.push({ kind: "dialog_closed", name: dialog.name });
  }
  for (const message of after.status_messages) {
    if (!(before?.status_messages ?? []).includes(message)) changes.push({ kind: "status", text: message });
  }
  if (before !== undefined && after.lists !== undefined) {
    for (const [old, list] of pairLists(before.lists ?? [], after.lists)) {
      const from = old?.items ?? 0;
      if (list.items > from) {
        changes.push({ kind: "list_grew", list: list.name, by: list.items - from, from, ...(old === undefined ? { appeared: true } : {}) });
      } else if (list.items < from) {
        changes.push({ kind: "list_shrank", list: list.name, by: from - list.items });
      }
    }
    // A list that went away altogether (the last item removed and the list hidden).
    for (const old of before.lists ?? []) {
      if (old.items > 0 && !after.lists.some((list) => list.role === old.role && (list.name ?? "") === (old.name ?? "")))
        changes.push({ kind: "list_shrank", list: old.name, by: old.items });
    }
  }
  if (before !== undefined && after.toggles !== undefined) {
    const rowsMoved = changes.some((change) => change.kind === "list_grew" || change.kind === "list_shrank");
    changes.push(...toggleChanges(before.toggles ?? [], after.toggles, rowsMoved));
  }
  if (before !== undefined && after.texts !== undefined) {
    for (const text of after.texts) {
      if ((before.texts ?? []).includes(text)) continue;
      const pattern = numberPattern(text);
      const old = (before.texts ?? []).find((candidate) => numberPattern(candidate) === pattern);
      if (old === undefined) continue; // a new text is not a counter that changed
      const from = firstNumber(old);
      const to = firstNumber(text);
      changes.push({ kind: "counter", pattern, delta: from !== undefined && to !== undefined ? to - from : undefined, text });
    }
  }
  for (const heading of after.headings) {
    if (!(before?.headings ?? []).some((old) => old.text === heading.text)) changes.push({ kind: "heading", text: heading.text });
  }
  const hoverOnly = new Set(after.hover_revealed ?? []);
  for (const name of after.buttons) {
    if (!(before?.buttons ?? []).includes(name) && !hoverOnly.has(name)) changes.push({ kind: "button", name });
  }
  return changes;
}
