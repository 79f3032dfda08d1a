import type { RequestMoreTestsRequest } from "../../../shared/learning/proposal-tests";

/** The "Request More Tests" form as typed: one example request per line. */
export interface MoreTestsDraft {
  positive: string;
  negative: string;
  note: string;
}

export const MAX_EXAMPLES = 10;
export const MAX_EXAMPLE_LENGTH = 240;

export const emptyMoreTestsDraft = (): MoreTestsDraft => ({ positive: "", negative: "", note: "" });

const linesOf = (text: string) => [
  ...new Set(
    text
      .split(/\r?\n/)
      .map((line) => line.trim().replace(/\s+/g, " "))
      .filter((line) => line !== ""),
  ),
];

/**
 * The request body for what was typed, or what to fix first (the agent's own limits: ten examples
 * of each kind, 240 characters each). Nothing typed is valid too: the agent then adds tests of its own.
 */
export function moreTestsRequestOf(draft: MoreTestsDraft): { ok: true; request: RequestMoreTestsRequest } | { ok: false; problems: string[] } {
  const positive = linesOf(draft.positive);
  const negative = linesOf(draft.negative);
  const problems: string[] = [];
  for (const [lines, what] of [
    [positive, "requests that should use it"],
    [negative, "requests that should not use it"],
  ] as const) {
    if (lines.length > MAX_EXAMPLES) problems.push(`Give at most ${MAX_EXAMPLES} ${what} (one per line).`);
    if (lines.some((line) => line.length > MAX_EXAMPLE_LENGTH)) problems.push(`Keep each of the ${what} under ${MAX_EXAMPLE_LENGTH} characters.`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const note = draft.note.trim().slice(0, 1000);
  return { ok: true, request: { positive_examples: positive, negative_examples: negative, ...(note === "" ? {} : { note }), schema_version: 1 } };
}
