import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { roleOf } from "../names/accessible-name";
import type { Names } from "../names/name-cache";
import type { ChildView } from "./child-views";
import { NO_MEMO, type SnapshotMemo } from "./snapshot-memo";

/**
 * The snapshot's lists (issue #14): each visible list that is not part of another list's item, page
 * content before the page's chrome, with its name and how many items it shows and holds ticked. No
 * item's text leaves the page.
 */

type Root = Document | ShadowRoot;

const LIST_ITEMS = "li, tr, [role=listitem], [role=option], [role=row], [role=treeitem]";
const CHECKED_INSIDE = "input[type=checkbox], input[type=radio], [aria-checked], [aria-selected]";
const LIMITS = { lists: 8, counted: 500 } as const;

/** The lists to list, and their counts, in the order they are listed. */
export function readListSummaries(
  roots: readonly Root[],
  lists: (root: Root) => Iterable<Element>,
  names: Names,
  clean: (text: string, max?: number) => string,
  memo: SnapshotMemo,
): NonNullable<PageSnapshot["lists"]> {
  const found: NonNullable<PageSnapshot["lists"]> = [];
  const candidates: Array<{ list: Element; inChrome: boolean; order: number }> = [];
  let order = 0;
  for (const root of roots) {
    for (const list of lists(root)) {
      if (!list.isConnected) continue;
      order += 1;
      // A list inside another list's item is part of that item.
      const place = memo.upward(list, "list-place", listPlace);
      if (place.nested || !memo.isVisible(list)) continue;
      candidates.push({ list, inChrome: place.inChrome, order });
    }
  }
  candidates.sort((a, b) => Number(a.inChrome) - Number(b.inChrome) || a.order - b.order);
  const shadowHosts = roots.filter((root): root is ShadowRoot => root.nodeType === Node.DOCUMENT_FRAGMENT_NODE).map((root) => root.host);
  for (const { list } of candidates.slice(0, LIMITS.lists)) {
    const { items, checked } = listCounts(list, memo, shadowHosts);
    const name = clean(listName(list, names, memo));
    found.push({ ...(name === "" ? {} : { name }), role: roleOf(list).slice(0, 40), items, checked });
  }
  return found;
}

/** The elements matching `selector` under `root`, its descendants' open shadow roots included (bounded). */
function deepQueryAll(root: Element, selector: string, limit: number): Element[] {
  const found: Element[] = [];
  const scopes: Array<Element | ShadowRoot> = [root, ...(root.shadowRoot ? [root.shadowRoot] : [])];
  for (let index = 0; index < scopes.length && index < 50 && found.length < limit; index += 1) {
    for (const element of scopes[index]!.querySelectorAll("*")) {
      if (element.matches(selector)) found.push(element);
      if (element.shadowRoot) scopes.push(element.shadowRoot);
    }
  }
  return found;
}

/**
 * How many items a list shows (its visible children that are items, at most `LIMITS.counted`
 * looked at) and how many of those hold a checked control: the item itself, or one inside it
 * (inside open shadow roots too). Visibility and each item's controls are remembered by the memo
 * while nothing that could alter them changed, and for a list whose items are its children the
 * counts too, updated from the children that changed; whether a control is checked is read every
 * time (a property, set without any DOM change). Where an observed shadow root is in the list
 * (rare), each item is searched afresh, shadow roots included.
 */
function listCounts(list: Element, memo: SnapshotMemo, shadowHosts: readonly Element[]): { items: number; checked: number } {
  if (shadowHosts.some((host) => list.contains(host))) {
    const items = itemsOf(list, NO_MEMO);
    return {
      items: items.length,
      checked: items.filter(({ view, position }) => {
        const item = view.elements[position]!;
        return (item.matches(CHECKED_INSIDE) && isChecked(item)) || deepQueryAll(item, CHECKED_INSIDE, 4).some(isChecked);
      }).length,
    };
  }
  const direct = directCounts(list, memo);
  if (direct !== undefined) return direct;
  const items = itemsOf(list, memo);
  if (items.some(({ view }) => view.fresh)) rememberControls(list, items);
  let checked = 0;
  for (const { view, position } of items) {
    if (view.fact(position, CONTROLS, controlsOf).some(isChecked)) checked += 1;
  }
  return { items: items.length, checked };
}

/** Read afresh: one query over the list finds the controls, each given to the item it sits in. */
function rememberControls(list: Element, items: ReadonlyArray<{ view: ChildView; position: number }>): void {
  const byItem = new Map<Element, Element[]>(items.map(({ view, position }) => [view.elements[position]!, []]));
  for (const control of list.querySelectorAll(CHECKED_INSIDE)) {
    for (let node: Element | null = control; node !== null && node !== list; node = node.parentElement) {
      const controls = byItem.get(node);
      if (controls !== undefined) {
        controls.push(control);
        break;
      }
    }
  }
  for (const { view, position } of items) view.remember(position, CONTROLS, byItem.get(view.elements[position]!));
}

const CONTROLS = "checked-controls";
const COUNTS = "list-counts";
const controlsOf = (item: Element): Element[] => [...(item.matches(CHECKED_INSIDE) ? [item] : []), ...item.querySelectorAll(CHECKED_INSIDE)];
const isListItem = (element: Element): boolean => element.matches(LIST_ITEMS);

/** A list's counts as of the read that last counted them, by its children's positions. */
interface ListState {
  /** Per position: whether the child is an item. */
  items: boolean[];
  /** The position after the last child looked at (`LIMITS.counted` items at most). */
  until: number;
  /** Visible items among them, and those of these that hold a control that can be checked. */
  visible: Set<number>;
  controlled: Set<number>;
}

/** What a list's child is: an item, not one, or a table section (whose rows are the items). */
function childKind(view: ChildView, position: number, bulleted: boolean): "item" | "other" | "section" {
  const tag = view.elements[position]!.tagName;
  if (tag === "TEMPLATE" || tag === "SCRIPT" || tag === "STYLE") return "other";
  if (tag === "TBODY" || tag === "THEAD" || tag === "TFOOT") return "section";
  return bulleted || view.fact(position, "list-item", isListItem) ? "item" : "other";
}

/**
 * The counts of a list whose items are its children (no table sections), kept from the read that
 * last counted them and updated from the children that changed since; undefined for a list with table sections.
 */
function directCounts(list: Element, memo: SnapshotMemo): { items: number; checked: number } | undefined {
  const view = memo.children(list);
  const bulleted = list.tagName === "UL" || list.tagName === "OL";
  const kept = view.state<ListState>(COUNTS);
  const changed = kept?.changed;
  let state = changed === undefined ? undefined : kept!.value;
  if (state !== undefined) {
    for (const position of changed!) {
      const kind = childKind(view, position, bulleted);
      if (kind !== (state.items[position] ? "item" : "other")) {
        // Which children are items changed: where the count stops may move.
        state = undefined;
        break;
      }
      if (position >= state.until) continue;
      state.visible.delete(position);
      state.controlled.delete(position);
      if (kind !== "item" || !view.visible(position)) continue;
      state.visible.add(position);
      if (view.fact(position, CONTROLS, controlsOf).length > 0) state.controlled.add(position);
    }
  }
  if (state === undefined) {
    const fresh: ListState = { items: [], until: view.elements.length, visible: new Set(), controlled: new Set() };
    let looked = 0;
    for (let position = 0; position < view.elements.length; position += 1) {
      if (looked >= LIMITS.counted) {
        fresh.until = position;
        break;
      }
      const kind = childKind(view, position, bulleted);
      if (kind === "section") return undefined;
      fresh.items.push(kind === "item");
      if (kind !== "item") continue;
      looked += 1;
      if (view.visible(position)) fresh.visible.add(position);
    }
    if (view.fresh)
      rememberControls(
        list,
        [...fresh.visible].map((position) => ({ view, position })),
      );
    for (const position of fresh.visible) if (view.fact(position, CONTROLS, controlsOf).length > 0) fresh.controlled.add(position);
    state = fresh;
  }
  view.setState(COUNTS, state);
  let checked = 0;
  for (const position of state.controlled) if (view.fact(position, CONTROLS, controlsOf).some(isChecked)) checked += 1;
  return { items: state.visible.size, checked };
}

/** A list's visible items (each as its place among its parent's children), at most `LIMITS.counted` looked at. */
function itemsOf(list: Element, memo: SnapshotMemo): Array<{ view: ChildView; position: number }> {
  const items: Array<{ view: ChildView; position: number }> = [];
  const bulleted = list.tagName === "UL" || list.tagName === "OL";
  let looked = 0;
  const take = (parent: Element): void => {
    const view = memo.children(parent);
    const { elements } = view;
    for (let position = 0; position < elements.length; position += 1) {
      if (looked >= LIMITS.counted) return;
      const child = elements[position]!;
      const tag = child.tagName;
      if (tag === "TEMPLATE" || tag === "SCRIPT" || tag === "STYLE") continue;
      if (tag === "TBODY" || tag === "THEAD" || tag === "TFOOT") {
        if (tag === "TBODY") take(child);
        continue;
      }
      if (!bulleted && !view.fact(position, "list-item", isListItem)) continue;
      looked += 1;
      if (view.visible(position)) items.push({ view, position });
    }
  };
  take(list);
  return items;
}

/** A heading just before the list (its own, or one of up to three ancestors' earlier siblings), or a caption. */
function listName(list: Element, names: Names, memo: SnapshotMemo): string {
  const own = names.name(list);
  if (own !== "") return own;
  const caption = childCaption(list, memo);
  if (caption !== null) return names.text(caption);
  let node: Element | null = list;
  for (let depth = 0; node !== null && depth < 4; depth += 1, node = node.parentElement) {
    for (let sibling = node.previousElementSibling; sibling !== null; sibling = sibling.previousElementSibling) {
      const heading = sibling.matches("h1, h2, h3, h4, h5, h6, [role=heading], label, legend")
        ? sibling
        : sibling.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]");
      if (heading !== null) return names.text(heading);
    }
  }
  return "";
}

const CAPTION = "caption";

/**
 * What `:scope > caption` finds: the first child `caption` matches (a type selector matches an
 * element whose local name is it, in HTML documents for HTML elements too). Which child it is
 * depends on the child list alone: kept by the memo while that stays (issue #32: a query over a list
 * of 500 rows, or a look at each row, on every read cost as much as the list's counts).
 */
function childCaption(list: Element, memo: SnapshotMemo): Element | null {
  const view = memo.children(list);
  let caption = view.state<{ child: Element | null }>(CAPTION)?.value;
  if (caption === undefined) {
    caption = { child: null };
    for (const child of view.elements) {
      if (child.localName === "caption" && child.matches("caption")) {
        caption.child = child;
        break;
      }
    }
  }
  view.setState(CAPTION, caption);
  return caption.child;
}

function isChecked(element: Element): boolean {
  if (element instanceof HTMLInputElement) return element.checked;
  return element.getAttribute("aria-checked") === "true" || element.getAttribute("aria-selected") === "true";
}

/**
 * The list row a control sits in (its name may be the row's text, which may be typed). A column
 * header is not in a row of the list: it is known by its name.
 */
export function contextOf(element: Element): Element | undefined {
  if (element.tagName === "TH" || element.matches("[role=columnheader], [role=rowheader]")) return undefined;
  let node: Element | null = element;
  for (let depth = 0; node !== null && depth < 12; depth += 1) {
    const parent: Element | null = node.parentElement ?? (node.getRootNode() as ShadowRoot).host ?? null;
    if (parent === null) return undefined;
    // A row is a list item, or any element a list holds directly (a custom element in a <ul>).
    if (parent.matches(LIST_ITEMS) || parent.parentElement?.matches("ul, ol, [role=list]") === true) return parent;
    node = parent;
  }
  return undefined;
}

/** Where a list sits: inside another list's item (then it is part of that item), in the page's chrome (navigation, header, footer, menus). */
function listPlace(list: Element): { nested: boolean; inChrome: boolean } {
  return {
    nested: list.parentElement?.closest(LIST_ITEMS) != null,
    inChrome: list.closest("nav, header, footer, [role=navigation], [role=banner], [role=contentinfo], [role=menu], [role=tablist]") !== null,
  };
}
