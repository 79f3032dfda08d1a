/** One run-time input of a draft skill, as its SKILL.md "Inputs" section lists it. */
export interface SkillParameter {
  name: string;
  label: string;
  type: string;
}

const INPUT_LINE = /^- `\{\{([\w.-]+)\}\}` — (.+) \(([^()]+)\)$/;

/**
 * The parameters of a draft, read from the "## Inputs" section the compiler writes
 * (agent/learning/compiler/emit-skill.ts); the proposal detail has no parameter list of its own.
 * Markdown escapes are undone for display: the text is rendered as text anyway.
 */
export function parametersFromSkillMarkdown(markdown: string): SkillParameter[] {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => /^##\s+Inputs\s*$/.test(line));
  if (start < 0) return [];
  const parameters: SkillParameter[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^##\s/.test(line)) break;
    const match = INPUT_LINE.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined && match[3] !== undefined) {
      parameters.push({ name: match[1], label: match[2].replace(/\\(.)/g, "$1"), type: match[3] });
    }
  }
  return parameters;
}
