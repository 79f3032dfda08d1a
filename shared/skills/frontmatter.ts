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
  assigned_namespace: z.string().regex(/^[a-z0-9][a-z0-9_-]{1,31}$/).optional(),
  portability_grade: z.enum(["direct", "adapter_required", "local_only", "non_portable"]).default("direct"),
  schema_version: z.literal(1),
});
/** §0.2C */
export type PortableSkillFrontmatter = z.infer<typeof PortableSkillFrontmatterSchema>;

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
