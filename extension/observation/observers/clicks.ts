import { inputType } from "../names/accessible-name";
import { textFieldOf } from "../privacy/field-masking";
import { inEditorRegion, reportFieldEdit } from "./field-edits";
import { isElement, quoted, type ObserverState } from "./observer-state";

/**
 * Clicks on things a person would name. Focus clicks into fields and clicks on choices are the
 * field observer's (their `change` says more); the click the browser makes for an Enter in a form
 * is the keyboard's. A field typed into and not left is reported before the click.
 */

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

export function observeClicks(state: ObserverState): () => void {
  const controller = new AbortController();
  const { index } = state;

  const onClick = (event: Event): void => {
    const start = state.startOf(event);
    if (start === undefined || state.fieldOf(start) !== undefined || (index.mayHoldEditable() && (start as HTMLElement).isContentEditable)) return;
    // A click into a code editor's rendered text focuses its hidden textarea: not a step.
    if (inEditorRegion(state, start)) return;
    // A field typed into and not left (focus stayed there: a button that keeps it) is edited before the click acts.
    for (const field of [...state.fields.dirty]) reportFieldEdit(state, field);
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
        state.fieldOf(focused) !== undefined &&
        (actionable as HTMLButtonElement).form !== undefined &&
        (actionable as HTMLButtonElement).form === (focused as HTMLInputElement).form;
      if (implicitSubmit) return;
      const scrub = state.scrubber();
      const target = state.describe(actionable, scrub);
      state.observe("click", `Click ${quoted(target.name, `the ${target.role === "generic" ? target.tag : target.role}`)}`, target, undefined, scrub);
      return;
    }
    if (start.tagName === "HTML" || start.tagName === "BODY") return;
    const scrub = state.scrubber();
    const target = state.describe(start, scrub);
    // An unnamed, non-interactive spot (a backdrop, a margin) is not a step a person would name.
    if (target.name) state.observe("click", `Click ${quoted(target.name)}`, target, undefined, scrub);
  };

  state.onRoot((root, kind) => {
    if (kind === "document") state.listen(root, "click", onClick, controller.signal);
  });
  return () => controller.abort();
}

function isInteractive(element: Element): boolean {
  if (INTERACTIVE_TAGS.has(element.tagName)) return element.tagName !== "A" || element.hasAttribute("href");
  const role = element.getAttribute("role");
  if (role !== null && INTERACTIVE_ROLES.has(role.trim().toLowerCase())) return true;
  return element.hasAttribute("onclick");
}

/** Clicks whose effect is reported by the field events (a focus click, a toggle, a file dialog, a select). */
function coveredByFieldEvents(element: Element): boolean {
  const control = element.tagName === "LABEL" ? (element as HTMLLabelElement).control : element;
  if (control === null) return false;
  if (control.tagName === "SELECT" || control.tagName === "OPTION" || control.tagName === "TEXTAREA") return true;
  if (control.tagName !== "INPUT") return false;
  return ["checkbox", "radio", "file"].includes(inputType(control)) || textFieldOf(control) !== undefined;
}
