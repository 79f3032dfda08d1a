import { z } from "zod";

/** Largest SKILL.md the skill-md route serves (an imported bundle's SKILL.md is not ours to shorten). */
export const SKILL_MARKDOWN_MAX_CHARS = 500_000;

/**
 * `GET /api/abilities/:abilityId/skill-md` (issue #19): an installed ability's SKILL.md as text,
 * with what and when read from it, so a client (the MCP server) can load the instructions and say
 * when to use the ability without reading ELNOR_MEMORY itself.
 */
export const AbilitySkillMarkdownResponseSchema = z.object({
  ability_id: z.string().max(160),
  skill_name: z.string().max(120),
  title: z.string().max(200),
  /** The frontmatter's `description` (what the ability does and when), when it has one. */
  description: z.string().max(1024).optional(),
  /** The "When to use" lines of the SKILL.md, as written. */
  when_to_use: z.array(z.string().max(500)).max(50),
  markdown: z.string().max(SKILL_MARKDOWN_MAX_CHARS),
  schema_version: z.literal(1),
});
export type AbilitySkillMarkdownResponse = z.infer<typeof AbilitySkillMarkdownResponseSchema>;
