import { z } from "zod";
import { PortableSkillFrontmatterSchema, readPortableSkill, yamlFrontmatterBlock, type PortableSkillFrontmatter } from "./frontmatter";

/*
 * The Agent Skills bundle format (agentskills.io, checked by the `skills-ref` validator) next to
 * our §0.2C frontmatter. What we project into the assistant's skill folder is an Agent Skills
 * bundle: `name` equal to its folder, a `description` that says what the skill does and when to
 * use it, and our own fields under `metadata` (string values, as the format asks). The canonical
 * copy in ELNOR_MEMORY keeps §0.2C. Import reads the same format, so our own export round-trips.
 * Reading and writing a frontmatter block (fences, YAML, our `key: <JSON>` lines) is frontmatter.ts's.
 */

/** The format's limit on `description`, and on `compatibility`. */
export const AGENT_SKILLS_DESCRIPTION_MAX = 1024;
export const AGENT_SKILLS_COMPATIBILITY_MAX = 500;

/** The only top-level frontmatter keys the format allows. */
export const AGENT_SKILLS_FIELDS = ["name", "description", "license", "allowed-tools", "metadata", "compatibility"] as const;

/** Agent Skills frontmatter as a reader meets it; unknown keys are kept so a scan can name them. */
export const AgentSkillsFrontmatterSchema = z
  .object({
    name: z.string().trim().min(1),
    description: z.string().trim().min(1),
    license: z.string().optional(),
    compatibility: z.string().optional(),
    "allowed-tools": z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
export type AgentSkillsFrontmatter = z.infer<typeof AgentSkillsFrontmatterSchema>;

/**
 * Agent Skills frontmatter read as published: `allowed-tools` as a list or a string, `license` and
 * `compatibility` of any type, `metadata` with values of any type. Only `name` and `description`
 * must be text; anything else that does not fit is reported, not refused.
 */
export function normalizeAgentSkillsFrontmatter(value: Record<string, unknown>): { frontmatter?: AgentSkillsFrontmatter; problems: string[] } {
  const problems: string[] = [];
  const text = (key: string): string | undefined => {
    const field = value[key];
    if (field === undefined || field === null) return undefined;
    if (typeof field === "string") return field;
    if (typeof field === "number" || typeof field === "boolean") return String(field);
    problems.push(`"${key}" is not text; it is ignored.`);
    return undefined;
  };
  if (typeof value.name !== "string" || value.name.trim() === "") problems.push("The frontmatter has no `name` (text).");
  if (typeof value.description !== "string" || value.description.trim() === "") problems.push("The frontmatter has no `description` (text).");
  if (problems.length > 0) return { problems };
  const tools = value["allowed-tools"];
  const allowedTools = Array.isArray(tools) ? tools.filter((tool): tool is string => typeof tool === "string").join(" ") : text("allowed-tools");
  const metadata = value.metadata;
  if (metadata !== undefined && (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)))
    problems.push("`metadata` is not a mapping; it is ignored.");
  const license = text("license");
  const compatibility = text("compatibility");
  const parsed = AgentSkillsFrontmatterSchema.safeParse({
    ...value,
    name: value.name,
    description: value.description,
    license,
    compatibility,
    "allowed-tools": allowedTools,
    metadata: metadata !== null && typeof metadata === "object" && !Array.isArray(metadata) ? metadata : undefined,
  });
  if (!parsed.success) return { problems: [...problems, "The frontmatter's fields could not be read."] };
  return { frontmatter: parsed.data, problems };
}

/** Marks `metadata` written by us, so an import knows the §0.2C fields beside it are ours. */
export const ELNOR_METADATA_MARKER = "elnor-frontmatter";

/** §0.2C fields stored under `metadata` as JSON (the format wants string values). */
const JSON_FIELDS = new Set<keyof PortableSkillFrontmatter>([
  "triggers",
  "negative_triggers",
  "allowed_tools",
  "support_packs",
  "connector_hints",
  "depends_on",
  "preferred_control_surfaces",
  "schema_version",
]);

/** "What it does. Use when …": the format's one description, from §0.2C's description and triggers. */
export function agentSkillsDescriptionOf(frontmatter: PortableSkillFrontmatter): string {
  const what = frontmatter.description.trim().replace(/\s+/g, " ");
  const sentence = /[.!?]$/.test(what) ? what : `${what}.`;
  const when = frontmatter.triggers.map((trigger) => `"${trigger.replace(/\s+/g, " ").trim()}"`);
  let text = `${sentence} Use when the user asks to ${frontmatter.title.trim().toLowerCase()}`;
  if (when.length > 0) text += `, for example ${when.join(", ")}`;
  text += ".";
  if (text.length <= AGENT_SKILLS_DESCRIPTION_MAX) return text;
  // Too many triggers for the limit: keep whole ones, in order, and say there are more.
  let kept = `${sentence} Use when the user asks to ${frontmatter.title.trim().toLowerCase()}`;
  for (const [index, phrase] of when.entries()) {
    const next = `${kept}${index === 0 ? ", for example " : ", "}${phrase}`;
    if (next.length + 2 > AGENT_SKILLS_DESCRIPTION_MAX) break;
    kept = next;
  }
  return `${kept}.`.slice(0, AGENT_SKILLS_DESCRIPTION_MAX);
}

/** §0.2C frontmatter → Agent Skills frontmatter: every field of ours kept under `metadata`. */
export function agentSkillsFrontmatterOf(frontmatter: PortableSkillFrontmatter): AgentSkillsFrontmatter & { metadata: Record<string, string> } {
  const metadata: Record<string, string> = { [ELNOR_METADATA_MARKER]: "1" };
  for (const [key, value] of Object.entries(frontmatter)) {
    if (key === "name" || value === undefined) continue;
    // §0.2C's `description` is the short summary; the format's description is rebuilt from it.
    const field = key === "description" ? "summary" : key;
    metadata[field] = JSON_FIELDS.has(key as keyof PortableSkillFrontmatter) ? JSON.stringify(value) : String(value);
  }
  return { name: frontmatter.name, description: agentSkillsDescriptionOf(frontmatter), metadata };
}

/** A canonical SKILL.md rewritten as an Agent Skills SKILL.md: same body, the format's frontmatter. */
export function toAgentSkillsMarkdown(markdown: string): string {
  const skill = readPortableSkill(markdown);
  if (skill === undefined) throw new Error("The SKILL.md has no valid §0.2C frontmatter.");
  return `${yamlFrontmatterBlock(agentSkillsFrontmatterOf(skill.frontmatter))}${skill.body}`;
}

/**
 * The §0.2C frontmatter an Agent Skills bundle we wrote carries under `metadata`, exactly as it
 * was; undefined when the bundle is not ours or its fields do not parse.
 */
export function portableFrontmatterFromMetadata(frontmatter: AgentSkillsFrontmatter): PortableSkillFrontmatter | undefined {
  const metadata = frontmatter.metadata;
  if (metadata === undefined || metadata[ELNOR_METADATA_MARKER] === undefined) return undefined;
  const record: Record<string, unknown> = { name: frontmatter.name };
  for (const key of Object.keys(PortableSkillFrontmatterSchema.shape) as Array<keyof PortableSkillFrontmatter>) {
    if (key === "name") continue;
    const raw = metadata[key === "description" ? "summary" : key];
    if (raw === undefined) continue;
    if (!JSON_FIELDS.has(key)) {
      record[key] = String(raw);
      continue;
    }
    try {
      record[key] = typeof raw === "string" ? JSON.parse(raw) : raw;
    } catch {
      return undefined;
    }
  }
  const parsed = PortableSkillFrontmatterSchema.safeParse(record);
  return parsed.success ? parsed.data : undefined;
}
