import type { MaskedField } from "../../../shared/learning/observed-actions/observed-action";
import { cleanText, inputType } from "../names/accessible-name";
import type { Names } from "../names/name-cache";
import { fieldHints, textFieldOf } from "../privacy/field-masking";
import { isElement, MAX_NAME_IN_LABEL, quoted, type ObserverState } from "./observer-state";

/**
 * Field changes: keystrokes merged into one "Fill" per edit, reported on `change`, on leaving the
 * field, or before the action that follows (a click, an Enter, a submit: those observers call
 * `reportFieldEdit`); choices (a select, a checkbox, a radio, a file) at once. The value is read
 * here and handed only to the masker. Typing itself is noticed by the keyboard observer (`dirty`).
 */

/**
 * Reports a field's edit. `committed`: the browser's `change` (a user's edit by definition, also
 * one made without keys: a paste from the menu, autofill, a drop); otherwise only a field typed into.
 */
export function reportFieldEdit(state: ObserverState, field: Element, committed = false): void {
  const { fields } = state;
  if (!fields.dirty.delete(field) && !committed) return;
  const value = state.fieldValue(field);
  state.rememberField(field, value);
  const previous = fields.valueAtFocus.get(field);
  fields.valueAtFocus.set(field, value);
  if (previous !== undefined && previous === value) return;
  state.stateChanged();
  const scrub = state.scrubber();
  const target = state.describe(field, scrub);
  const hints = fieldHints(field, state.names.name(field));
  // Masked in idle time, before the event can leave (held-events.ts), under the session's mode and key now.
  const masker = state.masker.pin();
  state.observe(
    "change",
    `Fill ${quoted(target.name, "the text field")}`,
    target,
    { later: () => masker.mask(value, hints), now: () => masker.maskNow(value, hints) },
    scrub,
  );
}

/** Emits the pending edit of every field typed into but not yet left, and of the focused field (an edit made without keys). */
export function reportPendingEdits(state: ObserverState): void {
  for (const field of [...state.fields.dirty]) state.guard.run(() => reportFieldEdit(state, field));
  // The field still focused may hold an edit made without keys (a pasted code the page submits).
  for (const root of state.index.roots()) {
    const active = root.activeElement;
    const field = active === null ? undefined : state.fieldOf(active);
    if (field !== undefined) state.guard.run(() => reportFieldEdit(state, field, true));
  }
}

/** Whether an element is inside a code editor's rendered text (clicks there focus its hidden textarea). */
export function inEditorRegion(state: ObserverState, element: Element): boolean {
  for (let current: Element | null = element; current !== null; current = current.parentElement) if (state.fields.regionFields.has(current)) return true;
  return false;
}

export function observeFieldEdits(state: ObserverState): () => void {
  const { fields, index } = state;
  const controller = new AbortController();
  const { signal } = controller;
  /** Editable regions (no `change` event of their own) that carry our element-level `input` and `focusout` listeners. */
  const editableRoots = new WeakSet<Element>();
  /** Fields whose size was (or is being) checked once. */
  const editorChecks = new WeakSet<Element>();

  const onFocusIn = (event: Event): void => {
    // The page may have just made a region editable (in its own click handler, after ours).
    index.sync();
    const target = state.startOf(event);
    const field = target && state.fieldOf(target);
    if (field === undefined) return;
    if ((field.tagName === "TEXTAREA" || field.tagName === "INPUT") && !fields.editorRegions.has(field)) findEditorRegion(state, field, editorChecks);
    if (!fields.dirty.has(field)) fields.valueAtFocus.set(field, state.fieldValue(field));
    // An editable region has no `change`: its edits are noticed and reported by listeners of its own.
    if (field.tagName !== "INPUT" && field.tagName !== "TEXTAREA" && !editableRoots.has(field)) {
      editableRoots.add(field);
      state.listen(field, "input", onEditableInput, signal);
      state.listen(field, "focusout", onEditableFocusOut, signal);
    }
  };

  const onEditableInput = (event: Event): void => {
    const target = state.startOf(event);
    const field = target && textFieldOf(target);
    if (field !== undefined) fields.dirty.add(field);
  };

  const onEditableFocusOut = (event: Event): void => {
    const target = state.startOf(event);
    const field = target && textFieldOf(target);
    // Focus moving inside the region is not leaving it.
    const next = (event as FocusEvent).relatedTarget;
    if (field !== undefined && !(isElement(next) && field.contains(next))) reportFieldEdit(state, field);
  };

  state.onRoot((root, kind) => {
    state.listen(root, "change", (event) => onFieldChange(state, event), signal);
    if (kind === "document") {
      state.listen(root, "focusin", onFocusIn, signal);
      state.listen(root, "focusout", (event) => onFieldFocusOut(state, event), signal);
    }
  });

  return () => {
    controller.abort();
    fields.dirty.clear();
  };
}

/**
 * `change` reports an edited text field as it is left (or on Enter), and a choice at once; it does
 * not cross shadow boundaries, so every attached shadow root listens too (roots are attached on
 * the focus, click or key that precedes any change inside them). No listener runs per keystroke
 * but `keydown`: that is where typing is noticed.
 */
function onFieldChange(state: ObserverState, event: Event): void {
  const target = state.startOf(event);
  if (target === undefined) {
    // A page script's change to a checkbox still shows or hides what CSS ties to it.
    if (isCheckable(event.composedPath()[0])) state.stateChanged();
    return;
  }
  const field = state.fieldOf(target);
  if (field !== undefined) {
    reportFieldEdit(state, field, true);
    return;
  }
  if (target.tagName === "SELECT" || (target.tagName === "INPUT" && ["checkbox", "radio", "file"].includes(inputType(target)))) reportChoice(state, target);
}

/**
 * A field left with an edit `change` did not report: formatters that take keys and set `.value`
 * themselves (phone, card, date masks) leave no `change` behind. Chromium fires `change` first,
 * so an edit it reported is not dirty any more.
 */
function onFieldFocusOut(state: ObserverState, event: Event): void {
  const target = state.startOf(event);
  if (target === undefined || (target.tagName !== "INPUT" && target.tagName !== "TEXTAREA")) return;
  const field = state.fieldOf(target);
  if (field !== undefined && state.fields.dirty.has(field)) reportFieldEdit(state, field);
}

/** A choice (a select, a checkbox, a radio, a file), reported at once. */
function reportChoice(state: ObserverState, element: Element): void {
  state.stateChanged();
  const scrub = state.scrubber();
  if (element.tagName === "SELECT") {
    const select = element as HTMLSelectElement;
    const chosen = scrub(cleanText([...select.selectedOptions].map((option) => option.label || option.text).join(", "), MAX_NAME_IN_LABEL));
    const target = state.describe(select, scrub);
    state.observe("select", `Select ${quoted(chosen, "nothing")}${target.name ? ` in ${quoted(target.name)}` : ""}`, target, undefined, scrub);
    return;
  }
  const input = element as HTMLInputElement;
  const type = inputType(input);
  const target = state.describe(input, scrub);
  if (type === "checkbox") {
    state.observe("change", `${input.checked ? "Check" : "Uncheck"} ${quoted(target.name, "the checkbox")}`, target, undefined, scrub);
  } else if (type === "radio") {
    const group = radioGroupName(input, scrub, state.names);
    state.observe("select", `Select ${quoted(target.name, "an option")}${group ? ` in ${quoted(group)}` : ""}`, target, undefined, scrub);
  } else if (type === "file") {
    // File names are personal: only how many were chosen is kept.
    const count = input.files?.length ?? 0;
    const files = count === 1 ? "1 file" : `${count} files`;
    const masked: MaskedField = { masked: true, reason: `file names are not recorded (${files})` };
    const label = count === 0 ? `Clear the files of ${quoted(target.name, "the file field")}` : `Choose ${files} for ${quoted(target.name, "the file field")}`;
    state.observe("file_select", label, target, { later: () => Promise.resolve(masked), now: () => masked }, scrub);
  }
}

/**
 * A textarea or input drawn nowhere (a few pixels, transparent) takes the keys of a code editor
 * that renders the text in a region around it: that region's text is what was typed.
 */
function findEditorRegion(state: ObserverState, field: Element, editorChecks: WeakSet<Element>): void {
  // Sizes are read in a ResizeObserver callback, after the browser's own layout: asking at focus
  // would force a layout of the whole page into the user's click.
  if (editorChecks.has(field)) return;
  editorChecks.add(field);
  const view = field.ownerDocument.defaultView;
  if (view === null || typeof view.ResizeObserver !== "function") return;
  const sizes = new view.ResizeObserver(
    state.guard.wrap(() => {
      sizes.disconnect();
      const box = field.getBoundingClientRect();
      const style = view.getComputedStyle(field);
      const hidden = box.width <= 4 || box.height <= 4 || style.opacity === "0" || style.clipPath === "inset(50%)";
      if (!hidden) return;
      let region = field.parentElement;
      for (let depth = 0; region !== null && depth < 6; depth += 1, region = region.parentElement) {
        const area = region.getBoundingClientRect();
        if (area.width >= 40 && area.height >= 14) {
          state.fields.editorRegions.set(field, region);
          state.fields.regionFields.set(region, field);
          return;
        }
      }
    }),
  );
  sizes.observe(field);
}

function isCheckable(node: unknown): boolean {
  return isElement(node) && node.tagName === "INPUT" && ["checkbox", "radio"].includes(inputType(node));
}

function radioGroupName(input: HTMLInputElement, scrub: (text: string) => string, names: Names): string {
  const group = input.closest("fieldset, [role=radiogroup]");
  return group ? scrub(names.name(group)) : "";
}
