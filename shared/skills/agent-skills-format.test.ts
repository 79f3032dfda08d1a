import { validateMetadata } from "skills-ref";
import { describe, expect, it } from "vitest";
import {
  AGENT_SKILLS_DESCRIPTION_MAX,
  AgentSkillsFrontmatterSchema,
  agentSkillsFrontmatterOf,
  portableFrontmatterFromMetadata,
  toAgentSkillsMarkdown,
} from "./agent-skills-format";
import { PortableSkillFrontmatterSchema, readFrontmatterMapping, readPortableSkill, renderPortableFrontmatter } from "./frontmatter";

const canonical = PortableSkillFrontmatterSchema.parse({
  name: "export-the-monthly-invoices",
  title: "Export the monthly invoices",
  description: "Downloads last month's invoices as one CSV file from the billing site.",
  version: "0.1.0",
  triggers: ["export the monthly invoices", "download invoices as csv"],
  negative_triggers: ["delete the invoices"],
  preferred_control_surfaces: ["native_openclaw_browser"],
  estimated_cost_class: "free",
  schema_version: 1,
});
const body = "# Export the monthly invoices\n\nDownloads last month's invoices.\n\n## When to use\n\n- Month end.\n";
const markdown = `${renderPortableFrontmatter(canonical)}${body}`;

describe("the Agent Skills form of a skill", () => {
  it("passes the reference validator's rules: name, a description of what and when, our fields under metadata", () => {
    const projected = toAgentSkillsMarkdown(markdown);
    const mapping = readFrontmatterMapping(projected);
    if (!mapping.ok) throw new Error(mapping.reason);
    expect(validateMetadata(mapping.value, "/skills/export-the-monthly-invoices")).toEqual([]);
    expect(Object.keys(mapping.value).sort()).toEqual(["description", "metadata", "name"]);
    expect(mapping.value.description).toBe(
      'Downloads last month\'s invoices as one CSV file from the billing site. Use when the user asks to export the monthly invoices, for example "export the monthly invoices", "download invoices as csv".',
    );
    expect(Object.values(mapping.value.metadata as object).every((value) => typeof value === "string")).toBe(true);
    expect(mapping.body).toBe(body);
  });

  it("gives back the same §0.2C frontmatter and body when read again (our export round-trips)", () => {
    const projected = toAgentSkillsMarkdown(markdown);
    const mapping = readFrontmatterMapping(projected);
    if (!mapping.ok) throw new Error(mapping.reason);
    const back = portableFrontmatterFromMetadata(AgentSkillsFrontmatterSchema.parse(mapping.value));
    expect(back).toEqual(canonical);
    expect(`${renderPortableFrontmatter(back as typeof canonical)}${mapping.body}`).toBe(markdown);
    expect(readPortableSkill(markdown)?.frontmatter).toEqual(canonical);
  });

  it("keeps the description within 1,024 characters with whole trigger phrases when there are many", () => {
    const many = {
      ...canonical,
      description: "d".repeat(480),
      triggers: Array.from({ length: 40 }, (_, index) => `trigger phrase number ${index} for this skill`),
    };
    const description = agentSkillsFrontmatterOf(many).description;
    expect(description.length).toBeLessThanOrEqual(AGENT_SKILLS_DESCRIPTION_MAX);
    expect(description).toMatch(/"trigger phrase number \d+ for this skill"\.$/);
    expect(validateMetadata(agentSkillsFrontmatterOf(many), "/x/export-the-monthly-invoices")).toEqual([]);
  });

  it("does not read a bundle without our marker as ours", () => {
    expect(portableFrontmatterFromMetadata({ name: "pdf", description: "Work with PDF files.", metadata: { title: "PDF" } })).toBeUndefined();
  });
});
