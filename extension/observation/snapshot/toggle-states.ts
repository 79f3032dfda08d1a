import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { roleOf } from "../names/accessible-name";
import type { Names } from "../names/name-cache";
import { contextOf } from "./list-counts";
import type { SnapshotMemo } from "./snapshot-memo";

/**
 * The snapshot's controls with a state (issue #14: checked, expanded, pressed, selected, sorted). A
 * control inside a list's row is known by the row's position and the row's text (issue #35: a list
 * drawn anew or sorted), never by its own name: a row often shows what was typed, so its text is
 * scrubbed like every page text before it is shortened.
 */

type Root = Document | ShadowRoot;

const MAX_TOGGLES = 40;
/** How much of a row's text names it (page-snapshot.ts `row_text`). */
const ROW_TEXT_MAX = 80;

export function readToggles(
  roots: readonly Root[],
  toggles: (root: Root) => Iterable<Element>,
  names: Names,
  clean: (text: string, max?: number) => string,
  memo: SnapshotMemo,
): NonNullable<PageSnapshot["toggles"]> {
  const found: NonNullable<PageSnapshot["toggles"]> = [];
  for (const root of roots) {
    for (const element of toggles(root)) {
      if (found.length >= MAX_TOGGLES) break;
      if (!element.isConnected) continue;
      if (!memo.isVisible(element) && !(element instanceof HTMLInputElement && element.parentElement !== null && memo.isVisible(element.parentElement)))
        continue;
      const around = memo.upward(element, "row", contextOf);
      // In a row: known by the row's position, never by a name that may be the row's (typed) text.
      const name = around === undefined ? clean(names.name(element)) : "";
      const row = around === undefined ? undefined : rowPosition(around, memo);
      const rowText = around === undefined ? "" : clean(names.text(around), ROW_TEXT_MAX);
      found.push({
        ...(name === "" ? {} : { name }),
        role: roleOf(element).slice(0, 40),
        state: stateOf(element),
        ...(row === undefined ? {} : { row }),
        ...(rowText === "" ? {} : { row_text: rowText }),
      });
    }
  }
  return found;
}

function stateOf(element: Element): string {
  const sort = element.getAttribute("aria-sort");
  if (sort !== null) return sort === "none" ? "not sorted" : `sorted ${sort}`;
  if (element instanceof HTMLInputElement && (element.type === "checkbox" || element.type === "radio"))
    return element.indeterminate ? "mixed" : element.checked ? "checked" : "unchecked";
  const checked = element.getAttribute("aria-checked");
  if (checked !== null) return checked === "true" ? "checked" : checked === "mixed" ? "mixed" : "unchecked";
  const pressed = element.getAttribute("aria-pressed");
  if (pressed !== null) return pressed === "true" ? "pressed" : "not pressed";
  const selected = element.getAttribute("aria-selected");
  if (selected !== null) return selected === "true" ? "selected" : "not selected";
  const expanded = element.getAttribute("aria-expanded");
  return expanded === "true" ? "expanded" : "collapsed";
}

/** 1-based position of a row among its visible siblings. */
function rowPosition(row: Element, memo: SnapshotMemo): number | undefined {
  const parent = row.parentElement;
  if (parent === null) return undefined;
  const siblings = memo.children(parent);
  const at = siblings.elements.indexOf(row);
  if (at < 0 || !siblings.visible(at)) return undefined;
  let position = 0;
  for (let index = 0; index <= at; index += 1) {
    const tag = siblings.elements[index]!.tagName;
    if (tag === "TEMPLATE" || tag === "SCRIPT" || !siblings.visible(index)) continue;
    position += 1;
  }
  return position;
}
