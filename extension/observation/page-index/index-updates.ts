import { isShadowRoot, mayHostShadowRoot, sortByHostOrder } from "../snapshot/shadow-roots";
import { changeEverything, logChange, takeRecords } from "./index-changes";
import { ALL_KINDS, KIND_ATTRIBUTES, kindsOf, type Root } from "./index-kinds";
import { addToLists, newRootEntry, sweep, unlist, type IndexState, type RootEntry } from "./index-structure";
import { FAR_REACHING_ATTRIBUTES, NAMELESS_ATTRIBUTE, forgetUpFrom } from "./name-invalidation";

/**
 * How the page index (page-index.ts) follows the page: pending DOM records applied to the lists
 * and the remembered names, custom elements upgraded since, and roots coming and going.
 */

/** Takes the pending DOM changes into account (every read does it first). */
export function sync(state: IndexState): void {
  const { changes, hooks, names, pendingUpgrades } = state;
  takeRecords(changes, state.observer.takeRecords(), hooks.isOwnNode);
  const records = changes.pending;
  changes.pending = [];
  if (records.length > 0) {
    try {
      applyRecords(state, records);
    } catch (error) {
      // Half-applied lists would be wrong for the rest of the session: list every root afresh.
      rebuild(state);
      throw error;
    }
  }
  for (const element of pendingUpgrades) {
    if (!element.isConnected) pendingUpgrades.delete(element);
    else if (element.matches(":defined")) {
      pendingUpgrades.delete(element);
      names.forget(element);
      // Defined now: `:defined` rules may show or hide it, with no DOM change.
      changes.count += 1;
      logChange(changes, element, "attributes");
      if (element.shadowRoot !== null) hooks.onShadowRoot(element.shadowRoot);
    }
  }
}

function applyRecords(state: IndexState, records: readonly MutationRecord[]): void {
  const { lists, names, hooks } = state;
  state.labelledByIds = new Map();
  // Walks up stop where an earlier record of the same kind already went (a label reacts differently to both kinds).
  const visitedByText = new WeakSet<Node>();
  const visitedByStructure = new WeakSet<Node>();
  const added: Element[] = [];
  const reclassified: Element[] = [];
  for (const record of records) {
    const { target } = record;
    switch (record.type) {
      case "characterData":
        forgetUpFrom(state, target, false, visitedByText);
        break;
      case "attributes": {
        const attribute = record.attributeName ?? "";
        if (KIND_ATTRIBUTES.has(attribute)) reclassified.push(target as Element);
        if (FAR_REACHING_ATTRIBUTES.has(attribute)) names.forgetAll();
        else if (!NAMELESS_ATTRIBUTE.test(attribute)) forgetUpFrom(state, target, false, visitedByText);
        break;
      }
      case "childList":
        forgetUpFrom(state, target, true, visitedByStructure);
        // A node slotted into a shadow host can name elements inside its shadow tree (a <label>
        // around a <slot>), which the walk up the light tree does not reach.
        if (target.nodeType === Node.ELEMENT_NODE && (target as Element).shadowRoot !== null) names.forgetAll();
        for (const node of record.removedNodes) {
          if (node.nodeType === Node.ELEMENT_NODE && !hooks.isOwnNode(node))
            unlistSubtree(state, node as Element, lists.entries.get(target.getRootNode() as Root));
        }
        for (const node of record.addedNodes) if (node.nodeType === Node.ELEMENT_NODE && !hooks.isOwnNode(node)) added.push(node as Element);
        break;
      default:
        break;
    }
  }
  relist(state, added, reclassified);
}

/** Removals first (a moved subtree is unlisted, then listed where it is now), then sweeps, then additions. */
function relist(state: IndexState, added: readonly Element[], reclassified: readonly Element[]): void {
  const { lists } = state;
  for (const element of reclassified) unlist(lists, element);
  for (const entry of lists.entries.values()) sweep(lists, entry);
  const listedNow = new Set<Element>();
  for (const node of added) {
    if (listedNow.has(node) || !node.isConnected) continue;
    const entry = lists.entries.get(node.getRootNode() as Root);
    if (entry === undefined) continue;
    listSubtree(state, node, entry);
    listedNow.add(node);
  }
  for (const element of reclassified) {
    if (lists.membership.has(element) || !element.isConnected) continue;
    const entry = lists.entries.get(element.getRootNode() as Root);
    const kinds = kindsOf(element);
    if (entry !== undefined && kinds !== 0) addToLists(lists, element, kinds, entry);
  }
}

/** Lists every element of a subtree (the node itself included), and finds its frames and shadow roots. */
function listSubtree(state: IndexState, node: Element | Root, entry: RootEntry): void {
  const { lists, names, hooks } = state;
  const isElementNode = node.nodeType === Node.ELEMENT_NODE;
  // An element without element children (most of what pages add) needs no walker.
  const walker =
    isElementNode && (node as Element).firstElementChild === null
      ? undefined
      : (node.ownerDocument ?? (node as Document)).createTreeWalker(node, NodeFilter.SHOW_ELEMENT);
  for (let current: Node | null = isElementNode ? node : walker!.nextNode(); current !== null; current = walker?.nextNode() ?? null) {
    const element = current as Element;
    names.forget(element);
    // Still listed: it did not move (a move is a removal first), and a subtree added twice in one batch is listed once.
    if (!lists.membership.has(element)) {
      const kinds = kindsOf(element);
      if (kinds !== 0) addToLists(lists, element, kinds, entry);
    }
    const tag = element.localName;
    if (tag === "iframe" || tag === "frame") hooks.onFrame(element);
    else if (tag === "label") names.forgetAll();
    if (element.id !== "" && names.isReferencedId(element.id)) names.forgetAll();
    if (!mayHostShadowRoot(element)) continue;
    const shadow = element.shadowRoot;
    if (shadow !== null) hooks.onShadowRoot(shadow);
    else if (tag.includes("-") && !element.matches(":defined")) state.pendingUpgrades.add(element);
  }
}

/** Unlists every element of a removed subtree (as it is now). */
function unlistSubtree(state: IndexState, node: Element, entry: RootEntry | undefined): void {
  const { lists, names } = state;
  if (entry !== undefined) entry.unswept = ALL_KINDS;
  const walker = node.firstElementChild === null ? undefined : node.ownerDocument.createTreeWalker(node, NodeFilter.SHOW_ELEMENT);
  for (let current: Node | null = node; current !== null; current = walker?.nextNode() ?? null) {
    const element = current as Element;
    unlist(lists, element);
    if (element.localName === "label" || (element.id !== "" && names.isReferencedId(element.id))) names.forgetAll();
  }
}

/** Starts observing a root: its elements are listed now, its changes from now on. */
export function addRoot(state: IndexState, root: Root): void {
  const { entries } = state.lists;
  if (entries.has(root)) return;
  const entry = newRootEntry(root);
  entries.set(root, entry);
  state.orderedRoots = undefined;
  changeEverything(state.changes);
  state.observer.observe(root, { childList: true, subtree: true, attributes: true, characterData: true });
  listSubtree(state, root, entry);
  // The host's own name and text may now come from its shadow tree.
  state.labelledByIds = new Map();
  if (isShadowRoot(root)) forgetUpFrom(state, root.host, true, new WeakSet());
}

export function removeRoot(state: IndexState, root: Root): void {
  const { entries, membership } = state.lists;
  const entry = entries.get(root);
  if (entry === undefined) return;
  for (const list of entry.lists) for (const element of list) if (membership.get(element)?.entry === entry) membership.delete(element);
  entries.delete(root);
  state.orderedRoots = undefined;
  changeEverything(state.changes);
}

/** Forgets everything listed and lists every live root again, as if just added. */
function rebuild(state: IndexState): void {
  const { entries } = state.lists;
  const live = [...entries.keys()].filter(isLive);
  for (const root of [...entries.keys()]) removeRoot(state, root);
  state.names.forgetAll();
  for (const root of live) addRoot(state, root);
}

/** A frame's document is gone once the frame navigates; a shadow root while its host is out of the page (it is found again if the host comes back). */
const isLive = (root: Root): boolean => (isShadowRoot(root) ? root.host.isConnected : root.defaultView !== null);

/** Live roots: documents in the order they were added, each followed by its shadow roots in tree order of their hosts. */
export function liveRoots(state: IndexState): readonly Root[] {
  const { entries } = state.lists;
  for (const root of entries.keys()) if (!isLive(root)) removeRoot(state, root);
  if (state.orderedRoots !== undefined) return state.orderedRoots;
  const documents: Document[] = [];
  const shadows = new Map<Document, ShadowRoot[]>();
  for (const root of entries.keys()) {
    if (isShadowRoot(root)) {
      const document = root.ownerDocument;
      shadows.set(document, [...(shadows.get(document) ?? []), root]);
    } else documents.push(root);
  }
  state.orderedRoots = documents.flatMap((document) => [document, ...sortByHostOrder(shadows.get(document) ?? [])]);
  return state.orderedRoots;
}
