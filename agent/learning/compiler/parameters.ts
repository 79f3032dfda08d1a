import type { NormalizedStep } from "./normalize-trace";
import type { SkillParameter } from "../../../shared/execution/checkpoint-plan";

const TYPE_HINTS: Record<string, SkillParameter["type_hint"]> = {
  email: "email",
  tel: "phone",
  number: "number",
  date: "date",
  "datetime-local": "date",
  month: "date",
  url: "url",
  password: "secret",
  file: "file",
};

export function slugify(text: string, max = 40): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, max)
    .replace(/_+$/, "");
}

/** Why a field filled several times gives numbered parameters (said in SKILL.md's Inputs). */
export const NUMBERED_REASON =
  "one input per entry, numbered in the order they were entered: each entry is its own step of the recorded flow and its own checkpoint, so a run can be checked item by item";

const fieldKey = (step: NormalizedStep) => `${step.page_url ?? ""}|${step.target_name ?? ""}|${JSON.stringify(step.selectors[0] ?? [])}`;

/** A field's label as a noun for its entries ("New todo input" → "New todo"). */
function entryNoun(label: string): string {
  const trimmed = label
    .replace(/[?:*]+$/g, "")
    .replace(/\b(input|field|text ?box)\b/gi, "")
    .replace(/\s+/g, " ")
    .trim();
  return trimmed.length >= 2 ? trimmed : label;
}

/** What a field without a usable name holds, by its kind: a parameter named `search` or `email`, never `f` or `value`. */
const KIND_NOUNS: Record<string, string> = {
  searchbox: "Search",
  email: "Email",
  tel: "Phone",
  url: "Address",
  number: "Number",
  date: "Date",
  password: "Password",
  search: "Search",
};

/** A field's name for its parameter: its own name when it says something (two letters or more), else what kind of field it is. */
function fieldName(step: NormalizedStep): string {
  const name = step.target_name?.trim();
  if (name !== undefined && slugify(name).length >= 2) return name;
  return KIND_NOUNS[step.input_type ?? ""] ?? KIND_NOUNS[step.target_role ?? ""] ?? (step.target_tag === "textarea" ? "Text" : "Value");
}

/**
 * Names the parameters (DESIGN §6.2, issue #14): one per masked field, one per distinct hashed
 * value (a value typed twice is one parameter). A field filled several times with different values
 * (adding items one after another) gives numbered parameters with human names ("Task 1", "Task 2")
 * rather than one list parameter: see NUMBERED_REASON.
 */
export function extractParameters(steps: readonly NormalizedStep[]): SkillParameter[] {
  const entered = (step: NormalizedStep) =>
    (step.action === "fill" || step.action === "upload") && (step.masked_value !== undefined || step.consented_value !== undefined || step.action === "upload");
  const entries = new Map<string, number>();
  const hashesOf = new Map<string, Set<string>>();
  for (const step of steps.filter(entered)) {
    const key = fieldKey(step);
    entries.set(key, (entries.get(key) ?? 0) + 1);
    const hash = step.masked_value?.value_hash;
    if (hash !== undefined) hashesOf.set(key, new Set([...(hashesOf.get(key) ?? []), hash]));
  }
  const parameters: SkillParameter[] = [];
  const byHash = new Map<string, SkillParameter>();
  const taken = new Set<string>();
  const numberOf = new Map<string, number>();
  for (const step of steps) {
    if (!entered(step)) continue;
    const hash = step.masked_value?.value_hash;
    const same = hash === undefined ? undefined : byHash.get(hash);
    if (same !== undefined) {
      same.step_ids.push(step.step_id);
      continue;
    }
    const key = fieldKey(step);
    const distinct = hashesOf.get(key)?.size ?? entries.get(key) ?? 1;
    const repeated = (entries.get(key) ?? 1) > 1 && distinct > 1;
    const fieldLabel = fieldName(step);
    let label = fieldLabel;
    if (repeated) {
      const number = (numberOf.get(key) ?? 0) + 1;
      numberOf.set(key, number);
      label = `${entryNoun(fieldLabel)} ${number}`;
    }
    let name = slugify(label) || "value";
    if (/^\d/.test(name)) name = `field_${name}`;
    let unique = name;
    for (let n = 2; taken.has(unique); n += 1) unique = `${name}_${n}`;
    taken.add(unique);
    const secret = step.masked_value?.reason !== undefined && /secret|password|card|otp|one[-_ ]?time/i.test(step.masked_value.reason);
    const typeHint = secret
      ? "secret"
      : step.action === "upload"
        ? "file"
        : step.target_tag === "textarea" || (step.target_role === "textbox" && step.input_type === undefined && step.target_tag !== "input")
          ? "long_text"
          : (TYPE_HINTS[step.input_type ?? ""] ?? "text");
    const parameter: SkillParameter = {
      name: unique,
      label,
      type_hint: typeHint,
      step_ids: [step.step_id],
      ...(repeated ? { note: `${fieldLabel}: ${NUMBERED_REASON}` } : {}),
    };
    parameters.push(parameter);
    if (hash !== undefined) byHash.set(hash, parameter);
  }
  return parameters;
}

/**
 * Which parameter each typed value's reference stands for (issue #35): an address recorded with
 * `*typed-<ref>*` is replayed with that parameter there. A secret parameter stands for none: its
 * value is never put in an address.
 */
export function parametersByValueRef(steps: readonly NormalizedStep[], parameters: readonly SkillParameter[]): Map<string, string> {
  const byStep = new Map(parameters.flatMap((parameter) => parameter.step_ids.map((stepId) => [stepId, parameter] as const)));
  const byRef = new Map<string, string>();
  for (const step of steps) {
    const parameter = byStep.get(step.step_id);
    if (step.value_ref === undefined || parameter === undefined || parameter.type_hint === "secret") continue;
    // The value's last entry names it: a field filled again with the same value is the same parameter anyway.
    byRef.set(step.value_ref, parameter.name);
  }
  return byRef;
}
