import type { ErrorGuard } from "../common/error-guard";
import { isTypedField, type FieldMasker } from "../privacy/field-masking";
import type { Root } from "../page-index/index-kinds";
import { createPageIndex, type PageIndex } from "../page-index/page-index";
import type { PrivacyBoundary } from "../privacy/privacy-boundary";
import { isShadowRoot } from "../snapshot/shadow-roots";
import { observeClicks } from "./clicks";
import { observeFieldEdits, reportPendingEdits } from "./field-edits";
import { observeKeyboard } from "./keyboard";
import { observeNavigation } from "./navigation";
import { createObserverState, type DomObservation, type ObserverState, type RootHook } from "./observer-state";
import { observeSubmits } from "./submits";
import { observeToggles } from "./toggles";

export { quoted, type DomObservation, type TargetDescription } from "./observer-state";

/**
 * The browser_dom adapter's observers (issue #4): capture-phase listeners on the page, its open
 * shadow roots and its same-origin frames, one observer per event source (observers/, as rrweb's
 * record has them): clicks, field edits and choices, submits, keys, toggles, navigation. Each turns
 * a user action into a `DomObservation`: a label written for a person, the target described by
 * role, accessible name and selectors, and — for fields — the value already masked. Typed values
 * are read there and handed only to the masker; noise (focus, hover, ordinary typing, untrusted
 * events a page script dispatched) is dropped there.
 *
 * This module composes them: the roots they listen on (documents, open shadow roots, same-origin
 * frames, attached as they appear), and the index those roots keep (page-index.ts): the snapshot
 * and the target descriptions read elements and names from there, and its change count tells
 * whether the page moved at all.
 */

export interface DomObserverOptions {
  /** The top window: its document, frames and history are observed. */
  window: Window;
  masker: FieldMasker;
  guard: ErrorGuard;
  /** Our own in-page indicator: never observed. */
  isOwnNode: (node: EventTarget) => boolean;
  /** Whether a (frame's) document is on the session's allow-list. */
  isAllowedDocument: (document: Document) => boolean;
  emit: (observation: DomObservation) => void;
  /** The page's privacy boundary: told every value typed here, asked for the scrubber of all of them. */
  boundary: PrivacyBoundary;
  /** Values typed here that the session did not know yet (the other pages of the session must cut them out too). */
  shareTypedValues: (values: string[]) => void;
  /** Emit "Open '…'" for the page as it is now (a fresh load, or the first start on this page). */
  emitInitialNavigation: boolean;
}

export interface DomObserver {
  /** Emits the pending edit of every field typed into but not yet left (before the page hides or capture pauses). */
  flushFields(): void;
  /** Whether a field was typed into and not yet left (its edit is still to be reported). */
  editing(): boolean;
  /** Documents and open shadow roots currently observed: each document, then its shadow roots in tree order. */
  roots(): readonly Root[];
  /** The observed roots' elements, names and change count. */
  readonly index: PageIndex;
  /** Cuts every value typed in the session so far (and what the fields hold now) out of page text. */
  scrubber(): (text: string) => string;
  /** The top URL the observer last reported, so a restart knows whether the page changed meanwhile. */
  readonly lastUrl: string;
  /** The page came back from the back/forward cache (no load, no script start): "Open" it again (issue #35). */
  reopened(): void;
  stop(): void;
}

export function observeDom(options: DomObserverOptions): DomObserver {
  const { window: top, masker, guard, isOwnNode, isAllowedDocument, emit, boundary, shareTypedValues, emitInitialNavigation } = options;
  const frames = new AbortController();

  // Frames and shadow roots that arrive with added nodes are attached from the index's walk.
  const index: PageIndex = createPageIndex({
    onFrame: (frame) => roots.attachFrame(frame),
    onShadowRoot: (root) => roots.attachShadowRoot(root),
    isOwnNode: (node) => isOwnNode(node),
    guard,
  });
  const state = createObserverState({
    top,
    masker,
    guard,
    boundary,
    index,
    isOwnNode,
    attachShadowRootsOnPath: (path) => {
      for (const node of path) if (isShadowRoot(node as Node)) roots.attachShadowRoot(node as ShadowRoot);
    },
    emit,
    shareTypedValues,
  });
  const roots = createRoots(state, isAllowedDocument, frames.signal);
  boundary.setLiveValues(() => liveFieldValues(state));

  // --- one observer per source; each listens on the roots attached from now on ---
  const stops = [observeClicks(state), observeFieldEdits(state), observeSubmits(state), observeKeyboard(state), observeToggles(state)];
  roots.attachDocument(top.document);
  const navigation = observeNavigation(state, { emitInitialNavigation });

  return {
    flushFields: () => reportPendingEdits(state),
    editing: () => state.fields.dirty.size > 0,
    roots: () => index.roots(),
    index,
    scrubber: state.scrubber,
    get lastUrl() {
      return navigation.lastUrl;
    },
    reopened: () => navigation.reopened(),
    stop() {
      boundary.setLiveValues(undefined);
      for (const stop of stops) stop();
      navigation.stop();
      frames.abort();
      index.disconnect();
    },
  };
}

/** What the page's fields hold now (typed into, or set by a script): the privacy boundary cuts these out too. */
function liveFieldValues(state: ObserverState): string[] {
  const { index, names, fields } = state;
  const values: string[] = [];
  // Which listed fields hold typed text is remembered with their names (a `type` or `contenteditable` change forgets it).
  for (const root of index.roots()) {
    for (const field of index.elements(root, "fields")) if (names.memo(field, "typed-field", isTypedField)) values.push(state.fieldValue(field));
  }
  for (const field of fields.dirty) {
    const seen = fields.lastSeen.get(field);
    if (seen !== undefined) values.push(seen);
  }
  return values;
}

interface Roots {
  attachDocument(document: Document): void;
  attachShadowRoot(root: ShadowRoot): void;
  attachFrame(frame: Element): void;
}

/** The roots the observers listen on: documents (all sources), open shadow roots (the events that do not cross them), same-origin frames. */
function createRoots(state: ObserverState & { rootHooks: RootHook[] }, isAllowedDocument: (document: Document) => boolean, signal: AbortSignal): Roots {
  const { index } = state;
  /** Roots our listeners are on (once each, even if a shadow root leaves the page and comes back). */
  const listening = new WeakSet<Root>();
  const framesSeen = new WeakSet<Element>();

  const attachRoot = (root: Root, kind: "document" | "shadow"): void => {
    if (listening.has(root)) return;
    listening.add(root);
    for (const hook of state.rootHooks) hook(root, kind);
  };

  const roots: Roots = {
    attachShadowRoot(root) {
      if (index.hasRoot(root) || state.isOwnNode(root.host)) return;
      attachRoot(root, "shadow");
      index.addRoot(root);
    },
    attachFrame(frame) {
      const load = (): void => {
        const document = frameDocument(frame);
        if (document !== null) roots.attachDocument(document);
        // A frame that loaded another page (cross-origin too, which no root shows) changed what a snapshot reads.
        else index.touch();
      };
      if (!framesSeen.has(frame)) {
        framesSeen.add(frame);
        state.listen(frame, "load", load, signal);
      }
      load();
    },
    attachDocument(document) {
      if (index.hasRoot(document) || !isAllowedDocument(document)) return;
      attachRoot(document, "document");
      // Indexing walks the document once: its frames and open shadow roots are attached from there.
      index.addRoot(document);
    },
  };
  return roots;
}

function frameDocument(frame: Element): Document | null {
  try {
    return (frame as HTMLIFrameElement).contentDocument;
  } catch {
    return null; // cross-origin: not ours to observe
  }
}
