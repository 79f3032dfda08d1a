import type { NameCache } from "../names/name-cache";
import { isShadowRoot } from "../snapshot/shadow-roots";
import { markKinds } from "./index-changes";
import { ALL_KINDS } from "./index-kinds";
import type { IndexLists, IndexState } from "./index-structure";

/**
 * Which remembered names a DOM change may alter (names/name-cache.ts `NameCache`): a change to an
 * element or below it (through shadow roots and slots), to a label that names it, or to an element
 * its `aria-labelledby` points at. Forgetting a listed element's name also counts as a change of its
 * kinds (`ChangeLog.kindChangedAt`).
 */

/** Attributes no name or text is computed from (how an element looks; data for scripts). */
export const NAMELESS_ATTRIBUTE = /^(class|style|data-.*)$/;
/** Attributes whose change can alter names anywhere: ids and `for` tie labels and references, `slot` moves text between trees, `contenteditable` and `type` change what counts as typed content or as a labelable control. */
export const FAR_REACHING_ATTRIBUTES = new Set(["id", "for", "slot", "contenteditable", "type"]);

/** The cache as the index uses it: forgetting an element's name marks the kinds it is listed as changed. */
export function indexNames(nameCache: NameCache, lists: IndexLists): NameCache {
  return {
    ...nameCache,
    forget(element) {
      nameCache.forget(element);
      const member = lists.membership.get(element);
      if (member !== undefined) markKinds(lists.changes, member.kinds);
    },
    forgetAll() {
      nameCache.forgetAll();
      markKinds(lists.changes, ALL_KINDS);
    },
  };
}

/** Forgets the names of a node and of everything whose name or text may include it. */
export function forgetUpFrom(state: IndexState, node: Node, structural: boolean, visited: WeakSet<Node>): void {
  const { names } = state;
  for (let current: Node | null = node; current !== null && !visited.has(current); current = flatParent(current)) {
    visited.add(current);
    if (current.nodeType !== Node.ELEMENT_NODE) continue;
    const element = current as Element;
    names.forget(element);
    if (element.localName === "label") {
      // A label's text names its control (and what the control's ancestors remember of it); what it contains may change which control that is.
      if (structural) names.forgetAll();
      else {
        const control = (element as HTMLLabelElement).control;
        if (control) forgetUpFrom(state, control, false, visited);
      }
    }
    // Only an `aria-labelledby` reads the referenced element's text: a label's `for` names its control from the label's own text.
    if (element.id !== "" && names.isReferencedId(element.id) && isLabelledByIn(state, element)) names.forgetAll();
  }
}

/** Whether some element of the element's tree names itself through it (`aria-labelledby`, split as accessible-name.ts splits it). */
function isLabelledByIn(state: IndexState, element: Element): boolean {
  const root = element.getRootNode() as ParentNode & Node;
  if (typeof root.querySelectorAll !== "function") return true;
  let ids = state.labelledByIds.get(root);
  if (ids === undefined) {
    ids = new Set();
    for (const labelled of root.querySelectorAll("[aria-labelledby]")) for (const id of labelled.getAttribute("aria-labelledby")!.split(/\s+/)) ids.add(id);
    state.labelledByIds.set(root, ids);
  }
  return ids.has(element.id);
}

/** The parent in the flat tree: a slotted node's slot, a shadow root's host. */
function flatParent(node: Node): Node | null {
  const slot = (node as Element).assignedSlot;
  if (slot) return slot;
  const parent = node.parentNode;
  return parent !== null && isShadowRoot(parent) ? parent.host : parent;
}
