/**
 * Labels the Learn UI must never show (§0B.4 agent-named defaults, §0B.7, §0C.18 deprecated
 * aliases). Matched as whole words, case-insensitively, so `Experimental` is caught in any case
 * while an internal value such as an install-lane identifier (one word with underscores) is not.
 */
export const FORBIDDEN_LABELS = [
  "Teach Elnor",
  "Show Elnor",
  "Elnor Practice",
  "Improve Elnor Skill",
  "Learning Center",
  "Experimental",
  "Experimental Abilities",
  "Experimental Skill",
  "Observe My Actions",
  "Private Trial Skill",
] as const;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const PATTERNS = FORBIDDEN_LABELS.map((label) => ({
  label,
  pattern: new RegExp(`\\b${escape(label).replace(/ /g, "\\s+")}\\b`, "i"),
}));

/** The forbidden labels that occur in a text (rendered DOM text or source). */
export function findForbiddenLabels(text: string): string[] {
  return PATTERNS.filter(({ pattern }) => pattern.test(text)).map(({ label }) => label);
}
