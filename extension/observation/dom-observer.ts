import type { DomEventKind, MaskedField } from "../../shared/learning/observed-action";
import { cleanText, inputType, roleOf, type Names } from "./accessible-name";
import type { ErrorGuard } from "./error-guard";
import { blockText, fieldHints, isTypedField, readFieldValue, textFieldOf, type FieldMasker } from "./field-masking";
import type { PrivacyBoundary } from "./privacy-boundary";
import type { TypedValueScrubber } from "../../shared/observation/typed-value-scrubber";
import { createPageIndex, type PageIndex, type Root } from "./page-index";
import { framePathOf, selectorsFor, type SelectorContext } from "./selectors";
import { isShadowRoot, mayHostShadowRoot } from "./shadow-roots";
import { createStateStyles } from "./state-styles";

/**
 * The browser_dom adapter's observers (issue #4): capture-phase listeners on the page, its open
 * shadow roots and its same-origin frames, one small handler per event source. Each handler turns
 * a user action into a `DomObservation`: a label written for a person, the target described by
 * role, accessible name and selectors, and — for fields — the value already masked. Typed values
 * are read here and handed only to the masker; noise (focus, hover, ordinary typing, untrusted
 * events a page script dispatched) is dropped here.
 *
 * The roots it observes are also indexed (page-index.ts): the snapshot and the target descriptions
 * read elements and names from there, and its change count tells whether the page moved at all.
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
  /** Already masked: the raw value never leaves this module. */
  maskedField: Promise<MaskedField> | undefined;
  /** The same mask at once, without a hash: what goes if the page is gone before `maskedField` settles (issue #35). */
  maskedNow: MaskedField | undefined;
  /** The top page's URL, masked. */
  pageUrl: string;
  /** The top page's title, with typed values cut out (at most 200 characters). */
  pageTitle: string;
  createdAt: string;
}

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

/** Ordinary editing shortcuts are typing, not commands: never recorded. */
const EDITING_KEYS = new Set(["a", "c", "v", "x", "y", "z", "arrowleft", "arrowright", "arrowup", "arrowdown", "backspace", "delete", "home", "end"]);
const MODIFIER_KEYS = new Set(["Control", "Meta", "Alt", "Shift", "AltGraph", "CapsLock", "Fn", "OS"]);
const INTERACTIVE_TAGS = new Set(["A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY", "LABEL", "OPTION"]);
const INTERACTIVE_ROLES = new Set([
  "button",
  "link",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "checkbox",
  "radio",
  "switch",
  "option",
  "treeitem",
  "combobox",
  "gridcell",
]);
const MAX_NAME_IN_LABEL = 100;

/** The Navigation API (Chrome 102+) is not in TypeScript's DOM library yet; only its events are used. */
type NavigationApi = EventTarget;

export function observeDom(options: DomObserverOptions): DomObserver {
  const { window: top, masker, guard, isOwnNode, isAllowedDocument, emit, boundary, shareTypedValues, emitInitialNavigation } = options;
  const controller = new AbortController();
  const { signal } = controller;
  /** Roots our listeners are on (once each, even if a shadow root leaves the page and comes back). */
  const listening = new WeakSet<Root>();
  const framesSeen = new WeakSet<Element>();
  /** A field's value when it got focus, to tell an edit from a focus-and-leave. Memory only. */
  const valueAtFocus = new WeakMap<Element, string>();
  /** Fields typed into since their last reported edit. */
  const dirty = new Set<Element>();
  /** Editable regions (no `change` event of their own) that carry our element-level `input` and `focusout` listeners. */
  const editableRoots = new WeakSet<Element>();
  /** A field's text just before the last key typed into it: what a page that clears the field on that key had been shown. Memory only. */
  const lastSeen = new WeakMap<Element, string>();
  /**
   * Code editors type into a hidden textarea and render the text elsewhere (CodeMirror, Ace,
   * Monaco): the region they render into, by its textarea, and the textarea by its region.
   */
  const editorRegions = new WeakMap<Element, Element>();
  const regionFields = new WeakMap<Element, Element>();
  /** Fields whose size was (or is being) checked once. */
  const editorChecks = new WeakSet<Element>();
  let lastUrl = top.location.href;

  /** The top URL, masked and scrubbed (again only when it or the typed values changed). */
  let maskedFor: { href: string; scrub: TypedValueScrubber; masked: string } | undefined;
  const maskedTopUrl = (): string => {
    const href = top.location.href;
    const scrub = boundary.scrubber();
    if (maskedFor?.href !== href || maskedFor.scrub !== scrub) maskedFor = { href, scrub, masked: boundary.url(href) };
    return maskedFor.masked;
  };

  /** Every listener inside the error guard (as `guard.wrap`, written for the one argument: it runs for every key press). */
  const listen = (target: EventTarget, type: string, handler: (event: Event) => void): void => {
    const listener = (event: Event): void => {
      try {
        handler(event);
      } catch (error) {
        guard.report(error);
      }
    };
    target.addEventListener(type, listener, { capture: true, passive: true, signal });
  };

  // Frames and shadow roots that arrive with added nodes are attached from the index's walk.
  const index: PageIndex = createPageIndex({
    onFrame: (frame) => attachFrame(frame),
    onShadowRoot: (root) => attachShadowRoot(root),
    isOwnNode: (node) => isOwnNode(node),
    guard,
  });
  const names: Names = index.names;
  const selectorContext: SelectorContext = {
    names,
    elements: (root, kind) => (index.hasRoot(root) ? index.elements(root, kind) : undefined),
    mayHoldEditable: () => index.mayHoldEditable(),
  };

  // A field's edit or choice may show or hide content through CSS alone (`:checked ~ .menu`, `:invalid + .error`).
  const stateStyles = createStateStyles();
  const stateChanged = (): void => {
    if (stateStyles.selectOnState(index.roots())) index.touch();
  };

  /** What a field holds: its value, and for a code editor's hidden textarea the text it renders. */
  const fieldValue = (field: Element): string => {
    const region = editorRegions.get(field);
    return region === undefined ? readFieldValue(field) : `${readFieldValue(field)}\n${blockText(region)}`;
  };

  boundary.setLiveValues(() => {
    const values: string[] = [];
    // Which listed fields hold typed text is remembered with their names (a `type` or `contenteditable` change forgets it).
    for (const root of index.roots()) {
      for (const field of index.elements(root, "fields")) if (names.memo(field, "typed-field", isTypedField)) values.push(fieldValue(field));
    }
    for (const field of dirty) {
      const seen = lastSeen.get(field);
      if (seen !== undefined) values.push(seen);
    }
    return values;
  });

  /** The session's values from now on include these: kept here, shared with the session's other pages. */
  const remember = (...values: (string | undefined)[]): void => {
    const added = boundary.remember(values.filter((value): value is string => value !== undefined));
    if (added.length > 0) shareTypedValues(added);
  };

  /** A field's edit is done: its value, and what it showed before the page cleared or rewrote it, are the session's from now on. */
  const rememberField = (field: Element, value: string): void => {
    const seen = lastSeen.get(field);
    remember(value, seen !== undefined && !value.includes(seen) ? seen : undefined);
  };

  /** The scrub function for the current scrubber: the same function while the values stay the same (snapshots compare it). */
  const scrubFunctions = new WeakMap<TypedValueScrubber, (text: string) => string>();
  const scrubber = (): ((text: string) => string) => {
    const current = boundary.scrubber();
    let scrub = scrubFunctions.get(current);
    if (scrub === undefined) {
      scrub = (text) => current.scrub(text);
      scrubFunctions.set(current, scrub);
    }
    return scrub;
  };

  const describe = (element: Element, scrub: (text: string) => string): TargetDescription => {
    index.sync();
    const raw = names.name(element);
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
  };

  const observe = (
    kind: DomEventKind,
    label: DomObservation["label"],
    target?: TargetDescription,
    masked?: { later: Promise<MaskedField>; now: MaskedField },
    scrub: (text: string) => string = scrubber(),
  ): void => {
    const pageTitle = cleanText(scrub(top.document.title), 200);
    emit({ kind, label, target, maskedField: masked?.later, maskedNow: masked?.now, pageUrl: maskedTopUrl(), pageTitle, createdAt: new Date().toISOString() });
  };

  // --- field edits: keystrokes merged into one change per edit, reported on change/blur/Enter ---
  /**
   * Reports a field's edit. `committed`: the browser's `change` (a user's edit by definition, also
   * one made without keys: a paste from the menu, autofill, a drop); otherwise only a field typed into.
   */
  const emitFill = (field: Element, committed = false): void => {
    if (!dirty.delete(field) && !committed) return;
    const value = fieldValue(field);
    rememberField(field, value);
    const previous = valueAtFocus.get(field);
    valueAtFocus.set(field, value);
    if (previous !== undefined && previous === value) return;
    stateChanged();
    const scrub = scrubber();
    const target = describe(field, scrub);
    const hints = fieldHints(field, names.name(field));
    observe("change", `Fill ${quoted(target.name, "the text field")}`, target, { later: masker.mask(value, hints), now: masker.maskNow(value, hints) }, scrub);
  };

  const emitChoice = (element: Element): void => {
    stateChanged();
    const scrub = scrubber();
    if (element.tagName === "SELECT") {
      const select = element as HTMLSelectElement;
      const chosen = scrub(cleanText([...select.selectedOptions].map((option) => option.label || option.text).join(", "), MAX_NAME_IN_LABEL));
      const target = describe(select, scrub);
      observe("select", `Select ${quoted(chosen, "nothing")}${target.name ? ` in ${quoted(target.name)}` : ""}`, target, undefined, scrub);
      return;
    }
    const input = element as HTMLInputElement;
    const type = inputType(input);
    const target = describe(input, scrub);
    if (type === "checkbox") {
      observe("change", `${input.checked ? "Check" : "Uncheck"} ${quoted(target.name, "the checkbox")}`, target, undefined, scrub);
    } else if (type === "radio") {
      const group = radioGroupName(input, scrub, names);
      observe("select", `Select ${quoted(target.name, "an option")}${group ? ` in ${quoted(group)}` : ""}`, target, undefined, scrub);
    } else if (type === "file") {
      // File names are personal: only how many were chosen is kept.
      const count = input.files?.length ?? 0;
      const files = count === 1 ? "1 file" : `${count} files`;
      const masked: MaskedField = { masked: true, reason: `file names are not recorded (${files})` };
      const label = count === 0 ? `Clear the files of ${quoted(target.name, "the file field")}` : `Choose ${files} for ${quoted(target.name, "the file field")}`;
      observe("file_select", label, target, { later: Promise.resolve(masked), now: masked }, scrub);
    }
  };

  /**
   * `change` reports an edited text field as it is left (or on Enter), and a choice at once; it does
   * not cross shadow boundaries, so every attached shadow root listens too (roots are attached on
   * the focus, click or key that precedes any change inside them). No listener runs per keystroke
   * but `keydown`: that is where typing is noticed.
   */
  const onChange = (event: Event): void => {
    const target = startOf(event);
    if (target === undefined) {
      // A page script's change to a checkbox still shows or hides what CSS ties to it.
      if (isCheckable(event.composedPath()[0])) stateChanged();
      return;
    }
    const field = fieldOf(target);
    if (field !== undefined) {
      emitFill(field, true);
      return;
    }
    if (target.tagName === "SELECT" || (target.tagName === "INPUT" && ["checkbox", "radio", "file"].includes(inputType(target)))) emitChoice(target);
  };

  const onFocusIn = (event: Event): void => {
    // The page may have just made a region editable (in its own click handler, after ours).
    index.sync();
    const target = startOf(event);
    const field = target && fieldOf(target);
    if (field === undefined) return;
    if ((field.tagName === "TEXTAREA" || field.tagName === "INPUT") && !editorRegions.has(field)) findEditorRegion(field);
    if (!dirty.has(field)) valueAtFocus.set(field, fieldValue(field));
    // An editable region has no `change`: its edits are noticed and reported by listeners of its own.
    if (field.tagName !== "INPUT" && field.tagName !== "TEXTAREA" && !editableRoots.has(field)) {
      editableRoots.add(field);
      listen(field, "input", onEditableInput);
      listen(field, "focusout", onEditableFocusOut);
    }
  };

  /**
   * A field left with an edit `change` did not report: formatters that take keys and set `.value`
   * themselves (phone, card, date masks) leave no `change` behind. Chromium fires `change` first,
   * so an edit it reported is not dirty any more.
   */
  const onFocusOut = (event: Event): void => {
    const target = startOf(event);
    if (target === undefined || (target.tagName !== "INPUT" && target.tagName !== "TEXTAREA")) return;
    const field = fieldOf(target);
    if (field !== undefined && dirty.has(field)) emitFill(field);
  };

  const onEditableInput = (event: Event): void => {
    const target = startOf(event);
    const field = target && textFieldOf(target);
    if (field !== undefined) dirty.add(field);
  };

  const onEditableFocusOut = (event: Event): void => {
    const target = startOf(event);
    const field = target && textFieldOf(target);
    // Focus moving inside the region is not leaving it.
    const next = (event as FocusEvent).relatedTarget;
    if (field !== undefined && !(isElement(next) && field.contains(next))) emitFill(field);
  };

  // --- clicks on things a person would name; focus clicks into fields and choice clicks are covered elsewhere ---
  const onClick = (event: Event): void => {
    const start = startOf(event);
    if (start === undefined || fieldOf(start) !== undefined || (index.mayHoldEditable() && (start as HTMLElement).isContentEditable)) return;
    // A click into a code editor's rendered text focuses its hidden textarea: not a step.
    if (inEditorRegion(start)) return;
    // A field typed into and not left (focus stayed there: a button that keeps it) is edited before the click acts.
    for (const field of [...dirty]) emitFill(field);
    const actionable = event.composedPath().find((node): node is Element => isElement(node) && isInteractive(node));
    if (actionable !== undefined) {
      if (coveredByFieldEvents(actionable)) return;
      // Enter in a text field submits its form through a click the browser dispatches on the
      // default button (trusted, but detail 0, with focus still in the field): not a user's click.
      const focused = actionable.ownerDocument.activeElement;
      const implicitSubmit =
        (event as MouseEvent).detail === 0 &&
        focused !== null &&
        focused !== actionable &&
        fieldOf(focused) !== undefined &&
        (actionable as HTMLButtonElement).form !== undefined &&
        (actionable as HTMLButtonElement).form === (focused as HTMLInputElement).form;
      if (implicitSubmit) return;
      const scrub = scrubber();
      const target = describe(actionable, scrub);
      observe("click", `Click ${quoted(target.name, `the ${target.role === "generic" ? target.tag : target.role}`)}`, target, undefined, scrub);
      return;
    }
    if (start.tagName === "HTML" || start.tagName === "BODY") return;
    const scrub = scrubber();
    const target = describe(start, scrub);
    // An unnamed, non-interactive spot (a backdrop, a margin) is not a step a person would name.
    if (target.name) observe("click", `Click ${quoted(target.name)}`, target, undefined, scrub);
  };

  const onSubmit = (event: Event): void => {
    const target = startOf(event);
    if (target === undefined || target.tagName !== "FORM") return;
    const form = target as HTMLFormElement;
    for (const field of [...dirty]) if (form.contains(field)) emitFill(field);
    const scrub = scrubber();
    const description = describe(form, scrub);
    const name = description.name || scrub(formName(form, (event as SubmitEvent).submitter, names));
    observe("submit", `Submit ${quoted(name, "the form")}`, { ...description, name }, undefined, scrub);
  };

  // --- keys: Enter, Escape and modifier shortcuts only; ordinary typing never ---
  const onKeyDown = (event: Event): void => {
    const keyboard = event as KeyboardEvent;
    // Shadow roots on the way are attached: a key may act inside one whose `change` or `submit` follows.
    const target = startOf(event);
    if (target === undefined) return;
    const field = fieldOf(target);
    if (field !== undefined && editsText(keyboard, field)) {
      dirty.add(field);
      lastSeen.set(field, fieldValue(field));
      return;
    }
    if (keyboard.repeat || keyboard.isComposing) return;
    const key = shortcutName(keyboard, target);
    if (key === undefined) return;
    // The field's edit goes first, even one made without keys (a paste, autofill): a replay fills, then presses.
    if (field !== undefined) emitFill(field, true);
    const onPage = target.tagName === "BODY" || target.tagName === "HTML";
    const scrub = scrubber();
    const description = onPage ? undefined : describe(field ?? target, scrub);
    const where = description?.name ? ` in ${quoted(description.name)}` : "";
    observe("keydown", `Press ${key}${where}`, description, undefined, scrub);
  };

  /**
   * A textarea or input drawn nowhere (a few pixels, transparent) takes the keys of a code editor
   * that renders the text in a region around it: that region's text is what was typed.
   */
  const findEditorRegion = (field: Element): void => {
    // Sizes are read in a ResizeObserver callback, after the browser's own layout: asking at focus
    // would force a layout of the whole page into the user's click.
    if (editorChecks.has(field)) return;
    editorChecks.add(field);
    const view = field.ownerDocument.defaultView;
    if (view === null || typeof view.ResizeObserver !== "function") return;
    const sizes = new view.ResizeObserver(
      guard.wrap(() => {
        sizes.disconnect();
        const box = field.getBoundingClientRect();
        const style = view.getComputedStyle(field);
        const hidden = box.width <= 4 || box.height <= 4 || style.opacity === "0" || style.clipPath === "inset(50%)";
        if (!hidden) return;
        let region = field.parentElement;
        for (let depth = 0; region !== null && depth < 6; depth += 1, region = region.parentElement) {
          const area = region.getBoundingClientRect();
          if (area.width >= 40 && area.height >= 14) {
            editorRegions.set(field, region);
            regionFields.set(region, field);
            return;
          }
        }
      }),
    );
    sizes.observe(field);
  };

  const inEditorRegion = (element: Element): boolean => {
    for (let current: Element | null = element; current !== null; current = current.parentElement) if (regionFields.has(current)) return true;
    return false;
  };

  /**
   * The element a trusted event started at, inside open shadow roots too (their roots get attached
   * on the way), or undefined for a page script's event or one from our own indicator. Only an
   * event retargeted at a shadow host needs its composed path (each DOM call counts on a keystroke).
   */
  const startOf = (event: Event): Element | undefined => {
    if (!event.isTrusted) return undefined;
    const target = event.target;
    if (!isElement(target) || isOwnNode(target)) return undefined;
    if (!mayHostShadowRoot(target) || target.shadowRoot === null) return target;
    const path = event.composedPath();
    attachShadowRootsOnPath(path);
    return isElement(path[0]) ? path[0] : undefined;
  };

  /** `textFieldOf`, without asking `isContentEditable` (a style update) where nothing can be editable. */
  const fieldOf = (element: Element): ReturnType<typeof textFieldOf> => {
    if (element.tagName === "INPUT" || element.tagName === "TEXTAREA" || index.mayHoldEditable()) return textFieldOf(element);
    return undefined;
  };

  /** A popover opened or closed (no attribute changes for it), or a <details>: what a snapshot sees changed. */
  const onToggle = (): void => index.touch();

  // --- roots: documents (all sources), open shadow roots (the events that do not cross them), same-origin frames ---
  const attachShadowRoot = (root: ShadowRoot): void => {
    if (index.hasRoot(root) || isOwnNode(root.host)) return;
    if (!listening.has(root)) {
      listening.add(root);
      listen(root, "change", onChange);
      listen(root, "submit", onSubmit);
      listen(root, "toggle", onToggle);
    }
    index.addRoot(root);
  };

  const attachShadowRootsOnPath = (path: EventTarget[]): void => {
    for (const node of path) if (isShadowRoot(node as Node)) attachShadowRoot(node as ShadowRoot);
  };

  const attachFrame = (frame: Element): void => {
    const load = (): void => {
      let document: Document | null = null;
      try {
        document = (frame as HTMLIFrameElement).contentDocument;
      } catch {
        document = null; // cross-origin: not ours to observe
      }
      if (document !== null) attachDocument(document);
      // A frame that loaded another page (cross-origin too, which no root shows) changed what a snapshot reads.
      else index.touch();
    };
    if (!framesSeen.has(frame)) {
      framesSeen.add(frame);
      listen(frame, "load", load);
    }
    load();
  };

  const attachDocument = (document: Document): void => {
    if (index.hasRoot(document) || !isAllowedDocument(document)) return;
    if (!listening.has(document)) {
      listening.add(document);
      listen(document, "click", onClick);
      listen(document, "change", onChange);
      listen(document, "focusin", onFocusIn);
      listen(document, "focusout", onFocusOut);
      listen(document, "submit", onSubmit);
      listen(document, "keydown", onKeyDown);
      listen(document, "toggle", onToggle);
    }
    // Indexing walks the document once: its frames and open shadow roots are attached from there.
    index.addRoot(document);
  };

  // --- navigation: the Navigation API sees pushState/replaceState from the isolated world; popstate and hashchange back it up ---
  const onUrlMaybeChanged = (): void => {
    const href = top.location.href;
    if (href === lastUrl) return;
    const hashOnly = withoutHash(href) === withoutHash(lastUrl);
    lastUrl = href;
    const hash = hashOnly ? new URL(boundary.url(href) || "about:blank").hash.slice(0, 60) : "";
    observe("navigation", navigationLabel(top, hash, boundary), undefined);
  };

  attachDocument(top.document);
  const navigation = (top as Window & { navigation?: NavigationApi }).navigation;
  if (navigation !== undefined) {
    listen(navigation, "currententrychange", onUrlMaybeChanged);
  } else {
    // No Navigation API (older browsers): a cheap poll catches pushState/replaceState without a main-world hook.
    const timer = top.setInterval(guard.wrap(onUrlMaybeChanged), 500);
    signal.addEventListener("abort", () => top.clearInterval(timer));
  }
  listen(top, "popstate", onUrlMaybeChanged);
  listen(top, "hashchange", onUrlMaybeChanged);
  // Media queries may show or hide content at another size.
  listen(top, "resize", () => index.touch());
  if (emitInitialNavigation) observe("navigation", navigationLabel(top, "", boundary), undefined);

  return {
    flushFields() {
      for (const field of [...dirty]) guard.run(() => emitFill(field));
      // The field still focused may hold an edit made without keys (a pasted code the page submits).
      for (const root of index.roots()) {
        const active = root.activeElement;
        const field = active === null ? undefined : fieldOf(active);
        if (field !== undefined) guard.run(() => emitFill(field, true));
      }
    },
    editing: () => dirty.size > 0,
    roots: () => index.roots(),
    index,
    scrubber,
    get lastUrl() {
      return lastUrl;
    },
    reopened() {
      lastUrl = top.location.href;
      observe("navigation", navigationLabel(top, "", boundary), undefined);
    },
    stop() {
      boundary.setLiveValues(undefined);
      controller.abort();
      index.disconnect();
      dirty.clear();
    },
  };
}

/** "Open 'Orders'": the page's title once it has settled (scrubbed, as every title), else its masked path. */
function navigationLabel(top: Window, hash: string, boundary: PrivacyBoundary): (settledTitle: string) => string {
  return (settledTitle) => {
    const title = cleanText(boundary.text(settledTitle), MAX_NAME_IN_LABEL);
    const path = (() => {
      try {
        return new URL(boundary.url(top.location.href)).pathname;
      } catch {
        return "";
      }
    })();
    const page = quoted(title || path, "the page");
    return hash ? `Open ${page} at ${quoted(hash)}` : `Open ${page}`;
  };
}

function withoutHash(url: string): string {
  const index = url.indexOf("#");
  return index < 0 ? url : url.slice(0, index);
}

export function quoted(name: string, fallback?: string): string {
  if (!name) return fallback ?? "";
  return `'${cleanText(name, MAX_NAME_IN_LABEL)}'`;
}

/** Works across frames, where `instanceof Element` does not (each window has its own constructors). */
function isElement(node: unknown): node is Element {
  return typeof node === "object" && node !== null && (node as Node).nodeType === 1;
}

function isInteractive(element: Element): boolean {
  if (INTERACTIVE_TAGS.has(element.tagName)) return element.tagName !== "A" || element.hasAttribute("href");
  const role = element.getAttribute("role");
  if (role !== null && INTERACTIVE_ROLES.has(role.trim().toLowerCase())) return true;
  return element.hasAttribute("onclick");
}

function isCheckable(node: unknown): boolean {
  return isElement(node) && node.tagName === "INPUT" && ["checkbox", "radio"].includes(inputType(node));
}

/**
 * Whether a key press edits the text of the field it is pressed in: printable keys (with Ctrl or
 * Meta only paste, cut, undo and redo), deletion, composition, Enter in a multi-line field. Keys
 * that move or leave (Tab, arrows) do not, so a field a page script cleared is not taken for typing.
 */
function editsText(event: KeyboardEvent, field: Element): boolean {
  const { key } = event;
  if (event.isComposing || key === "Process" || key === "Unidentified" || key === "Dead" || key === "Backspace" || key === "Delete") return true;
  if (key === "Enter") return field.tagName !== "INPUT" && !event.ctrlKey && !event.metaKey;
  if (key.length !== 1) return false;
  return !(event.ctrlKey || event.metaKey) || ["v", "x", "z", "y"].includes(key.toLowerCase());
}

/** Clicks whose effect is reported by the field events (a focus click, a toggle, a file dialog, a select). */
function coveredByFieldEvents(element: Element): boolean {
  const control = element.tagName === "LABEL" ? (element as HTMLLabelElement).control : element;
  if (control === null) return false;
  if (control.tagName === "SELECT" || control.tagName === "OPTION" || control.tagName === "TEXTAREA") return true;
  if (control.tagName !== "INPUT") return false;
  return ["checkbox", "radio", "file"].includes(inputType(control)) || textFieldOf(control) !== undefined;
}

function radioGroupName(input: HTMLInputElement, scrub: (text: string) => string, names: Names): string {
  const group = input.closest("fieldset, [role=radiogroup]");
  return group ? scrub(names.name(group)) : "";
}

/** A form's name for a person: its own name, a heading or legend inside or around it, or its submit button. */
function formName(form: HTMLFormElement, submitter: HTMLElement | null | undefined, names: Names): string {
  const inside = form.querySelector("h1, h2, h3, h4, h5, h6, legend");
  if (inside) return cleanText(names.text(inside));
  const around = form.closest("section, article, dialog, [role=dialog], main")?.querySelector("h1, h2, h3, h4, h5, h6");
  if (around) return cleanText(names.text(around));
  return submitter ? names.name(submitter) : "";
}

/**
 * "Enter", "Escape", "Ctrl+S", "Ctrl+Shift+P" — or undefined for anything that is typing: a
 * printable key without Ctrl/Meta, AltGr combinations, editing shortcuts, Enter in a multi-line field.
 */
function shortcutName(event: KeyboardEvent, target: Element): string | undefined {
  const { key } = event;
  if (MODIFIER_KEYS.has(key) || event.getModifierState?.("AltGraph")) return undefined;
  const command = event.ctrlKey || event.metaKey;
  if (!command) {
    if (key === "Escape") return "Escape";
    if (key !== "Enter" || event.altKey) return undefined;
    const multiLine = target.tagName === "TEXTAREA" || (target as HTMLElement).isContentEditable;
    return multiLine ? undefined : event.shiftKey ? "Shift+Enter" : "Enter";
  }
  if (EDITING_KEYS.has(key.toLowerCase()) && !event.altKey) return undefined;
  const code = /^(?:Key|Digit)([A-Z0-9])$/.exec(event.code)?.[1];
  const name = code ?? (key.length === 1 ? key.toUpperCase() : key);
  const parts = [event.ctrlKey ? "Ctrl" : "", event.altKey ? "Alt" : "", event.shiftKey ? "Shift" : "", event.metaKey ? "Meta" : "", name];
  return parts.filter(Boolean).join("+");
}
