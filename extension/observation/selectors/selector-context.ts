import type { Names } from "../names/name-cache";
import type { IndexKind } from "../page-index/index-kinds";

/** What every kind of selector is checked against: the names, the page index's lists, and the uniqueness check. */

export type Root = Document | ShadowRoot;

export interface SelectorContext {
  names: Names;
  /** The indexed elements of a kind in a root (page-index.ts); undefined when the root is not indexed. */
  elements?: (root: Root, kind: IndexKind) => readonly Element[] | undefined;
  /** False when nothing observed can be editable (page-index.ts): `isContentEditable`, a style update, need not be asked. */
  mayHoldEditable?: () => boolean;
  /** A root's whole text, remembered until the page changes (page-index.ts); undefined when the root is not indexed: read at the check. */
  wholeText?: (root: Root) => string | undefined;
}

/** Exactly this element matches: the first match must be it (most selectors fail here, early), and there must be no second. */
export function isUnique(root: Root, selector: string, element: Element): boolean {
  try {
    if (root.querySelector(selector) !== element) return false;
    return root.querySelectorAll(selector).length === 1;
  } catch {
    return false;
  }
}

export function quote(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ")}"`;
}
