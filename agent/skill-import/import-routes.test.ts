import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { validate as validateAgentSkill } from "skills-ref";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeClock, startTestAgent, type TestAgent } from "../test-support/test-agent";
import { zipFolder } from "../test-support/test-zip";
import { FONT_BYTES, PUBLIC_DESCRIPTION, importReceiptKinds, publicBundle, scanThrough, stageThrough, uploadThrough } from "../test-support/skill-bundles";

/**
 * Import Skill through the routes with bundles as people publish them. Refusals and malformed uploads:
 * `import-refusals.test.ts`; the state machine, retries, expiry and idempotency: `import-states.test.ts`.
 */

let agent: TestAgent;
afterEach(async () => agent?.close());

async function boot() {
  agent = await startTestAgent({ clock: createFakeClock() });
}

const workspaceSkill = (name: string) => path.join(agent.memory.root, "openclaw-workspace", "skills", name);
const receiptKinds = () => importReceiptKinds(agent);
const stageOrScan = (bytes: Buffer) => scanThrough(agent, bytes);

describe("Import Skill: a bundle as people publish it", () => {
  it("uploads, scans in words, stages, passes a trigger test, installs privately, and is found by lookup", async () => {
    await boot();
    const uploaded = await uploadThrough(agent, { name: "pdf-form-filler.zip", bytes: publicBundle() }, { source: "anthropic_bundle", schema_version: 1 });
    expect(uploaded.status).toBe(200);
    const artifact = uploaded.body.temp_artifact;
    expect(artifact).toMatchObject({ artifact_kind: "skill_bundle_zip", original_filename: "pdf-form-filler.zip", byte_size: publicBundle().length });
    expect(new Date(artifact.expires_at).getTime() - new Date(artifact.created_at).getTime()).toBe(24 * 60 * 60 * 1000);

    const scanned = await agent.call("POST", "/api/skills/import/scan", {
      source: "anthropic_bundle",
      temp_artifact_ref: artifact.temp_artifact_ref,
      schema_version: 1,
    });
    expect(scanned.status).toBe(200);
    expect(scanned.body.import_record).toMatchObject({ stage_state: "scan_complete", skill_name: "pdf-form-filler", source: "anthropic_bundle" });
    const report = scanned.body.compatibility_report;
    expect(report.compatible).toBe(true);
    const codes = report.findings.map((finding: { code: string }) => finding.code);
    // Every script is listed and flagged (the executable bit, a .py), the dependency file noted, what was derived said.
    expect(
      report.findings
        .filter((finding: { code: string }) => finding.code === "EXECUTABLE_FILE")
        .map((finding: { path_hint: string }) => finding.path_hint)
        .sort(),
    ).toEqual(["scripts/__init__.py", "scripts/fill_form.py", "scripts/lib/fields.py"]);
    expect(codes).toEqual(expect.arrayContaining(["DEPENDENCY_DECLARED", "FIELDS_DERIVED"]));
    expect(codes).not.toContain("LINK_MISSING");

    const importId = scanned.body.import_record.import_id as string;
    const detail = (await agent.call("GET", `/api/skills/import/${importId}`)).body;
    expect(detail.bundle).toMatchObject({ format: "agent_skills", skill_name: "pdf-form-filler", description: PUBLIC_DESCRIPTION.trim() });
    expect(detail.bundle.files.map((file: { path: string; kind: string }) => `${file.path}:${file.kind}`)).toEqual([
      "SKILL.md:skill_md",
      "scripts/fill_form.py:script",
      "scripts/__init__.py:script",
      "scripts/lib/fields.py:script",
      "references/FIELDS.md:text",
      "assets/Inter-Regular.ttf:binary",
      "requirements.txt:text",
    ]);
    expect(detail.bundle.frontmatter.triggers).toEqual(expect.arrayContaining(["pdf form filler", "fill in a pdf form"]));
    expect(detail.bundle.frontmatter.description.length).toBeLessThanOrEqual(500);
    expect(detail.bundle.when_to_use[0]).toMatch(/^Use when the user asks to fill in a PDF form/);

    const staged = await agent.call("POST", "/api/skills/import/stage", { import_id: importId, schema_version: 1 });
    expect(staged.body.import_record).toMatchObject({ stage_state: "ready_for_review", source_ref_kind: "materialized_bundle", skill_pack: "agent-skills" });
    expect(staged.body.materialized_bundle_ref).toBe(`system/skills/import/staged/${importId}`);

    const tested = await agent.call("POST", "/api/skills/trigger-test", {
      import_id: importId,
      trigger_text: "please fill in this PDF form for me",
      schema_version: 1,
    });
    expect(tested.body).toMatchObject({ matched: true, candidate_import_id: importId });
    expect(tested.body.reasons.join(" ")).toContain("form");
    const unrelated = await agent.call("POST", "/api/skills/trigger-test", {
      import_id: importId,
      trigger_text: "book a table for two tonight",
      schema_version: 1,
    });
    expect(unrelated.body.matched).toBe(false);
    expect(unrelated.body.rejection_reasons.length).toBeGreaterThan(0);

    const installed = await agent.call("POST", "/api/skills/import/install-private", { import_id: importId, schema_version: 1 });
    expect(installed.status).toBe(200);
    expect(installed.body.import_record.stage_state).toBe("installed_private");

    // The assistant's copy: every file byte for byte, the script still executable, and a valid Agent Skills bundle.
    const folder = workspaceSkill("pdf-form-filler");
    expect(await validateAgentSkill(folder)).toEqual([]);
    expect((await readFile(path.join(folder, "assets/Inter-Regular.ttf"))).equals(FONT_BYTES)).toBe(true);
    expect((await stat(path.join(folder, "scripts/fill_form.py"))).mode & 0o111).not.toBe(0);
    expect((await stat(path.join(folder, "references/FIELDS.md"))).mode & 0o333).toBe(0);
    // The canonical copy in ELNOR_MEMORY is the archive as uploaded.
    expect((await agent.memory.readBytes("system/skills/imported/pdf-form-filler/bundle.bin"))?.equals(publicBundle())).toBe(true);

    const availability = (await agent.call("GET", "/api/abilities/availability")).body.abilities;
    expect(availability).toEqual([
      expect.objectContaining({ ability_id: "imported.pdf-form-filler", source: "imported", usable_now: true, install_lane: "experimental_private" }),
    ]);
    const lookup = await agent.call("POST", "/api/abilities/lookup", {
      user_query: "fill in a pdf form",
      install_lanes_allowed: ["experimental_private"],
      schema_version: 1,
    });
    expect(lookup.body.matches[0]).toMatchObject({ ability_id: "imported.pdf-form-filler", usable_now: true });

    expect(await receiptKinds()).toEqual([
      "skill.import.uploaded",
      "skill.import.scanned",
      "skill.import.staged",
      "skill.import.trigger_tested",
      "skill.import.trigger_tested",
      "skill.import.installed_private",
    ]);
    // Each step's receipt is in the import's detail, with the ability it installed.
    const receipts = (await agent.call("GET", `/api/skills/import/${importId}`)).body.receipts as Array<{ receipt_kind: string; ability_id?: string }>;
    expect(receipts.map((receipt) => receipt.receipt_kind)).toEqual([
      "skill.import.uploaded",
      "skill.import.scanned",
      "skill.import.staged",
      "skill.import.trigger_tested",
      "skill.import.trigger_tested",
      "skill.import.installed_private",
    ]);
    expect(receipts.at(-1)?.ability_id).toBe("imported.pdf-form-filler");
    const listed = await agent.call("GET", "/api/skills/import/list?page=1&page_size=10");
    expect(listed.body).toMatchObject({
      total: 1,
      page: 1,
      page_size: 10,
      items: [expect.objectContaining({ import_id: importId, stage_state: "installed_private" })],
    });
    // The lifecycle controls of Skills work on it like on a learned one.
    expect((await agent.call("POST", "/api/abilities/imported.pdf-form-filler/deactivate", { schema_version: 1 })).status).toBe(200);
  });

  it("accepts a single SKILL.md and a description at the format's 1,024-character limit", async () => {
    await boot();
    const description =
      `Summarise meeting notes into decisions and actions. Use when the user asks for minutes. ${"Keeps names as written. ".repeat(60)}`.slice(0, 1023) + ".";
    const markdown = Buffer.from(`---\nname: meeting-minutes\ndescription: "${description}"\n---\n# Meeting minutes\n`);
    const uploaded = await uploadThrough(agent, { name: "SKILL.md", type: "text/markdown", bytes: markdown });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.temp_artifact.artifact_kind).toBe("skill_bundle_dir");
    const scanned = await agent.call("POST", "/api/skills/import/scan", {
      source: "manual_upload",
      temp_artifact_ref: uploaded.body.temp_artifact.temp_artifact_ref,
      schema_version: 1,
    });
    expect(scanned.body.import_record.stage_state).toBe("scan_complete");
    const detail = (await agent.call("GET", `/api/skills/import/${scanned.body.import_record.import_id}`)).body;
    expect(detail.bundle.description).toHaveLength(1024);
    expect(detail.bundle.frontmatter.description.length).toBeLessThanOrEqual(500);
    expect(detail.bundle.derived.join(" ")).toMatch(/summary/);
  });

  it("accepts frontmatter as people write it: block scalars, a tools list, a top-level version, nested metadata, a name that breaks the rule", async () => {
    await boot();
    const markdown = [
      "---",
      "name: PDF Processing",
      "description: |",
      "  Extract text and tables from PDF files.",
      "  Use when the user asks to read or merge PDF documents.",
      "version: 2.1.0",
      "allowed-tools: [Read, Bash]",
      "metadata:",
      "  author: someone",
      "  tags: [pdf, documents]",
      "---",
      "# PDF Processing",
      "",
    ].join("\n");
    const scanned = await stageOrScan(zipFolder("pdf-processing", { "SKILL.md": markdown }));
    expect(scanned.state).toBe("scan_complete");
    expect(scanned.findings).toContainEqual(expect.objectContaining({ code: "NAME_DERIVED", severity: "warning" }));
    expect(scanned.findings).toContainEqual(expect.objectContaining({ code: "FRONTMATTER_FIELD_UNKNOWN", message: expect.stringContaining('"version"') }));
    const detail = (await agent.call("GET", `/api/skills/import/${scanned.importId}`)).body;
    expect(detail.bundle.skill_name).toBe("pdf-processing");
    expect(detail.bundle.frontmatter).toMatchObject({ name: "pdf-processing", allowed_tools: ["Read", "Bash"] });
    expect(detail.bundle.frontmatter.triggers).toContain("read or merge pdf documents");

    const noDescription = await stageOrScan(zipFolder("x", { "SKILL.md": "---\nname: x-skill\n---\n# X\n" }));
    expect(noDescription.state).toBe("scan_failed");
    expect(noDescription.findings).toContainEqual(expect.objectContaining({ code: "FRONTMATTER_INVALID", message: expect.stringContaining("description") }));
  });

  it("fails the scan of a description over 1,024 characters, a taken name or a secret, and says why", async () => {
    await boot();
    const tooLong = await stageOrScan(publicBundle("long-one", "x ".repeat(700)));
    expect(tooLong.findings).toContainEqual(expect.objectContaining({ code: "DESCRIPTION_TOO_LONG", severity: "error" }));
    const secret = await stageOrScan(
      zipFolder("leaky", {
        "SKILL.md": "---\nname: leaky\ndescription: Calls an API. Use when asked.\n---\n# Leaky\n",
        "config.env": `KEY=AKIA${"ABCDEFGHIJKLMNOP"}\n`,
      }),
    );
    expect(secret.state).toBe("scan_failed");
    expect(secret.findings).toContainEqual(expect.objectContaining({ code: "SECRET_SUSPECTED", path_hint: "config.env" }));
    expect(JSON.stringify(secret.findings)).not.toContain("AKIAABCDEFGHIJKLMNOP");
    await agent.call("POST", "/api/skills/import/install-private", { import_id: await stageThrough(agent, publicBundle()), schema_version: 1 });
    const taken = await stageOrScan(publicBundle());
    expect(taken.findings).toContainEqual(expect.objectContaining({ code: "NAME_COLLISION", severity: "error" }));
  });
});
