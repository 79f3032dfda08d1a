import { createNameCache, type NameCache } from "../names/name-cache";
import type { ErrorGuard } from "../error-guard";
import { isShadowRoot, mayHostShadowRoot } from "../snapshot/shadow-roots";
import type { ChangeLog, PageChange } from "../snapshot/memo-changes";
import { createSnapshotMemo, type SnapshotMemo } from "../snapshot/snapshot-memo";
import { firstFollowing, type SnapshotKind, type SnapshotSource } from "../snapshot/snapshot-source";

/**
 * What the observers know about the observed roots (documents, same-origin frames, open shadow
 * roots), kept up to date by one MutationObserver instead of re-reading the page after every
 * action (BENCHMARKS.md, "Content script versus rrweb"):
 * - a change count: anything a snapshot reads that changed bumps it, so an unchanged page is not
 *   read again;
 * - per root, the elements a snapshot lists and selectors compare a target with, by kind, in tree
 *   order (the snapshot's own selectors, `SNAPSHOT_KINDS`, plus explicit roles and image-map areas);
 * - names and texts per element (accessible-name.ts `NameCache`), forgotten when a change could alter them;
 * - shadow roots and frames that arrive with added nodes, handed to the observer.
 * Records are taken lazily (`sync`), so a burst of page changes between two reads costs one pass.
 */

export type Root = Document | ShadowRoot;
export type IndexKind = SnapshotKind | "roles" | "areas" | "editables";

const KIND_BITS: Readonly<Record<IndexKind, number>> = {
  headings: 1,
  landmarks: 2,
  dialogs: 4,
  forms: 8,
  fields: 16,
  buttons: 32,
  links: 64,
  status: 128,
  lists: 256,
  toggles: 512,
  roles: 1024,
  areas: 2048,
  editables: 4096,
};
const KINDS = Object.keys(KIND_BITS) as IndexKind[];
const ALL_KINDS = (1 << KINDS.length) - 1;

/** Selectors of the kinds the snapshot does not list (what `kindsOf` answers for them). */
export const EXTRA_KINDS = {
  roles: "[role]",
  areas: "area[href]",
  editables: "[contenteditable], [role=textbox], [role=searchbox], [role=combobox][aria-autocomplete]",
} as const;

const LANDMARK_TAGS = new Set(["main", "nav", "aside", "header", "footer", "search"]);
const LANDMARK_ROLES = new Set(["main", "navigation", "complementary", "banner", "contentinfo", "region", "search"]);
const BUTTON_INPUT_TYPES = new Set(["button", "submit", "reset", "image"]);
const LIST_ROLES = new Set(["list", "listbox", "grid", "table", "tree"]);
const TOGGLE_ROLES = new Set(["checkbox", "radio", "switch", "menuitemcheckbox"]);

/**
 * The kinds an element belongs to, as a bit set: the same answer as `element.matches()` with each
 * kind's selector (a test holds them equal), computed without selector matching, which costs about
 * 30 ns per element and selector on a large page.
 */
export function kindsOf(element: Element): number {
  let kinds = 0;
  const attributes = element.hasAttributes();
  switch (element.localName) {
    case "h1":
    case "h2":
    case "h3":
    case "h4":
    case "h5":
    case "h6":
      kinds |= KIND_BITS.headings;
      break;
    case "form":
      kinds |= KIND_BITS.forms;
      break;
    case "input": {
      kinds |= KIND_BITS.fields;
      // Attribute selectors match `type` case-insensitively in HTML.
      const type = attributes ? element.getAttribute("type")?.toLowerCase() : undefined;
      if (type !== undefined && BUTTON_INPUT_TYPES.has(type)) kinds |= KIND_BITS.buttons;
      else if (type === "checkbox" || type === "radio") kinds |= KIND_BITS.toggles;
      break;
    }
    case "ul":
    case "ol":
    case "table":
      kinds |= KIND_BITS.lists;
      break;
    case "select":
    case "textarea":
      kinds |= KIND_BITS.fields;
      break;
    case "button":
    case "summary":
      kinds |= KIND_BITS.buttons;
      break;
    case "a":
      if (attributes && element.hasAttribute("href")) kinds |= KIND_BITS.links;
      break;
    case "area":
      if (attributes && element.hasAttribute("href")) kinds |= KIND_BITS.areas;
      break;
    case "dialog":
      kinds |= KIND_BITS.dialogs;
      break;
    case "output":
      kinds |= KIND_BITS.status;
      break;
    case "section":
      if (attributes && (element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby"))) kinds |= KIND_BITS.landmarks;
      break;
    default:
      if (LANDMARK_TAGS.has(element.localName)) kinds |= KIND_BITS.landmarks;
  }
  // Most elements a page adds carry a class at most: one call tells there is nothing more to read.
  if (!attributes) return kinds;
  const role = element.getAttribute("role");
  if (role !== null) {
    kinds |= KIND_BITS.roles;
    if (role === "heading") kinds |= KIND_BITS.headings;
    else if (role === "button") kinds |= KIND_BITS.buttons;
    else if (role === "link") kinds |= KIND_BITS.links;
    else if (role === "dialog" || role === "alertdialog") kinds |= KIND_BITS.dialogs;
    else if (role === "status" || role === "alert") kinds |= KIND_BITS.status;
    else if (LANDMARK_ROLES.has(role)) kinds |= KIND_BITS.landmarks;
    // Typed text outside a form field (field-masking.ts TYPED_ROLE_SELECTOR).
    else if (role === "textbox" || role === "searchbox" || (role === "combobox" && element.hasAttribute("aria-autocomplete"))) {
      kinds |= KIND_BITS.fields | KIND_BITS.editables;
    } else if (LIST_ROLES.has(role)) kinds |= KIND_BITS.lists;
    else if (TOGGLE_ROLES.has(role) || (role === "tab" && element.hasAttribute("aria-selected"))) kinds |= KIND_BITS.toggles;
  }
  if (element.hasAttribute("aria-pressed") || element.hasAttribute("aria-expanded") || element.hasAttribute("aria-sort")) kinds |= KIND_BITS.toggles;
  if (element.hasAttribute("contenteditable")) kinds |= KIND_BITS.fields | KIND_BITS.editables;
  const live = element.getAttribute("aria-live");
  if (live === "polite" || live === "assertive") kinds |= KIND_BITS.status;
  return kinds;
}

/** Attributes `kindsOf` reads: a change to one may move the element between lists. */
const KIND_ATTRIBUTES = new Set([
  "role",
  "href",
  "type",
  "contenteditable",
  "aria-live",
  "aria-label",
  "aria-labelledby",
  "aria-autocomplete",
  "aria-pressed",
  "aria-expanded",
  "aria-selected",
  "aria-sort",
]);
/** Attributes no name or text is computed from (how an element looks; data for scripts). */
const NAMELESS_ATTRIBUTE = /^(class|style|data-.*)$/;
/** Attributes whose change can alter names anywhere: ids and `for` tie labels and references, `slot` moves text between trees, `contenteditable` and `type` change what counts as typed content or as a labelable control. */
const FAR_REACHING_ATTRIBUTES = new Set(["id", "for", "slot", "contenteditable", "type"]);

/** Changes remembered for `changes.since` (a read older than these re-reads the page). */
const MAX_LOGGED_CHANGES = 512;

/** Above this many records waiting, they are taken at once instead of at the next read (memory stays bounded on a busy page nobody acts on). */
const MAX_PENDING_RECORDS = 2000;

export interface PageIndexHooks {
  /** A same-origin frame arrived (or may have loaded another document). */
  onFrame(frame: Element): void;
  /** An open shadow root arrived with added nodes, or its custom element was upgraded. */
  onShadowRoot(root: ShadowRoot): void;
  /** Our own nodes (the indicator): their changes are not the page's. */
  isOwnNode(node: Node): boolean;
  /** Wraps the MutationObserver's callback: an error of ours never reaches the page. */
  guard: Pick<ErrorGuard, "wrap">;
}

export interface PageIndex extends SnapshotSource {
  names: NameCache;
  /**
   * The elements of one kind in one root, in tree order (empty for a root not indexed), as of the
   * last `sync` (`roots()` syncs). Rarely one may have left the page unseen (see `unswept`): a reader
   * that does not check visibility checks `isConnected`.
   */
  elements(root: Root, kind: IndexKind): readonly Element[];
  /** Starts observing a root: its elements are listed now, its changes from now on. */
  addRoot(root: Root): void;
  removeRoot(root: Root): void;
  hasRoot(root: Root): boolean;
  /** Takes the pending DOM changes into account (every read does it first). */
  sync(): void;
  /** False when nothing observed can be editable (no `contenteditable` anywhere, no design mode): `isContentEditable`, which updates style, need not be asked. */
  mayHoldEditable(): boolean;
  /** Bumped by every change a snapshot could see: DOM changes, roots coming and going, `touch`. */
  readonly changeCount: number;
  /** Something a snapshot reads changed outside the DOM (the viewport, a toggled popover, a checked box that CSS may follow). */
  touch(): void;
  /** Where the page changed, so a snapshot re-reads only what a change could alter (snapshot-memo.ts). */
  changes: ChangeLog;
  /** What a snapshot read from this index remembers for the next one. */
  memo: SnapshotMemo;
  disconnect(): void;
}

interface RootEntry {
  root: Root;
  lists: Element[][];
  /** Lists that hold unlisted elements (something was removed or changed kind): swept before use. */
  dirty: number;
  /**
   * Lists that may hold an element that left the page unseen: one taken out of a subtree after
   * that subtree was removed (no record names it). Swept of disconnected elements before anything
   * is inserted in tree order; readers skip them (an invisible element is never listed anyway).
   */
  unswept: number;
}

export function createPageIndex(hooks: PageIndexHooks): PageIndex {
  const nameCache = createNameCache();
  /** Per kind: the change count at which its list, or the name of one of its elements, last changed (`changes.kindChangedAt`). */
  const kindChangedAt = KINDS.map(() => 0);
  const markKinds = (kinds: number): void => {
    for (let kind = 0; kind < KINDS.length; kind += 1) if (kinds & (1 << kind)) kindChangedAt[kind] = changeCount;
  };
  const names: NameCache = {
    ...nameCache,
    forget(element) {
      nameCache.forget(element);
      const member = membership.get(element);
      if (member !== undefined) markKinds(member.kinds);
    },
    forgetAll() {
      nameCache.forgetAll();
      markKinds(ALL_KINDS);
    },
  };
  const entries = new Map<Root, RootEntry>();
  /** Kinds of every listed element, and the root it is listed in. */
  const membership = new Map<Element, { kinds: number; entry: RootEntry }>();
  /** Custom elements not defined yet: their upgrade may attach a shadow root without any DOM change. */
  const pendingUpgrades = new Set<Element>();
  let pending: MutationRecord[] = [];
  let changeCount = 0;
  let orderedRoots: Root[] | undefined;
  /**
   * The nodes changes happened at, each with the change count it brought (a record's target; a
   * text's parent), for `changes.since`; before `logFloor` or `everythingAt` the log cannot tell.
   */
  let logNodes: PageChange[] = [];
  let logCounts: number[] = [];
  let logFloor = 0;
  let everythingAt = 0;
  const everything = (): void => {
    changeCount += 1;
    everythingAt = changeCount;
    markKinds(ALL_KINDS);
    logNodes = [];
    logCounts = [];
  };

  /** False for changes to our own nodes (the indicator), which no snapshot reads. */
  const isPageRecord = (record: MutationRecord): boolean => {
    if (hooks.isOwnNode(record.target)) return false;
    if (record.type !== "childList") return true;
    for (const node of record.addedNodes) if (!hooks.isOwnNode(node)) return true;
    for (const node of record.removedNodes) if (!hooks.isOwnNode(node)) return true;
    return false;
  };

  const take = (records: readonly MutationRecord[]): void => {
    for (const record of records) {
      if (!isPageRecord(record)) continue;
      changeCount += 1;
      pending.push(record);
      const { target } = record;
      if (record.type === "characterData") {
        if (target.parentNode !== null) log(target.parentNode, "characterData");
        continue;
      }
      log(target, record.type);
      // An added element may have been moved here: what was read of it where it was no longer holds.
      if (record.type === "childList") for (const node of record.addedNodes) if (node.nodeType === Node.ELEMENT_NODE) log(node, "added");
    }
  };

  const log = (node: Node, kind: PageChange["kind"]): void => {
    if (logNodes.length >= MAX_LOGGED_CHANGES) {
      // A page changing faster than it is read: older changes are forgotten, a reader from before them reads afresh.
      logFloor = logCounts[MAX_LOGGED_CHANGES / 2 - 1]!;
      logNodes = logNodes.slice(MAX_LOGGED_CHANGES / 2);
      logCounts = logCounts.slice(MAX_LOGGED_CHANGES / 2);
    }
    logNodes.push({ node, kind });
    logCounts.push(changeCount);
  };

  const observer = new MutationObserver(
    hooks.guard.wrap((records: MutationRecord[]) => {
      take(records);
      if (pending.length > MAX_PENDING_RECORDS) sync();
    }),
  );

  // --- listing ---
  const addToLists = (element: Element, kinds: number, entry: RootEntry): void => {
    membership.set(element, { kinds, entry });
    markKinds(kinds);
    for (let kind = 0; kind < KINDS.length; kind += 1) {
      if ((kinds & (1 << kind)) === 0) continue;
      if (entry.unswept & (1 << kind)) sweepDetached(entry, kind);
      const list = entry.lists[kind]!;
      // Appending in tree order is the common case (a scan, a list that grows at its end).
      const last = list[list.length - 1];
      if (last === undefined || last.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) list.push(element);
      else list.splice(firstFollowing(list, element), 0, element);
    }
  };

  const unlist = (element: Element): void => {
    const member = membership.get(element);
    if (member === undefined) return;
    membership.delete(element);
    member.entry.dirty |= member.kinds;
    markKinds(member.kinds);
  };

  /** Drops disconnected elements from a list (their tree order is undefined). */
  const sweepDetached = (entry: RootEntry, kind: number): void => {
    kindChangedAt[kind] = changeCount;
    entry.lists[kind] = entry.lists[kind]!.filter((element) => {
      if (element.isConnected) return true;
      if (membership.get(element)?.entry === entry) membership.delete(element);
      return false;
    });
    entry.unswept &= ~(1 << kind);
  };

  const sweep = (entry: RootEntry): void => {
    if (entry.dirty === 0) return;
    for (let kind = 0; kind < KINDS.length; kind += 1) {
      if ((entry.dirty & (1 << kind)) === 0) continue;
      entry.lists[kind] = entry.lists[kind]!.filter((element) => {
        const member = membership.get(element);
        return member !== undefined && member.entry === entry && (member.kinds & (1 << kind)) !== 0;
      });
    }
    entry.dirty = 0;
  };

  /** Lists every element of a subtree (the node itself included), and finds its frames and shadow roots. */
  const listSubtree = (node: Element | Root, entry: RootEntry): void => {
    const isElementNode = node.nodeType === Node.ELEMENT_NODE;
    // An element without element children (most of what pages add) needs no walker.
    const walker = isElementNode && (node as Element).firstElementChild === null ? undefined : (node.ownerDocument ?? (node as Document)).createTreeWalker(node, NodeFilter.SHOW_ELEMENT);
    for (let current: Node | null = isElementNode ? node : walker!.nextNode(); current !== null; current = walker?.nextNode() ?? null) {
      const element = current as Element;
      names.forget(element);
      // Still listed: it did not move (a move is a removal first), and a subtree added twice in one batch is listed once.
      if (!membership.has(element)) {
        const kinds = kindsOf(element);
        if (kinds !== 0) addToLists(element, kinds, entry);
      }
      const tag = element.localName;
      if (tag === "iframe" || tag === "frame") hooks.onFrame(element);
      else if (tag === "label") names.forgetAll();
      if (element.id !== "" && names.isReferencedId(element.id)) names.forgetAll();
      if (!mayHostShadowRoot(element)) continue;
      const shadow = element.shadowRoot;
      if (shadow !== null) hooks.onShadowRoot(shadow);
      else if (tag.includes("-") && !element.matches(":defined")) pendingUpgrades.add(element);
    }
  };

  /** Unlists every element of a removed subtree (as it is now). */
  const unlistSubtree = (node: Element, entry: RootEntry | undefined): void => {
    if (entry !== undefined) entry.unswept = ALL_KINDS;
    const walker = node.firstElementChild === null ? undefined : node.ownerDocument.createTreeWalker(node, NodeFilter.SHOW_ELEMENT);
    for (let current: Node | null = node; current !== null; current = walker?.nextNode() ?? null) {
      const element = current as Element;
      unlist(element);
      if (element.localName === "label" || (element.id !== "" && names.isReferencedId(element.id))) names.forgetAll();
    }
  };

  // --- names: a change invalidates the names that may read it ---
  /** Per tree, the ids `aria-labelledby`s point at, as the DOM is now (read once per pass over the records: the DOM does not change during one). */
  let labelledByIds = new Map<Node, Set<string>>();
  /** Whether some element of the element's tree names itself through it (`aria-labelledby`, split as accessible-name.ts splits it). */
  const isLabelledByIn = (element: Element): boolean => {
    const root = element.getRootNode() as ParentNode & Node;
    if (typeof root.querySelectorAll !== "function") return true;
    let ids = labelledByIds.get(root);
    if (ids === undefined) {
      ids = new Set();
      for (const labelled of root.querySelectorAll("[aria-labelledby]")) for (const id of labelled.getAttribute("aria-labelledby")!.split(/\s+/)) ids.add(id);
      labelledByIds.set(root, ids);
    }
    return ids.has(element.id);
  };

  /** The parent in the flat tree: a slotted node's slot, a shadow root's host. */
  const flatParent = (node: Node): Node | null => {
    const slot = (node as Element).assignedSlot;
    if (slot) return slot;
    const parent = node.parentNode;
    return parent !== null && isShadowRoot(parent) ? parent.host : parent;
  };

  /** Forgets the names of a node and of everything whose name or text may include it. */
  const forgetUpFrom = (node: Node, structural: boolean, visited: WeakSet<Node>): void => {
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
          if (control) forgetUpFrom(control, false, visited);
        }
      }
      // Only an `aria-labelledby` reads the referenced element's text: a label's `for` names its control from the label's own text.
      if (element.id !== "" && names.isReferencedId(element.id) && isLabelledByIn(element)) names.forgetAll();
    }
  };

  const sync = (): void => {
    take(observer.takeRecords());
    const records = pending;
    pending = [];
    if (records.length > 0) {
      try {
        applyRecords(records);
      } catch (error) {
        // Half-applied lists would be wrong for the rest of the session: list every root afresh.
        rebuild();
        throw error;
      }
    }
    for (const element of pendingUpgrades) {
      if (!element.isConnected) pendingUpgrades.delete(element);
      else if (element.matches(":defined")) {
        pendingUpgrades.delete(element);
        names.forget(element);
        // Defined now: `:defined` rules may show or hide it, with no DOM change.
        changeCount += 1;
        log(element, "attributes");
        if (element.shadowRoot !== null) hooks.onShadowRoot(element.shadowRoot);
      }
    }
  };

  const applyRecords = (records: readonly MutationRecord[]): void => {
    labelledByIds = new Map();
    // Walks up stop where an earlier record of the same kind already went (a label reacts differently to both kinds).
    const visitedByText = new WeakSet<Node>();
    const visitedByStructure = new WeakSet<Node>();
    const added: Element[] = [];
    const reclassified: Element[] = [];
    for (const record of records) {
      const { target } = record;
      switch (record.type) {
        case "characterData":
          forgetUpFrom(target, false, visitedByText);
          break;
        case "attributes": {
          const attribute = record.attributeName ?? "";
          if (KIND_ATTRIBUTES.has(attribute)) reclassified.push(target as Element);
          if (FAR_REACHING_ATTRIBUTES.has(attribute)) names.forgetAll();
          else if (!NAMELESS_ATTRIBUTE.test(attribute)) forgetUpFrom(target, false, visitedByText);
          break;
        }
        case "childList":
          forgetUpFrom(target, true, visitedByStructure);
          // A node slotted into a shadow host can name elements inside its shadow tree (a <label>
          // around a <slot>), which the walk up the light tree does not reach.
          if (target.nodeType === Node.ELEMENT_NODE && (target as Element).shadowRoot !== null) names.forgetAll();
          for (const node of record.removedNodes) {
            if (node.nodeType === Node.ELEMENT_NODE && !hooks.isOwnNode(node)) unlistSubtree(node as Element, entryOfTarget(target));
          }
          for (const node of record.addedNodes) if (node.nodeType === Node.ELEMENT_NODE && !hooks.isOwnNode(node)) added.push(node as Element);
          break;
        default:
          break;
      }
    }
    // Removals first (a moved subtree is unlisted, then listed where it is now), then sweeps, then additions.
    for (const element of reclassified) unlist(element);
    for (const entry of entries.values()) sweep(entry);
    const listedNow = new Set<Element>();
    for (const node of added) {
      if (listedNow.has(node) || !node.isConnected) continue;
      const entry = entries.get(node.getRootNode() as Root);
      if (entry === undefined) continue;
      listSubtree(node, entry);
      listedNow.add(node);
    }
    for (const element of reclassified) {
      if (membership.has(element) || !element.isConnected) continue;
      const entry = entries.get(element.getRootNode() as Root);
      const kinds = kindsOf(element);
      if (entry !== undefined && kinds !== 0) addToLists(element, kinds, entry);
    }
  };

  /** The root entry a record's target belongs to (a target in no observed root has none). */
  const entryOfTarget = (target: Node): RootEntry | undefined => entries.get(target.getRootNode() as Root);

  // --- roots ---
  const addRoot = (root: Root): void => {
    if (entries.has(root)) return;
    const entry: RootEntry = { root, lists: KINDS.map(() => []), dirty: 0, unswept: 0 };
    entries.set(root, entry);
    orderedRoots = undefined;
    everything();
    observer.observe(root, { childList: true, subtree: true, attributes: true, characterData: true });
    listSubtree(root, entry);
    // The host's own name and text may now come from its shadow tree.
    labelledByIds = new Map();
    if (isShadowRoot(root)) forgetUpFrom(root.host, true, new WeakSet());
  };

  const removeRoot = (root: Root): void => {
    const entry = entries.get(root);
    if (entry === undefined) return;
    for (const list of entry.lists) for (const element of list) if (membership.get(element)?.entry === entry) membership.delete(element);
    entries.delete(root);
    orderedRoots = undefined;
    everything();
  };

  /** Forgets everything listed and lists every live root again, as if just added. */
  const rebuild = (): void => {
    const live = [...entries.keys()].filter(isLive);
    for (const root of [...entries.keys()]) removeRoot(root);
    names.forgetAll();
    for (const root of live) addRoot(root);
  };

  /** A frame's document is gone once the frame navigates; a shadow root while its host is out of the page (it is found again if the host comes back). */
  const isLive = (root: Root): boolean => (isShadowRoot(root) ? root.host.isConnected : root.defaultView !== null);

  /** Live roots: documents in the order they were added, each followed by its shadow roots in tree order of their hosts. */
  const roots = (): readonly Root[] => {
    for (const root of entries.keys()) if (!isLive(root)) removeRoot(root);
    if (orderedRoots !== undefined) return orderedRoots;
    const documents: Document[] = [];
    const shadows = new Map<Document, ShadowRoot[]>();
    for (const root of entries.keys()) {
      if (isShadowRoot(root)) {
        const document = root.ownerDocument;
        shadows.set(document, [...(shadows.get(document) ?? []), root]);
      } else documents.push(root);
    }
    orderedRoots = documents.flatMap((document) => [document, ...sortByHostOrder(shadows.get(document) ?? [])]);
    return orderedRoots;
  };

  return {
    names,
    addRoot,
    removeRoot,
    hasRoot: (root) => entries.has(root),
    sync,
    roots() {
      sync();
      return roots();
    },
    elements(root, kind) {
      const entry = entries.get(root);
      if (entry === undefined) return [];
      sweep(entry);
      return entry.lists[KINDS.indexOf(kind)]!;
    },
    mayHoldEditable() {
      for (const entry of entries.values()) {
        if (entry.lists[KINDS.indexOf("editables")]!.length > 0) return true;
        if (!isShadowRoot(entry.root) && entry.root.designMode === "on") return true;
      }
      return false;
    },
    get changeCount() {
      sync();
      return changeCount;
    },
    touch() {
      everything();
    },
    memo: createSnapshotMemo(),
    changes: {
      get version() {
        sync();
        return changeCount;
      },
      since(version) {
        sync();
        if (version < everythingAt || version < logFloor) return undefined;
        let start = logCounts.length;
        while (start > 0 && logCounts[start - 1]! > version) start -= 1;
        return logNodes.slice(start);
      },
      kindChangedAt(kind) {
        sync();
        return kindChangedAt[KINDS.indexOf(kind as IndexKind)] ?? changeCount;
      },
    },
    disconnect() {
      observer.disconnect();
      pending = [];
      entries.clear();
      membership.clear();
      pendingUpgrades.clear();
    },
  };
}

/** Shadow roots in the order a walk of the document meets them (a root's nested roots right after it). */
function sortByHostOrder(shadows: ShadowRoot[]): ShadowRoot[] {
  if (shadows.length < 2) return shadows;
  const chainOf = (root: ShadowRoot): Element[] => {
    const chain: Element[] = [];
    for (let current: Node = root; isShadowRoot(current); current = current.host.getRootNode()) chain.unshift(current.host);
    return chain;
  };
  const chains = new Map(shadows.map((root) => [root, chainOf(root)]));
  return [...shadows].sort((a, b) => {
    const chainA = chains.get(a)!;
    const chainB = chains.get(b)!;
    for (let index = 0; index < Math.min(chainA.length, chainB.length); index += 1) {
      if (chainA[index] === chainB[index]) continue;
      return chainA[index]!.compareDocumentPosition(chainB[index]!) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    }
    return chainA.length - chainB.length;
  });
}

