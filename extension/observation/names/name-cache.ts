import { accessibleName, labelsByQuery, type LabelLookup } from "./accessible-name";
import { subtreeText } from "./subtree-text";

/** Names, texts and labels of elements: `accessibleName`, `subtreeText`, `labels`, possibly remembered. */
export interface Names {
  name(element: Element): string;
  text(element: Element): string;
  labels: LabelLookup;
  /**
   * Something else read from an element and what is below it (and the names there), remembered
   * like its name: `compute` must read nothing else. `key` tells such facts apart.
   */
  memo<T>(element: Element, key: string, compute: (element: Element) => T): T;
  /** The document's `<label>` elements in tree order (what `getElementsByTagName("label")` lists). */
  documentLabels(document: Document): readonly Element[];
}

export const UNCACHED_NAMES: Names = {
  name: (element) => accessibleName(element),
  text: subtreeText,
  labels: labelsByQuery,
  memo: (element, _key, compute) => compute(element),
  documentLabels: (document) => [...document.getElementsByTagName("label")],
};

/**
 * Names and texts remembered per element: the snapshot and the uniqueness checks of selectors ask
 * for the same hundreds of names after every action. The page index (page-index.ts) forgets an
 * element when a DOM change could alter its name: a change to it or below it (through shadow roots
 * and slots), to a label that names it, or to an element its `aria-labelledby` points at.
 */
export interface NameCache extends Names {
  forget(element: Element): void;
  /** Forgets everything, the label maps included (a change whose reach is not local). */
  forgetAll(): void;
  /** True for an id that names something: a label's `for`, or an `aria-labelledby` reference a cached name was read through. */
  isReferencedId(id: string): boolean;
}

interface CachedEntry {
  name?: string;
  text?: string;
  facts?: Map<string, unknown>;
}

/**
 * Per tree (document, shadow root): which labels name which control, as `labels` would answer.
 * Each label's `for` is added to `referencedIds`.
 */
function labelMapOf(root: Node, referencedIds: Set<string>): Map<Element, HTMLLabelElement[]> {
  const map = new Map<Element, HTMLLabelElement[]>();
  const scope = root as ParentNode;
  if (typeof scope.querySelectorAll !== "function") return map;
  for (const label of scope.querySelectorAll<HTMLLabelElement>("label")) {
    const forId = label.getAttribute("for");
    if (forId !== null) referencedIds.add(forId);
    const control = label.control;
    if (control === null) continue;
    const labels = map.get(control);
    if (labels === undefined) map.set(control, [label]);
    else labels.push(label);
  }
  return map;
}

export function createNameCache(): NameCache {
  let entries = new WeakMap<Element, CachedEntry>();
  /** Per tree (document, shadow root): which labels name which control, as `labels` would answer. */
  let labelMaps = new WeakMap<Node, Map<Element, HTMLLabelElement[]>>();
  /**
   * Per document, its labels: listed once, kept until `forgetAll`, which the page index calls
   * whenever a label comes or goes (a live collection walks the whole page again after any change).
   */
  let labelLists = new WeakMap<Document, Element[]>();
  const referencedIds = new Set<string>();

  const labelsOf: LabelLookup = (element) => {
    const root = element.getRootNode();
    let map = labelMaps.get(root);
    if (map === undefined) {
      map = labelMapOf(root, referencedIds);
      labelMaps.set(root, map);
    }
    return map.get(element) ?? [];
  };

  const entryOf = (element: Element): CachedEntry => {
    let entry = entries.get(element);
    if (entry === undefined) {
      entry = {};
      entries.set(element, entry);
    }
    return entry;
  };

  return {
    labels: labelsOf,
    name(element) {
      const entry = entryOf(element);
      if (entry.name === undefined) {
        const labelledBy = element.getAttribute("aria-labelledby");
        if (labelledBy) for (const id of labelledBy.split(/\s+/)) if (id) referencedIds.add(id);
        entry.name = accessibleName(element, labelsOf);
      }
      return entry.name;
    },
    text(element) {
      const entry = entryOf(element);
      entry.text ??= subtreeText(element);
      return entry.text;
    },
    memo(element, key, compute) {
      const entry = entryOf(element);
      entry.facts ??= new Map();
      if (entry.facts.has(key)) return entry.facts.get(key) as ReturnType<typeof compute>;
      const value = compute(element);
      entry.facts.set(key, value);
      return value;
    },
    forget(element) {
      entries.delete(element);
    },
    documentLabels(document) {
      let labels = labelLists.get(document);
      if (labels === undefined) {
        labels = [...document.getElementsByTagName("label")];
        labelLists.set(document, labels);
      }
      return labels;
    },
    forgetAll() {
      entries = new WeakMap();
      labelMaps = new WeakMap();
      labelLists = new WeakMap();
      referencedIds.clear();
    },
    isReferencedId(id) {
      return referencedIds.has(id);
    },
  };
}
