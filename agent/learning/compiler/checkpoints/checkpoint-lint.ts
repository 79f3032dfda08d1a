import { createTypedValueScrubber } from "../../../../shared/observation/typed-value-scrubber";
import type { WorkflowCheckpoint } from "../../../../shared/learning/checkpoints/semantic-workflow-interpretation";

/** DESIGN §2: the checkpoint lint the spec's §0C.9A Rules 2–6 left out. */
export type CheckpointLintRule = "CKP-001" | "CKP-002" | "CKP-003" | "CKP-004" | "CKP-005";

export interface CheckpointLintFinding {
  rule: CheckpointLintRule;
  checkpoint_id: string;
  field: "goal" | "success_condition";
  message: string;
}

export interface CheckpointLintReport {
  passed: boolean;
  findings: CheckpointLintFinding[];
  checked: number;
}

const SELECTOR = [
  /(^|\s)[#.][A-Za-z_][\w-]*/, // #submit, .btn-primary
  /\b[a-z][a-z0-9]*#[A-Za-z_][\w-]*/i, // div#export-done, button#save
  // [data-testid=x], [aria-pressed], [disabled]; not a page's own bracketed words ("Home [Notes]").
  /\[(?:[\w-]+[~|^$*]?=[^\]]*|(?:data|aria)-[\w-]+|[a-z]+-[\w-]+|disabled|checked|selected|hidden|readonly|required)\]/,
  /(^|\s)\/\/?[a-z*]+[[/]/i, // //div[…], xpath
  /\b(xpath|css selector|queryselector|getelementbyid)\b/i,
  /\b[a-z]+-\d{2,}\b/i, // div-8472, btn-0032
  /\b(id|class|name)\s*=\s*["']?[\w-]+/i,
  /\w+\s*>\s*\w+\s*>/, // div > ul > li
];
const COORDINATES = [
  /\(\s*-?\d+(\.\d+)?\s*,\s*-?\d+(\.\d+)?\s*\)/,
  /\b[xy]\s*[:=]\s*-?\d+/i,
  /\b\d+\s*px\b/i,
  /\bat\s+-?\d+\s*,\s*-?\d+\b/i,
  /\boffset(x|y)?\b/i,
];
const SECRET_LOOKING = [
  /[\w.+-]+@[\w-]+\.[\w.]+/, // email address
  /\b(?:\d[ -]?){13,19}\b/, // card-like digits
  /\b(?:\+?\d[\d ()-]{7,}\d)\b/, // phone number
  /\b[A-Za-z0-9_-]{24,}\b/, // token-like
  /\b(password|passcode|otp|one-time code)\s*(is|=|:)\s*\S+/i,
];
const VAGUE = /^(done|ok|okay|success|successful|complete|completed|finished|it works|works|fine|good|yes)\.?$/i;
const ACTION_VERBS = /\b(click|clicks|clicked|press|presses|type|types|typed|tap|taps|select|enter|fill|submit|scroll|hover)\b/gi;
const SEQUENCE_WORDS = /\b(then|and then|after that|next|followed by|afterwards)\b/i;

function matchesAny(text: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((pattern) => pattern.test(text));
}

/**
 * Lints checkpoints so a learned skill stays a goal-and-evidence guide a runtime agent can follow
 * on a page that changed (§0C.9A). `literals` are values typed during the demonstration (only
 * known when the user consented to recording text) and must never appear.
 */
export function lintCheckpoints(checkpoints: readonly WorkflowCheckpoint[], literals: readonly string[] = []): CheckpointLintReport {
  const findings: CheckpointLintFinding[] = [];
  // The privacy boundary's rule (case, spacing, lines, encodings), not a looser one of its own.
  const typed = createTypedValueScrubber(literals);
  for (const checkpoint of checkpoints) {
    for (const field of ["goal", "success_condition"] as const) {
      const text = checkpoint[field].trim();
      const add = (rule: CheckpointLintRule, message: string) => findings.push({ rule, checkpoint_id: checkpoint.checkpoint_id, field, message });
      if (text.length < 8 || VAGUE.test(text)) {
        add("CKP-004", `The ${field.replace("_", " ")} says nothing a person or agent could observe.`);
        continue;
      }
      if (matchesAny(text, SELECTOR)) add("CKP-001", `The ${field.replace("_", " ")} names a DOM selector or element id; describe what is visible instead.`);
      if (matchesAny(text, COORDINATES)) add("CKP-002", `The ${field.replace("_", " ")} uses screen coordinates; describe the element by its name.`);
      // A {{parameter}} placeholder is how a value is named, never a value: "{{username_or_email_address}}" is no token.
      const unplaced = text.replace(/\{\{\s*[\w.-]+\s*\}\}/g, "{{}}");
      if (typed.contains(text) || matchesAny(unplaced, SECRET_LOOKING)) {
        add("CKP-003", `The ${field.replace("_", " ")} contains a literal typed value or something that looks like a secret; use a {{parameter}}.`);
      }
      const verbs = text.match(ACTION_VERBS)?.length ?? 0;
      if (verbs >= 2 || (verbs >= 1 && SEQUENCE_WORDS.test(text))) {
        add("CKP-005", `The ${field.replace("_", " ")} is a sequence of actions; state the goal and how to tell it is reached.`);
      }
    }
  }
  return { passed: findings.length === 0, findings, checked: checkpoints.length };
}
