import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { cleanText, inputType } from "../names/accessible-name";
import type { Names } from "../names/name-cache";
import { textFieldOf } from "../privacy/field-masking";
import { LIMITS, NAME_MAX, optional, type PartsRead } from "./snapshot-parts";
import { firstFollowing } from "./snapshot-source";

/** What a form's entry is read from, before typed values are cut out: remembered per form until something in it changes. */
interface FormFacts {
  name: string;
  heading: string;
  fields: { label: string; type: string; required: boolean }[];
}

/** Forms in tree order with their fields, then the fields outside any form (common in SPAs) as one unnamed form. */
export function describeForms({ roots, source, names, clean }: PartsRead): PageSnapshot["forms"] {
  const forms: PageSnapshot["forms"] = [];
  const loose: Element[] = [];
  for (const root of roots) {
    // Runs of the tree-ordered list are found by tree position, which only connected elements have.
    const fields = source.elements(root, "fields").filter((field) => field.isConnected);
    for (const form of source.elements(root, "forms")) {
      if (forms.length >= LIMITS.forms) break;
      if (!form.isConnected) continue;
      // Its fields are its descendants: one run of the tree-ordered list.
      const facts = names.memo(form, "snapshot-form", (): FormFacts => {
        const own: FormFacts["fields"] = [];
        for (let index = firstFollowing(fields, form); index < fields.length && form.contains(fields[index]!) && own.length < LIMITS.fields; index += 1) {
          if (isField(fields[index]!)) own.push(fieldFacts(fields[index]!, names));
        }
        return { name: names.name(form), heading: formHeading(form, names), fields: own };
      });
      const name = clean(facts.name) || clean(facts.heading);
      forms.push(optional({ name, fields: facts.fields.map((field) => optional({ label: clean(field.label), type: field.type, required: field.required })) }));
    }
    if (forms.length >= LIMITS.forms) continue; // the unnamed form would be cut
    for (let index = 0; index < fields.length && loose.length < LIMITS.fields; index += 1) {
      const field = fields[index]!;
      if (names.memo(field, "loose-field", (element) => isField(element) && element.closest("form") === null)) loose.push(field);
    }
  }
  if (loose.length > 0 && forms.length < LIMITS.forms) {
    forms.push({
      fields: loose
        .map((field) => fieldFacts(field, names))
        .map((field) => optional({ label: clean(field.label), type: field.type, required: field.required })),
    });
  }
  return forms;
}

function fieldFacts(field: Element, names: Names): FormFacts["fields"][number] {
  const type =
    field.tagName === "INPUT" ? inputType(field) : field.tagName === "SELECT" ? "select" : field.tagName === "TEXTAREA" ? "textarea" : "contenteditable";
  const required = (field as HTMLInputElement).required === true || field.getAttribute("aria-required") === "true";
  return { label: names.name(field), type: type.slice(0, 40), required };
}

function isField(element: Element): boolean {
  if (element.tagName === "INPUT") return !["hidden", "submit", "button", "reset", "image"].includes(inputType(element));
  if (element.tagName === "SELECT" || element.tagName === "TEXTAREA") return true;
  // Only the root of an editable region is a field; its inside is typed content.
  return textFieldOf(element) === element;
}

function formHeading(form: Element, names: Names): string {
  const heading = form.querySelector("h1, h2, h3, h4, h5, h6, legend");
  return heading ? cleanText(names.text(heading), NAME_MAX) : "";
}
