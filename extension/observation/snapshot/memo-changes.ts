import type { StyleReach } from "./style-reach";

/**
 * What changed since a snapshot's last read, as the memo (snapshot-memo.ts) asks it: the page
 * index's log of DOM changes (page-index/page-index.ts) turned into the nodes whose content, place
 * or boxes may differ, and whether the viewport changed size.
 */

type Root = Document | ShadowRoot;

/**
 * One DOM change: an element's attribute, a node's child list (and each element added to it,
 * which may have been moved there), the text of a node's child.
 */
export interface PageChange {
  node: Node;
  kind: "attributes" | "childList" | "added" | "characterData";
}

/** Where the page changed since a read (page-index.ts keeps it). */
export interface ChangeLog {
  /** The change count now (moves with every change a snapshot could see). */
  readonly version: number;
  /** The changes since `version`, or undefined when anything may have changed (or the log no longer reaches back that far). */
  since(version: number): readonly PageChange[] | undefined;
  /** The change count at which the list of elements of a kind (snapshot-observer.ts `SNAPSHOT_KINDS`), or the name of one of them, last changed. */
  kindChangedAt(kind: string): number;
}

/** Where a read may find answers that differ from the last read's. */
export interface ReadChanges {
  /** This read trusts nothing remembered (the first read; a change the log cannot tell). */
  contentAll: boolean;
  /** This read trusts no remembered visibility (also: sheets changed, or their rules reach everything). */
  styleAll: boolean;
  /** Nodes a change happened at (an attribute's element, a child list's parent, a text's parent), and all their ancestors (light tree; a shadow root, then its host). */
  contentChanged: Set<Node>;
  /** Nodes whose child list changed. */
  childListChanged: Set<Node>;
  /** Nodes a text child of which changed. */
  textChanged: Set<Node>;
  /** Elements whose tag, attributes or place changed: attributes changed, added (maybe moved). */
  placeChanged: Set<Node>;
  /** Elements whose box, and their subtree's, may have changed: `placeChanged`, and where the sheets select on siblings, the parents of changed attributes, changed child lists, texts' parents. */
  styleChanged: Set<Node>;
  /** Whether a node or one of its ancestors (in the flat tree) is in `placeChanged`. */
  placeChangedAround: (node: Node) => boolean;
  /** Whether a node or one of its ancestors (in the flat tree) is in `styleChanged`. */
  styleChangedAround: (node: Node) => boolean;
}

/**
 * The changes a read sees: `changed` from the log (undefined: anything may have changed), the
 * sheets' reach, and whether visibility is to be read afresh anyway (`styleAll`: sheets changed,
 * their rules reach everything, or a viewport was resized).
 */
export function readChanges(changed: readonly PageChange[] | undefined, reach: StyleReach, styleAll: boolean): ReadChanges {
  const contentAll = changed === undefined;
  const contentChanged = new Set<Node>();
  const childListChanged = new Set<Node>();
  const textChanged = new Set<Node>();
  const placeChanged = new Set<Node>();
  const styleChanged = new Set<Node>();
  if (changed !== undefined) {
    const siblings = reach === "siblings";
    for (const { node, kind } of changed) {
      if (kind === "added" || kind === "attributes") placeChanged.add(node);
      if (kind === "added") continue;
      if (kind === "childList") childListChanged.add(node);
      if (kind === "characterData") textChanged.add(node);
      for (let up: Node | null = node; up !== null && !contentChanged.has(up); up = up.parentNode ?? (up as ShadowRoot).host ?? null) contentChanged.add(up);
      if (siblings) {
        styleChanged.add(node);
        if (kind === "attributes" && node.parentNode !== null) styleChanged.add(node.parentNode);
      }
    }
    for (const node of placeChanged) styleChanged.add(node);
  }
  return {
    contentAll,
    styleAll: contentAll || styleAll,
    contentChanged,
    childListChanged,
    textChanged,
    placeChanged,
    styleChanged,
    placeChangedAround: ancestryCheck(placeChanged),
    styleChangedAround: ancestryCheck(styleChanged),
  };
}

/** Every viewport's size and zoom (a frame's too): media queries on the viewport's size flip with them. */
export function viewportSizes(roots: readonly Root[]): number[] {
  const viewports: number[] = [];
  for (const root of roots) {
    const view = root.nodeType === Node.DOCUMENT_NODE ? (root as Document).defaultView : null;
    if (view !== null) viewports.push(view.innerWidth, view.innerHeight, view.devicePixelRatio);
  }
  return viewports;
}

/** The parent in the flat tree: a slotted node's slot, a shadow root's host. */
function flatParent(node: Node): Node | null {
  const slot = (node as Element).assignedSlot;
  if (slot) return slot;
  const parent = node.parentNode;
  return parent !== null && parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE ? ((parent as ShadowRoot).host ?? null) : parent;
}

/** Whether `node` or one of its ancestors (in the flat tree) is in `changed`, each node's answer kept for the read. */
function ancestryCheck(changed: ReadonlySet<Node>): (node: Node) => boolean {
  const answers = new Map<Node, boolean>();
  return (start) => {
    if (changed.size === 0) return false;
    const path: Node[] = [];
    let answer = false;
    for (let node: Node | null = start; node !== null; node = flatParent(node)) {
      const known = answers.get(node);
      if (known !== undefined) {
        answer = known;
        break;
      }
      path.push(node);
      if (changed.has(node)) {
        answer = true;
        break;
      }
    }
    for (const node of path) answers.set(node, answer);
    return answer;
  };
}
