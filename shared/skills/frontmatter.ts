import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import { ControlSurfaceSchema } from "../capabilities/control-surface";

/**
 * §0.2C / §0C.19 A skill name: 2–64 characters of lowercase letters, digits and hyphens, never
 * starting with a hyphen. The superseded §1.1O pattern allowed a leading hyphen, which breaks
 * CLI arguments and folder names.
 */
export const PORTABLE_SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{1,63}$/;

/** §0.2C Frontmatter of a portable `SKILL.md`. */
export const PortableSkillFrontmatterSchema = z.object({
  name: z.string().regex(PORTABLE_SKILL_NAME_PATTERN),
  title: z.string().max(120),
  description: z.string().max(500),
  version: z.string().max(32),
  triggers: z.array(z.string().max(200)).min(1),
  negative_triggers: z.array(z.string().max(200)).default([]),
  allowed_tools: z.array(z.string().max(80)).default([]),
  support_packs: z.array(z.string().max(120)).default([]),
  connector_hints: z.array(z.string().max(120)).default([]),
  depends_on: z.array(z.string().max(80)).default([]),
  preferred_control_surfaces: z.array(ControlSurfaceSchema).default([]),
  estimated_cost_class: z.enum(["free", "low", "medium", "high", "unknown"]).default("unknown"),
  assigned_namespace: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{1,31}$/)
    .optional(),
  portability_grade: z.enum(["direct", "adapter_required", "local_only", "non_portable"]).default("direct"),
  schema_version: z.literal(1),
});
/** §0.2C */
export type PortableSkillFrontmatter = z.infer<typeof PortableSkillFrontmatterSchema>;

/*
 * The one reader and writer of a SKILL.md's frontmatter block. Ours (§0.2C) is written as
 * `key: <JSON>` lines by skillFrontmatterBlock and read back exactly by parseSkillFrontmatter; any
 * other SKILL.md (an import, a native or bundled skill) is read as YAML by readFrontmatterMapping,
 * and the Agent Skills projection is written as YAML by yamlFrontmatterBlock.
 */

/**
 * Frontmatter lines are `key: <JSON>`: JSON scalars and arrays are valid YAML flow values, so the
 * block is YAML for any reader and round-trips exactly for ours.
 */
export function skillFrontmatterBlock(frontmatter: PortableSkillFrontmatter): string {
  const lines = Object.entries(frontmatter)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `---\n${lines.join("\n")}\n---\n`;
}

/** The canonical block of a value yet to be checked: defaults filled in, fields in §0.2C order (an import's SKILL.md). */
export function renderPortableFrontmatter(frontmatter: PortableSkillFrontmatter): string {
  return skillFrontmatterBlock(PortableSkillFrontmatterSchema.parse(frontmatter));
}

/** The frontmatter of a SKILL.md written by skillFrontmatterBlock, parsed; undefined when it is not one. */
export function parseSkillFrontmatter(markdown: string): PortableSkillFrontmatter | undefined {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  if (match?.[1] === undefined) return undefined;
  const record: Record<string, unknown> = {};
  for (const line of match[1].split("\n")) {
    const colon = line.indexOf(": ");
    if (colon <= 0) return undefined;
    try {
      record[line.slice(0, colon)] = JSON.parse(line.slice(colon + 2));
    } catch {
      return undefined;
    }
  }
  const parsed = PortableSkillFrontmatterSchema.safeParse(record);
  return parsed.success ? parsed.data : undefined;
}

export interface SplitSkillMarkdown {
  /** The frontmatter text between the fences, not parsed. */
  frontmatter: string;
  body: string;
}

/** Cuts the `---` fenced block off the top of a SKILL.md; the YAML inside is left to a YAML parser. */
export function splitSkillMarkdown(markdown: string): SplitSkillMarkdown | undefined {
  const text = markdown.startsWith("\ufeff") ? markdown.slice(1) : markdown;
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (match === null) return undefined;
  return { frontmatter: match[1] ?? "", body: text.slice(match[0].length) };
}

/** The frontmatter of a SKILL.md as a YAML mapping, or a reason it is not one. */
export function readFrontmatterMapping(markdown: string): { ok: true; value: Record<string, unknown>; body: string } | { ok: false; reason: string } {
  const split = splitSkillMarkdown(markdown);
  if (split === undefined) return { ok: false, reason: "SKILL.md does not start with a frontmatter block between --- lines." };
  let value: unknown;
  try {
    value = parseYaml(split.frontmatter, { maxAliasCount: 20, prettyErrors: false });
  } catch (error) {
    return { ok: false, reason: `The frontmatter is not valid YAML (${error instanceof Error ? error.message.split("\n")[0] : "unreadable"}).` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, reason: "The frontmatter is not a YAML mapping of fields." };
  return { ok: true, value: value as Record<string, unknown>, body: split.body };
}

/** A canonical SKILL.md's §0.2C frontmatter and body, or undefined when it has none. */
export function readPortableSkill(markdown: string): { frontmatter: PortableSkillFrontmatter; body: string } | undefined {
  const mapping = readFrontmatterMapping(markdown);
  if (!mapping.ok) return undefined;
  const parsed = PortableSkillFrontmatterSchema.safeParse(mapping.value);
  return parsed.success ? { frontmatter: parsed.data, body: mapping.body } : undefined;
}

/** A mapping as a YAML frontmatter block (the Agent Skills projection; lines are never folded). */
export function yamlFrontmatterBlock(mapping: Record<string, unknown>): string {
  return `---\n${stringifyYaml(mapping, { lineWidth: 0 })}---\n`;
}
