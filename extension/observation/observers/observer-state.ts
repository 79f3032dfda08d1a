import type { DomEventKind, MaskedField } from "../../../shared/learning/observed-actions/observed-action";
import type { TypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";
import { cleanText, inputType, roleOf } from "../names/accessible-name";
import type { Names } from "../names/name-cache";
import type { ErrorGuard } from "../common/error-guard";
import { blockText, readFieldValue, textFieldOf, type FieldMasker } from "../privacy/field-masking";
import type { Root } from "../page-index/index-kinds";
import type { PageIndex } from "../page-index/page-index";
import type { PrivacyBoundary } from "../privacy/privacy-boundary";
import type { SelectorContext } from "../selectors/selector-context";
import { framePathOf, selectorsFor } from "../selectors/selectors";
import { mayHostShadowRoot } from "../snapshot/shadow-roots";
import { createStateStyles } from "../snapshot/state-styles";

/**
 * What every observer of the page (observers/*.ts, composed by dom-observer.ts) shares, as rrweb's
 * observers share theirs: the page's index and names, the masker and the privacy boundary, the
 * fields being typed into, and the few helpers that turn a DOM event into a `DomObservation`.
 * Each observer takes this state and returns its stop function.
 */

export interface TargetDescription {
  role: string;
  name: string;
  tag: string;
  inputType: string | undefined;
  selectors: string[][];
  framePath: number[];
}

export interface DomObservation {
  kind: DomEventKind;
  /** Navigation labels are finished once the page has settled, because SPAs set the title late. */
  label: string | ((settledTitle: string) => string);
  target: TargetDescription | undefined;
  /**
   * The field's mask, worked out when asked (in idle time, before the event can leave: issue #32):
   * the raw value stays in the observers' closure until then and never leaves it.
   */
  maskedField: (() => Promise<MaskedField>) | undefined;
  /** The same mask at once, without a hash: what goes if the page is gone before `maskedField` settles (issue #35). */
  maskedNow: (() => MaskedField) | undefined;
  /** The top page's URL, masked. */
  pageUrl: string;
  /** The top page's title, with typed values cut out (at most 200 characters). */
  pageTitle: string;
  createdAt: string;
}

/** A field's edit as the observers follow it, in memory only. */
export interface FieldState {
  /** A field's value when it got focus, to tell an edit from a focus-and-leave. */
  valueAtFocus: WeakMap<Element, string>;
  /** Fields typed into since their last reported edit. */
  dirty: Set<Element>;
  /** A field's text just before the last key typed into it: what a page that clears the field on that key had been shown. */
  lastSeen: WeakMap<Element, string>;
  /**
   * Code editors type into a hidden textarea and render the text elsewhere (CodeMirror, Ace,
   * Monaco): the region they render into, by its textarea, and the textarea by its region.
   */
  editorRegions: WeakMap<Element, Element>;
  regionFields: WeakMap<Element, Element>;
}

/** Listeners on a root (a document or an open shadow root) as it comes under observation. */
export type RootHook = (root: Root, kind: "document" | "shadow") => void;

export interface ObserverState {
  /** The top window: its document, frames and history are observed. */
  top: Window;
  masker: FieldMasker;
  guard: ErrorGuard;
  boundary: PrivacyBoundary;
  index: PageIndex;
  names: Names;
  fields: FieldState;
  /** Our own in-page indicator: never observed. */
  isOwnNode(node: EventTarget): boolean;
  /** `hook` runs for every root observed from now on (observers register before the first root). */
  onRoot(hook: RootHook): void;
  /** A capture-phase, passive listener inside the error guard, removed when `signal` aborts. */
  listen(target: EventTarget, type: string, handler: (event: Event) => void, signal: AbortSignal): void;
  /** The element a trusted event started at (inside open shadow roots), or undefined for a page script's event or our own. */
  startOf(event: Event): Element | undefined;
  /** `textFieldOf`, without asking `isContentEditable` (a style update) where nothing can be editable. */
  fieldOf(element: Element): ReturnType<typeof textFieldOf>;
  describe(element: Element, scrub: (text: string) => string): TargetDescription;
  /** Emits one observation about the top page. */
  observe(
    kind: DomEventKind,
    label: DomObservation["label"],
    target?: TargetDescription,
    masked?: { later: () => Promise<MaskedField>; now: () => MaskedField },
    scrub?: (text: string) => string,
  ): void;
  /** Cuts every value typed in the session so far out of page text (the same function while the values stay the same). */
  scrubber(): (text: string) => string;
  /** A field's edit or choice may show or hide content through CSS alone (`:checked ~ .menu`, `:invalid + .error`). */
  stateChanged(): void;
  /** What a field holds: its value, and for a code editor's hidden textarea the text it renders. */
  fieldValue(field: Element): string;
  /** A field's edit is done: its value, and what it showed before the page cleared or rewrote it, are the session's from now on. */
  rememberField(field: Element, value: string): void;
}

export interface ObserverStateOptions {
  top: Window;
  masker: FieldMasker;
  guard: ErrorGuard;
  boundary: PrivacyBoundary;
  index: PageIndex;
  isOwnNode: (node: EventTarget) => boolean;
  /** Attaches the open shadow roots on an event's path (their events do not all cross them). */
  attachShadowRootsOnPath: (path: EventTarget[]) => void;
  emit: (observation: DomObservation) => void;
  /** Values typed here that the session did not know yet (the other pages of the session must cut them out too). */
  shareTypedValues: (values: string[]) => void;
}

export const MAX_NAME_IN_LABEL = 100;

export function createObserverState(options: ObserverStateOptions): ObserverState & { rootHooks: RootHook[] } {
  const { top, masker, guard, boundary, index, isOwnNode, attachShadowRootsOnPath, emit, shareTypedValues } = options;
  const names: Names = index.names;
  const fields: FieldState = {
    valueAtFocus: new WeakMap(),
    dirty: new Set(),
    lastSeen: new WeakMap(),
    editorRegions: new WeakMap(),
    regionFields: new WeakMap(),
  };
  const rootHooks: RootHook[] = [];
  const selectorContext: SelectorContext = {
    names,
    elements: (root, kind) => (index.hasRoot(root) ? index.elements(root, kind) : undefined),
    mayHoldEditable: () => index.mayHoldEditable(),
    wholeText: (root) => (index.hasRoot(root) ? index.wholeText(root) : undefined),
  };

  const maskedTopUrl = createMaskedTopUrl(top, boundary);

  const stateStyles = createStateStyles();

  /** The session's values from now on include these: kept here, shared with the session's other pages. */
  const remember = (...values: (string | undefined)[]): void => {
    const added = boundary.remember(values.filter((value): value is string => value !== undefined));
    if (added.length > 0) shareTypedValues(added);
  };

  const scrubber = createScrubberOf(boundary);

  return {
    top,
    masker,
    guard,
    boundary,
    index,
    names,
    fields,
    isOwnNode,
    rootHooks,
    onRoot: (hook) => void rootHooks.push(hook),
    listen: (target, type, handler, signal) => listenGuarded(guard, target, type, handler, signal),
    startOf: (event) => startOfEvent(event, isOwnNode, attachShadowRootsOnPath),
    fieldOf(element) {
      if (element.tagName === "INPUT" || element.tagName === "TEXTAREA" || index.mayHoldEditable()) return textFieldOf(element);
      return undefined;
    },
    describe: (element, scrub) => describeElement(element, scrub, index, boundary, selectorContext),
    observe(kind, label, target, masked, scrub = scrubber()) {
      const pageTitle = cleanText(scrub(top.document.title), 200);
      emit({
        kind,
        label,
        target,
        maskedField: masked?.later,
        maskedNow: masked?.now,
        pageUrl: maskedTopUrl(),
        pageTitle,
        createdAt: new Date().toISOString(),
      });
    },
    scrubber,
    stateChanged() {
      if (stateStyles.selectOnState(index.roots())) index.touch();
    },
    fieldValue(field) {
      const region = fields.editorRegions.get(field);
      return region === undefined ? readFieldValue(field) : `${readFieldValue(field)}\n${blockText(region)}`;
    },
    rememberField(field, value) {
      const seen = fields.lastSeen.get(field);
      remember(value, seen !== undefined && !value.includes(seen) ? seen : undefined);
    },
  };
}

/** A capture-phase, passive listener inside the error guard. Written for the one argument (not `guard.wrap`): it runs for every key press. */
function listenGuarded(guard: ErrorGuard, target: EventTarget, type: string, handler: (event: Event) => void, signal: AbortSignal): void {
  const listener = (event: Event): void => {
    try {
      handler(event);
    } catch (error) {
      guard.report(error);
    }
  };
  target.addEventListener(type, listener, { capture: true, passive: true, signal });
}

/** Only an event retargeted at a shadow host needs its composed path (each DOM call counts on a keystroke). */
function startOfEvent(event: Event, isOwnNode: (node: EventTarget) => boolean, attachShadowRootsOnPath: (path: EventTarget[]) => void): Element | undefined {
  if (!event.isTrusted) return undefined;
  const target = event.target;
  if (!isElement(target) || isOwnNode(target)) return undefined;
  if (!mayHostShadowRoot(target) || target.shadowRoot === null) return target;
  const path = event.composedPath();
  attachShadowRootsOnPath(path);
  return isElement(path[0]) ? path[0] : undefined;
}

function describeElement(
  element: Element,
  scrub: (text: string) => string,
  index: PageIndex,
  boundary: PrivacyBoundary,
  selectorContext: SelectorContext,
): TargetDescription {
  index.sync();
  const raw = index.names.name(element);
  const name = scrub(raw);
  // Selectors are made from the page's own text and then checked: one that would carry a typed
  // value (a button that echoes it), escaped or not, is left out, and none is made from a scrubbed name.
  const selectors = boundary.selectors(selectorsFor(element, raw, selectorContext));
  return {
    role: roleOf(element),
    name,
    tag: element.localName,
    inputType: element.tagName === "INPUT" ? inputType(element) : undefined,
    selectors,
    framePath: framePathOf(element.ownerDocument),
  };
}

/** The top URL, masked and scrubbed (again only when it or the typed values changed). */
function createMaskedTopUrl(top: Window, boundary: PrivacyBoundary): () => string {
  let maskedFor: { href: string; scrub: TypedValueScrubber; masked: string } | undefined;
  return () => {
    const href = top.location.href;
    const scrub = boundary.scrubber();
    if (maskedFor?.href !== href || maskedFor.scrub !== scrub) maskedFor = { href, scrub, masked: boundary.url(href) };
    return maskedFor.masked;
  };
}

/** The boundary's current scrubber as a function: the same function while the values stay the same. */
function createScrubberOf(boundary: PrivacyBoundary): () => (text: string) => string {
  const scrubFunctions = new WeakMap<TypedValueScrubber, (text: string) => string>();
  return () => {
    const current = boundary.scrubber();
    let scrub = scrubFunctions.get(current);
    if (scrub === undefined) {
      scrub = (text) => current.scrub(text);
      scrubFunctions.set(current, scrub);
    }
    return scrub;
  };
}

export function quoted(name: string, fallback?: string): string {
  if (!name) return fallback ?? "";
  return `'${cleanText(name, MAX_NAME_IN_LABEL)}'`;
}

/** Works across frames, where `instanceof Element` does not (each window has its own constructors). */
export function isElement(node: unknown): node is Element {
  return typeof node === "object" && node !== null && (node as Node).nodeType === 1;
}
