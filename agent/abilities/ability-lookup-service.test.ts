import { describe, expect, it } from "vitest";
import { whenToUseLines } from "./ability-lookup-service";

describe("whenToUseLines (issue #15)", () => {
  it("reads the lines of the When to use section as written, without the Markdown escapes", () => {
    const markdown = [
      "---",
      "name: \"x\"",
      "---",
      "# Export invoices\n",
      "## When to use\n",
      "- When the user asks to export the \\*monthly\\* invoices",
      "- When the accountant needs a CSV",
      "",
      "## When not to use\n",
      "- When the user only asks about invoices",
    ].join("\n");
    expect(whenToUseLines(markdown)).toEqual(["When the user asks to export the *monthly* invoices", "When the accountant needs a CSV"]);
  });

  it("is empty for a SKILL.md without the section", () => {
    expect(whenToUseLines("# Title\n\nSome text.\n")).toEqual([]);
  });
});
