import type { SkillDelta, SkillDeltaChange } from "../../../../shared/learning/proposals/skill-delta";
import { DEFAULT_NON_USE_CONDITIONS, FIRST_SKILL_VERSION } from "../emit-skill";
import { parseSkillFrontmatter } from "../../../../shared/skills/frontmatter";

/**
 * What a reader of a SKILL.md can tell about a skill: its frontmatter and the sections the
 * compiler writes (emit-skill.ts). Both sides of a delta are read the same way, from their
 * SKILL.md, so a difference is a difference in the text the assistant would read. A SKILL.md
 * written by hand may lack sections: those read as empty.
 */
export interface SkillOutline {
  name: string | undefined;
  title: string;
  description: string;
  /**
   * What the skill is for in the person's words: the paragraph under the title (emit-skill.ts
   * writes the goal there). The frontmatter's description says more (where, inputs: issue #35);
   * an improved skill starts again from this, not from that. Falls back to the description.
   */
  summary: string;
  version: string | undefined;
  triggers: string[];
  negative_triggers: string[];
  use_conditions: string[];
  non_use_conditions: string[];
  parameters: Array<{ name: string; label: string; type: string }>;
  checkpoints: Array<{ goal: string; success_condition: string }>;
}

/** Undoes emit-skill's `plainText` escapes; the result is still rendered as text. */
const unescape = (text: string) => text.replace(/\\(.)/g, "$1");

/** The paragraph right under the `# Title` heading, before the first `## ` section. */
function summaryUnder(lines: readonly string[], heading: string | undefined): string | undefined {
  if (heading === undefined) return undefined;
  const start = lines.indexOf(heading);
  const paragraph: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#/.test(line)) break;
    if (line.trim() === "") {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(line.trim());
  }
  return paragraph.length === 0 ? undefined : unescape(paragraph.join(" "));
}

/** The lines of a `## Heading` section, up to the next `## ` heading. */
function section(lines: readonly string[], heading: string): string[] {
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`);
  if (start < 0) return [];
  const end = lines.findIndex((line, index) => index > start && /^## /.test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const bullets = (lines: readonly string[]) =>
  lines
    .map((line) => /^- (.+)$/.exec(line.trim())?.[1])
    .filter((text): text is string => text !== undefined)
    .map(unescape);

const INPUT_LINE = /^- `\{\{([a-z0-9_]+)\}\}` — (.+) \(([^()]+)\)$/;
const CHECKPOINT_LINE = /^\d+\. \*\*(.+?)\*\* — success: (.+)$/;

export function readSkillOutline(markdown: string): SkillOutline {
  const frontmatter = parseSkillFrontmatter(markdown);
  const lines = markdown.split(/\r?\n/);
  const heading = lines.find((line) => /^# /.test(line));
  const defaults = new Set(DEFAULT_NON_USE_CONDITIONS);
  return {
    name: frontmatter?.name,
    title: frontmatter?.title ?? (heading === undefined ? "" : unescape(heading.slice(2).trim())),
    description: frontmatter?.description ?? "",
    summary: summaryUnder(lines, heading) ?? frontmatter?.description ?? "",
    version: frontmatter?.version,
    triggers: frontmatter?.triggers ?? [],
    negative_triggers: frontmatter?.negative_triggers ?? [],
    use_conditions: bullets(section(lines, "When to use")),
    non_use_conditions: bullets(section(lines, "When not to use")).filter((line) => !defaults.has(line)),
    parameters: section(lines, "Inputs").flatMap((line) => {
      const match = INPUT_LINE.exec(line.trim());
      return match?.[1] === undefined || match[2] === undefined || match[3] === undefined
        ? []
        : [{ name: match[1], label: unescape(match[2]), type: match[3] }];
    }),
    checkpoints: section(lines, "Checkpoints").flatMap((line) => {
      const match = CHECKPOINT_LINE.exec(line.trim());
      return match?.[1] === undefined || match[2] === undefined ? [] : [{ goal: unescape(match[1]), success_condition: unescape(match[2]) }];
    }),
  };
}

/** The next minor version of an installed skill: the improved skill replaces it as a new version. */
export function nextSkillVersion(installed: string | undefined): string {
  const match = /^(\d+)\.(\d+)/.exec(installed ?? FIRST_SKILL_VERSION);
  if (match?.[1] === undefined || match[2] === undefined) return `${(installed ?? "").slice(0, 28)}.next`;
  return `${match[1]}.${Number(match[2]) + 1}.0`;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const key = (text: string) => text.trim().replace(/\s+/g, " ").toLowerCase();

/** Phrases are the same when they read the same, whatever the case or spacing. */
function diffPhrases(installed: readonly string[], proposed: readonly string[]): { changes: SkillDeltaChange[]; unchanged: number } {
  const proposedKeys = new Set(proposed.map(key));
  const installedKeys = new Set(installed.map(key));
  const removed = installed
    .filter((phrase) => !proposedKeys.has(key(phrase)))
    .map((phrase): SkillDeltaChange => ({ change: "removed", subject: clip(phrase, 240), installed: clip(phrase, 600) }));
  const added = proposed
    .filter((phrase) => !installedKeys.has(key(phrase)))
    .map((phrase): SkillDeltaChange => ({ change: "added", subject: clip(phrase, 240), proposed: clip(phrase, 600) }));
  return { changes: [...removed, ...added], unchanged: proposed.filter((phrase) => installedKeys.has(key(phrase))).length };
}

/** Parameters are the same input when they have the same `{{name}}`. */
function diffParameters(installed: SkillOutline["parameters"], proposed: SkillOutline["parameters"]): { changes: SkillDeltaChange[]; unchanged: number } {
  const text = (parameter: SkillOutline["parameters"][number]) => clip(`${parameter.label} (${parameter.type})`, 600);
  const changes: SkillDeltaChange[] = [];
  let unchanged = 0;
  for (const old of installed) {
    const now = proposed.find((candidate) => candidate.name === old.name);
    if (now === undefined) changes.push({ change: "removed", subject: `{{${old.name}}}`, installed: text(old) });
    else if (text(now) !== text(old)) changes.push({ change: "changed", subject: `{{${old.name}}}`, installed: text(old), proposed: text(now) });
    else unchanged += 1;
  }
  for (const now of proposed.filter((candidate) => !installed.some((old) => old.name === candidate.name))) {
    changes.push({ change: "added", subject: `{{${now.name}}}`, proposed: text(now) });
  }
  return { changes, unchanged };
}

/**
 * Checkpoints have no stable identity across demonstrations, so they are paired in two passes:
 * the same goal on both sides is the same checkpoint (changed if its success condition is not);
 * the rest are paired in order, as a reworded goal at the same place; what is left over was
 * added or removed. Subjects count from 1 in the proposed order (the installed order for removals).
 */
function diffCheckpoints(installed: SkillOutline["checkpoints"], proposed: SkillOutline["checkpoints"]): { changes: SkillDeltaChange[]; unchanged: number } {
  const text = (checkpoint: SkillOutline["checkpoints"][number]) => clip(`${checkpoint.goal} — done when: ${checkpoint.success_condition}`, 600);
  const pairOf = new Map<number, number>();
  const taken = new Set<number>();
  proposed.forEach((now, index) => {
    const same = installed.findIndex((old, oldIndex) => !taken.has(oldIndex) && key(old.goal) === key(now.goal));
    if (same >= 0) {
      pairOf.set(index, same);
      taken.add(same);
    }
  });
  const leftInstalled = installed.map((_, index) => index).filter((index) => !taken.has(index));
  const leftProposed = proposed.map((_, index) => index).filter((index) => !pairOf.has(index));
  leftProposed.forEach((index, order) => {
    const old = leftInstalled[order];
    if (old !== undefined) pairOf.set(index, old);
  });
  const paired = new Set(pairOf.values());
  const changes: SkillDeltaChange[] = [];
  let unchanged = 0;
  proposed.forEach((now, index) => {
    const oldIndex = pairOf.get(index);
    const old = oldIndex === undefined ? undefined : installed[oldIndex];
    const subject = `Checkpoint ${index + 1}`;
    if (old === undefined) changes.push({ change: "added", subject, proposed: text(now) });
    else if (text(old) !== text(now)) changes.push({ change: "changed", subject, installed: text(old), proposed: text(now) });
    else unchanged += 1;
  });
  installed.forEach((old, index) => {
    if (!paired.has(index)) changes.push({ change: "removed", subject: `Checkpoint ${index + 1} (installed)`, installed: text(old) });
  });
  return { changes, unchanged };
}

/** The §0C.4 delta: what installing `proposed` would change in the `installed` skill. */
export function diffSkills(
  installed: SkillOutline,
  proposed: SkillOutline,
): Pick<SkillDelta, "triggers" | "negative_triggers" | "parameters" | "checkpoints" | "unchanged"> {
  const triggers = diffPhrases(installed.triggers, proposed.triggers);
  const negatives = diffPhrases(installed.negative_triggers, proposed.negative_triggers);
  const parameters = diffParameters(installed.parameters, proposed.parameters);
  const checkpoints = diffCheckpoints(installed.checkpoints, proposed.checkpoints);
  return {
    triggers: triggers.changes.slice(0, 100),
    negative_triggers: negatives.changes.slice(0, 100),
    parameters: parameters.changes.slice(0, 100),
    checkpoints: checkpoints.changes.slice(0, 100),
    unchanged: { triggers: triggers.unchanged, negative_triggers: negatives.unchanged, parameters: parameters.unchanged, checkpoints: checkpoints.unchanged },
  };
}
