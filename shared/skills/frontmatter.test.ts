import { describe, it, expect } from "vitest";
import {
  parseSkillFrontmatter,
  PortableSkillFrontmatterSchema,
  readFrontmatterMapping,
  readPortableSkill,
  skillFrontmatterBlock,
  yamlFrontmatterBlock,
} from "./frontmatter";

const base = {
  name: "export-invoices",
  title: "Export invoices",
  description: "Exports this month's invoices as CSV.",
  version: "1.0.0",
  triggers: ["export invoices"],
  schema_version: 1,
};

const nameOk = (name: string) => PortableSkillFrontmatterSchema.safeParse({ ...base, name }).success;

describe("PortableSkillFrontmatterSchema name (§0.2C / §0C.19)", () => {
  it("rejects a one-character name", () => expect(nameOk("a")).toBe(false));
  it("accepts a two-character name", () => expect(nameOk("a1")).toBe(true));
  it("rejects a leading hyphen that the superseded §1.1O pattern allowed", () => expect(nameOk("-abc")).toBe(false));
  it("accepts a hyphen after the first character, including at the end", () => expect(nameOk("abc-")).toBe(true));
  it("accepts 64 characters", () => expect(nameOk("a".repeat(64))).toBe(true));
  it("rejects 65 characters", () => expect(nameOk("a".repeat(65))).toBe(false));
  it("rejects uppercase, underscores and spaces", () => {
    expect(nameOk("Export")).toBe(false);
    expect(nameOk("export_invoices")).toBe(false);
    expect(nameOk("export invoices")).toBe(false);
  });
});

describe("PortableSkillFrontmatterSchema", () => {
  it("requires at least one trigger", () => {
    expect(PortableSkillFrontmatterSchema.safeParse({ ...base, triggers: [] }).success).toBe(false);
  });

  it("fills the spec's defaults", () => {
    const parsed = PortableSkillFrontmatterSchema.parse(base);
    expect(parsed.estimated_cost_class).toBe("unknown");
    expect(parsed.portability_grade).toBe("direct");
    expect(parsed.negative_triggers).toEqual([]);
  });

  it("rejects a control surface outside the §0.2A list", () => {
    const result = PortableSkillFrontmatterSchema.safeParse({ ...base, preferred_control_surfaces: ["native_openclaw_exec"] });
    expect(result.success).toBe(false);
  });

  it("rejects a namespace longer than 32 characters", () => {
    expect(PortableSkillFrontmatterSchema.safeParse({ ...base, assigned_namespace: "n".repeat(32) }).success).toBe(true);
    expect(PortableSkillFrontmatterSchema.safeParse({ ...base, assigned_namespace: "n".repeat(33) }).success).toBe(false);
  });
});

describe("SKILL.md frontmatter: one writer, one reader", () => {
  it("reads back what skillFrontmatterBlock wrote, unchanged", () => {
    const frontmatter = PortableSkillFrontmatterSchema.parse({ ...base, negative_triggers: ["delete invoices"], description: 'Says "quoted": and # things' });
    expect(parseSkillFrontmatter(`${skillFrontmatterBlock(frontmatter)}\n# Export invoices\n`)).toEqual(frontmatter);
  });

  it("reads no frontmatter from a file without the block or with a line that is not JSON", () => {
    expect(parseSkillFrontmatter("# Export invoices\n")).toBeUndefined();
    expect(parseSkillFrontmatter("---\nname: export-invoices\n---\n")).toBeUndefined();
  });
});

describe("SKILL.md frontmatter: our block is YAML for any reader", () => {
  const tricky = PortableSkillFrontmatterSchema.parse({
    ...base,
    title: "Export: the 'monthly' #invoices",
    description: 'A "quoted" line\twith a tab, a colon: and ünïcode — dash',
    triggers: ["export invoices", "- looks like a list item", "yes", "1.0"],
  });
  const markdown = `${skillFrontmatterBlock(tricky)}# Export invoices\n\nBody: --- not a fence\n`;

  it("reads back the same fields through the strict reader and the YAML reader", () => {
    expect(parseSkillFrontmatter(markdown)).toEqual(tricky);
    expect(readPortableSkill(markdown)).toEqual({ frontmatter: tricky, body: "# Export invoices\n\nBody: --- not a fence\n" });
  });

  it("writes a YAML block that reads back as the same mapping", () => {
    const mapping = { name: "export-invoices", description: 'Says "hi": #1', metadata: { list: '["a","b"]', n: "1" } };
    const block = `${yamlFrontmatterBlock(mapping)}body\n`;
    expect(readFrontmatterMapping(block)).toEqual({ ok: true, value: mapping, body: "body\n" });
  });
});
