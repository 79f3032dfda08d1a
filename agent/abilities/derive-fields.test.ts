import { describe, expect, it } from "vitest";
import { deriveNegativeTriggers, deriveTriggers, summaryOf, titleOf, whenToUseOf } from "./derive-fields";

/** Descriptions written the way public Agent Skills bundles write them: what, then when. */
const DOCX =
  "Comprehensive document creation, editing, and analysis with support for tracked changes, comments, formatting preservation, and text extraction. When Claude needs to work with professional documents (.docx files) for: (1) Creating new documents, (2) Modifying or editing content, (3) Working with tracked changes, (4) Adding comments, or any other document tasks";
const BRAND =
  "Applies the company's official brand colors and typography to any sort of artifact that may benefit from its look-and-feel. Use it when brand colors or style guidelines, visual formatting, or company design standards apply.";

describe("fields derived from a bundle that carries only name and description", () => {
  it("derives trigger phrases from the when-to-use clauses, whole clauses only", () => {
    expect(deriveTriggers("docx", DOCX)).toEqual([
      "use docx",
      "work with professional documents",
      ".docx files",
      "creating new documents",
      "modifying or editing content",
      "working with tracked changes",
      "adding comments",
      "any other document tasks",
      "comprehensive document creation",
    ]);
    expect(deriveTriggers("brand-guidelines", BRAND)).toEqual([
      "brand guidelines",
      "brand colors or style guidelines",
      "visual formatting or company design standards apply",
    ]);
  });

  it("reads 'Do NOT use for …' as negative triggers, never as triggers", () => {
    const WORD =
      "Use this skill whenever the user wants to create, read, edit, or manipulate Word documents (.docx files). Do NOT use for PDFs, spreadsheets, Google Docs, or general coding tasks unrelated to document generation.";
    expect(deriveTriggers("word-docs", WORD)).toEqual(["word docs", "read edit or manipulate word documents", ".docx files"]);
    expect(deriveNegativeTriggers(WORD)).toEqual(["pdfs spreadsheets google docs", "general coding tasks unrelated to document generation"]);
    expect(whenToUseOf(WORD)).toHaveLength(1);
  });

  it("finds the when-to-use sentences", () => {
    expect(whenToUseOf(BRAND)).toEqual(["Use it when brand colors or style guidelines, visual formatting, or company design standards apply."]);
    expect(whenToUseOf(DOCX)[0]).toMatch(/^When Claude needs to work with professional documents/);
  });

  it("keeps a summary within 500 characters, cut after whole sentences", () => {
    const long = `${"First sentence says what it does. ".repeat(20)}`;
    const summary = summaryOf(long);
    expect(summary.length).toBeLessThanOrEqual(500);
    expect(summary.endsWith("does.")).toBe(true);
    expect(summaryOf("Short one.")).toBe("Short one.");
  });

  it("titles from the first heading, else from the name with its acronyms", () => {
    expect(titleOf("pdf-form-filler", "Intro\n\n# Fill PDF forms\n")).toBe("Fill PDF forms");
    expect(titleOf("pdf-form-filler", "no heading")).toBe("PDF Form Filler");
  });
});
