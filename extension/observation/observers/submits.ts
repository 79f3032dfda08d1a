import { cleanText } from "../names/accessible-name";
import type { Names } from "../names/name-cache";
import { reportFieldEdit } from "./field-edits";
import { quoted, type ObserverState } from "./observer-state";

/**
 * Form submits (also inside open shadow roots, which `submit` does not leave): the form's fields
 * typed into and not left are reported first, then "Submit '<form>'". A submit that navigates is
 * delivered before the page goes (content-capture.ts, observers/navigation.ts).
 */
export function observeSubmits(state: ObserverState): () => void {
  const controller = new AbortController();

  const onSubmit = (event: Event): void => {
    const target = state.startOf(event);
    if (target === undefined || target.tagName !== "FORM") return;
    const form = target as HTMLFormElement;
    for (const field of [...state.fields.dirty]) if (form.contains(field)) reportFieldEdit(state, field);
    const scrub = state.scrubber();
    const description = state.describe(form, scrub);
    const name = description.name || scrub(formName(form, (event as SubmitEvent).submitter, state.names));
    state.observe("submit", `Submit ${quoted(name, "the form")}`, { ...description, name }, undefined, scrub);
  };

  state.onRoot((root) => state.listen(root, "submit", onSubmit, controller.signal));
  return () => controller.abort();
}

/** A form's name for a person: its own name, a heading or legend inside or around it, or its submit button. */
function formName(form: HTMLFormElement, submitter: HTMLElement | null | undefined, names: Names): string {
  const inside = form.querySelector("h1, h2, h3, h4, h5, h6, legend");
  if (inside) return cleanText(names.text(inside));
  const around = form.closest("section, article, dialog, [role=dialog], main")?.querySelector("h1, h2, h3, h4, h5, h6");
  if (around) return cleanText(names.text(around));
  return submitter ? names.name(submitter) : "";
}
