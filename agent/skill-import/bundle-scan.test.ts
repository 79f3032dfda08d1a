import { describe, expect, it } from "vitest";
import type { BundleFile } from "./bundle-reader";
import { scanBundle } from "./bundle-scan";

const file = (path: string, text: string, executable = false): BundleFile => ({ path, bytes: Buffer.from(text), mode: executable ? 0o755 : 0o644, executable });
const context = { takenNames: new Map<string, string>(), installedTriggers: new Map([["convert a word document", "learned.word"]]) };

describe("the compatibility scan", () => {
  it("lints links to missing files in prose, not in code examples", () => {
    const body = "# Forms\n\nRead [the guide](references/GUIDE.md) and [forms](FORMS.md).\n\n```markdown\nSee [EXAMPLES.md](EXAMPLES.md)\n```\n";
    const outcome = scanBundle(
      {
        files: [
          file("s/SKILL.md", `---\nname: forms\ndescription: Fill forms. Use when asked to fill a form.\n---\n${body}`),
          file("s/references/GUIDE.md", "# Guide\n"),
        ],
        skipped: [],
      },
      context,
    );
    expect(outcome.report.findings.filter((finding) => finding.code === "LINK_MISSING").map((finding) => finding.message)).toEqual([
      "SKILL.md links to FORMS.md, which is not in the bundle.",
    ]);
  });

  it("derives negative triggers, warns of a trigger another skill has, and flags a shebang script without the x bit", () => {
    const description =
      "Convert documents. Use when the user asks to convert a word document, or export slides as pdf files. Do NOT use for spreadsheets or scanned images.";
    const outcome = scanBundle(
      {
        files: [file("SKILL.md", `---\nname: converter\ndescription: ${description}\n---\n# Converter\n`), file("tools/convert", "#!/bin/sh\necho hi\n")],
        skipped: [],
      },
      context,
    );
    expect(outcome.bundle.frontmatter?.negative_triggers).toEqual(["spreadsheets or scanned images"]);
    expect(outcome.report.findings).toContainEqual(expect.objectContaining({ code: "TRIGGER_COLLISION", severity: "warning" }));
    expect(outcome.report.findings).toContainEqual(expect.objectContaining({ code: "EXECUTABLE_FILE", path_hint: "tools/convert" }));
    expect(outcome.bundle.frontmatter?.portability_grade).toBe("adapter_required");
  });

  it("imports a bundle whose Ability Learning fields do not read back like any other, and says so", () => {
    const outcome = scanBundle(
      {
        files: [
          file(
            "SKILL.md",
            '---\nname: tampered\ndescription: Does a thing. Use when asked to do the thing.\nmetadata:\n  elnor-frontmatter: "1"\n  triggers: "[not json"\n---\n# Tampered\n',
          ),
        ],
        skipped: [],
      },
      context,
    );
    expect(outcome.bundle.format).toBe("agent_skills");
    expect(outcome.report.findings).toContainEqual(expect.objectContaining({ code: "ELNOR_FIELDS_INVALID", severity: "warning" }));
    expect(outcome.report.compatible).toBe(true);
  });
});
