import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { validate as validateAgentSkill } from "skills-ref";
import { afterEach, describe, expect, it } from "vitest";
import { SkillImportReceiptSchema } from "../../shared/skills/import-bundle";
import { diffMemoryTrees, readMemoryTree } from "../test-support/adversarial/memory-tree";
import { createFakeClock, expectError, startTestAgent, type FakeClock, type TestAgent } from "../test-support/test-agent";
import { buildTestZip, zipFolder } from "../test-support/test-zip";
import { FONT_BYTES, PUBLIC_DESCRIPTION, publicBundle, stageThrough, uploadThrough } from "../test-support/skill-bundles";

let agent: TestAgent;
let clock: FakeClock;
afterEach(async () => agent?.close());

async function boot() {
  clock = createFakeClock();
  agent = await startTestAgent({ clock });
}

const workspaceSkill = (name: string) => path.join(agent.memory.root, "openclaw-workspace", "skills", name);

async function receiptKinds(): Promise<string[]> {
  return (await agent.memory.readJsonl("system/skills/import/receipts.jsonl", SkillImportReceiptSchema)).map((receipt) => receipt.receipt_kind);
}

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

async function stageOrScan(bytes: Buffer): Promise<{ importId: string; state: string; findings: Array<Record<string, unknown>> }> {
  const uploaded = await uploadThrough(agent, { name: "b.zip", bytes });
  const scanned = await agent.call("POST", "/api/skills/import/scan", {
    source: "manual_upload",
    temp_artifact_ref: uploaded.body.temp_artifact.temp_artifact_ref,
    schema_version: 1,
  });
  return {
    importId: scanned.body.import_record.import_id,
    state: scanned.body.import_record.stage_state,
    findings: scanned.body.compatibility_report.findings,
  };
}

describe("Import Skill: refusals change nothing", () => {
  const SKILL = "---\nname: x-skill\ndescription: Does x. Use when asked to do x.\n---\n# X\n";
  const hostile: Array<[string, () => Buffer, string]> = [
    [
      "path traversal",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "../../../outside.txt", data: "x" },
        ]),
      "SKILL_IMPORT_ARCHIVE_UNSAFE",
    ],
    [
      "a symlink",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "passwd", data: "/etc/passwd", mode: 0o120777 },
        ]),
      "SKILL_IMPORT_ARCHIVE_UNSAFE",
    ],
    ["an absolute path", () => buildTestZip([{ name: "/tmp/evil.sh", data: "x" }]), "SKILL_IMPORT_ARCHIVE_UNSAFE"],
    ["10,000 entries", () => buildTestZip(Array.from({ length: 10_000 }, (_, index) => ({ name: `f${index}`, data: "" }))), "SKILL_IMPORT_ARCHIVE_UNSAFE"],
    [
      "a high compression ratio",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "z.bin", data: Buffer.alloc(30 * 1024 * 1024) },
        ]),
      "SKILL_IMPORT_ARCHIVE_UNSAFE",
    ],
    [
      "a 2 GB declared size",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "big", data: "tiny", declaredSize: 2 ** 31, deflate: true },
        ]),
      "SKILL_IMPORT_ARCHIVE_UNSAFE",
    ],
    [
      "duplicate names",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "SKILL.md", data: SKILL },
        ]),
      "SKILL_IMPORT_ARCHIVE_UNSAFE",
    ],
    [
      "a non-UTF-8 name",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: Buffer.from([0x66, 0xff, 0xfe]), data: "x", utf8Flag: false },
        ]),
      "SKILL_IMPORT_ARCHIVE_UNSAFE",
    ],
    ["bytes that are not a zip", () => Buffer.from("PK but not really"), "SKILL_IMPORT_ARCHIVE_REQUIRED"],
  ];

  it.each(hostile)("refuses %s at upload with a coded error, ELNOR_MEMORY byte-identical", async (_name, build, code) => {
    await boot();
    const before = readMemoryTree(agent.memory.root);
    const answer = await uploadThrough(agent, { name: "evil.zip", bytes: build() });
    expectError(answer, 400, code);
    expect(diffMemoryTrees(before, readMemoryTree(agent.memory.root))).toEqual([]);
  });

  it("refuses a wrong extension, a wrong MIME type, a body that is not multipart and a bundle over 100 MB", async () => {
    await boot();
    const before = readMemoryTree(agent.memory.root);
    expectError(await uploadThrough(agent, { name: "bundle.tar.gz", bytes: publicBundle() }), 415, "SKILL_IMPORT_UNSUPPORTED_EXTENSION");
    expectError(await uploadThrough(agent, { name: "bundle.zip", type: "image/png", bytes: publicBundle() }), 415, "SKILL_IMPORT_UNSUPPORTED_MIME");
    expectError(await agent.call("POST", "/api/skills/import/uploads", { bundle: "x" }), 400, "SKILL_IMPORT_ARCHIVE_REQUIRED");
    expectError(await uploadThrough(agent, { name: "huge.zip", bytes: Buffer.alloc(100 * 1024 * 1024 + 1) }), 413, "SKILL_IMPORT_FILE_TOO_LARGE");
    expect(diffMemoryTrees(before, readMemoryTree(agent.memory.root))).toEqual([]);
  });
});

describe("Import Skill: malformed multipart uploads", () => {
  async function rawUpload(parts: Array<{ name: string; filename?: string; type?: string; body: string | Buffer }>) {
    const boundary = "----elnorTestBoundary";
    const chunks: Buffer[] = [];
    for (const part of parts) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${part.filename === undefined ? "" : `; filename="${part.filename}"`}\r\n${part.type === undefined ? "" : `Content-Type: ${part.type}\r\n`}\r\n`,
        ),
      );
      chunks.push(Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body));
      chunks.push(Buffer.from("\r\n"));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    const response = await agent.app.inject({
      method: "POST",
      url: "/api/skills/import/uploads",
      headers: agent.headers({ "content-type": `multipart/form-data; boundary=${boundary}` }),
      payload: Buffer.concat(chunks),
    });
    return { status: response.statusCode, body: response.json() as Record<string, any> };
  }

  it("answers each with a coded error and keeps ELNOR_MEMORY as it was", async () => {
    await boot();
    const zip = publicBundle();
    const before = readMemoryTree(agent.memory.root);
    expectError(
      await rawUpload([
        { name: "bundle", filename: "a.zip", type: "application/zip", body: zip },
        { name: "bundle", filename: "b.zip", type: "application/zip", body: zip },
      ]),
      400,
      "REQUEST_INVALID",
    );
    expectError(await rawUpload([{ name: "file", filename: "a.zip", type: "application/zip", body: zip }]), 400, "REQUEST_INVALID");
    // Found by the upload fuzzer: bytes typed application/octet-stream without a file name are a "file" to the parser.
    expectError(await rawUpload([{ name: "bundle", type: "application/octet-stream", body: zip }]), 415, "SKILL_IMPORT_UNSUPPORTED_EXTENSION");
    expectError(
      await rawUpload([
        { name: "metadata", body: "{not json" },
        { name: "bundle", filename: "a.zip", type: "application/zip", body: zip },
      ]),
      400,
      "REQUEST_INVALID",
    );
    expectError(
      await rawUpload([
        { name: "metadata", body: JSON.stringify({ source: "somewhere", schema_version: 1 }) },
        { name: "bundle", filename: "a.zip", type: "application/zip", body: zip },
      ]),
      400,
      "REQUEST_INVALID",
    );
    expectError(await rawUpload([{ name: "metadata", body: JSON.stringify({ schema_version: 1 }) }]), 400, "SKILL_IMPORT_ARCHIVE_REQUIRED");
    expectError(await rawUpload([{ name: "bundle", filename: "a.zip", type: "application/zip", body: Buffer.alloc(0) }]), 400, "SKILL_IMPORT_ARCHIVE_REQUIRED");
    expect(diffMemoryTrees(before, readMemoryTree(agent.memory.root))).toEqual([]);
  });
});

describe("Import Skill: the state machine, retries, expiry and idempotency", () => {
  it("approves a staged import into the workspace lane, where the default lookup finds it", async () => {
    await boot();
    const importId = await stageThrough(agent, publicBundle());
    const approved = await agent.call("POST", "/api/skills/import/approve", { import_id: importId, approval_note: "Reviewed the scripts", schema_version: 1 });
    expect(approved.body.import_record.stage_state).toBe("approved");
    expect((await agent.call("GET", `/api/skills/import/${importId}`)).body.ability_id).toBe("imported.pdf-form-filler");
    const lookup = await agent.call("POST", "/api/abilities/lookup", { user_query: "fill in a pdf form", schema_version: 1 });
    expect(lookup.body.matches[0]).toMatchObject({ ability_id: "imported.pdf-form-filler", install_lane: "approved_workspace" });
    expect(await receiptKinds()).toContain("skill.import.approved");
    expectError(await agent.call("POST", "/api/skills/import/discard", { import_id: importId, schema_version: 1 }), 409, "INVALID_SKILL_IMPORT_TRANSITION");
  });

  it("answers a repeated client_request_id with the first answer and makes one import", async () => {
    await boot();
    const uploaded = await uploadThrough(agent, { name: "b.zip", bytes: publicBundle() }, { client_request_id: "up-1", schema_version: 1 });
    const again = await uploadThrough(agent, { name: "b.zip", bytes: publicBundle() }, { client_request_id: "up-1", schema_version: 1 });
    expect(again.body).toEqual(uploaded.body);
    const scan = { source: "manual_upload", temp_artifact_ref: uploaded.body.temp_artifact.temp_artifact_ref, client_request_id: "scan-1", schema_version: 1 };
    const first = await agent.call("POST", "/api/skills/import/scan", scan);
    const second = await agent.call("POST", "/api/skills/import/scan", scan);
    expect(second.body).toEqual(first.body);
    expect((await agent.call("GET", "/api/skills/import/list")).body.total).toBe(1);
  });

  it("fails the scan, rather than leaving it scanning, when the stored upload was damaged on disk", async () => {
    await boot();
    const uploaded = await uploadThrough(agent, { name: "b.zip", bytes: publicBundle() });
    const ref = uploaded.body.temp_artifact.temp_artifact_ref as string;
    await agent.memory.writeBytes(`system/skills/import/uploads/${ref}.bin`, Buffer.from("damaged"));
    const scanned = await agent.call("POST", "/api/skills/import/scan", { source: "manual_upload", temp_artifact_ref: ref, schema_version: 1 });
    expect(scanned.body.import_record).toMatchObject({ stage_state: "scan_failed", last_error_code: "SKILL_IMPORT_ARCHIVE_REQUIRED" });
  });

  it("refuses moves the graph does not have, with INVALID_SKILL_IMPORT_TRANSITION", async () => {
    await boot();
    const importId = await stageThrough(agent, publicBundle());
    expectError(await agent.call("POST", "/api/skills/import/stage", { import_id: importId, schema_version: 1 }), 409, "INVALID_SKILL_IMPORT_TRANSITION");
    expectError(
      await agent.call("POST", "/api/skills/import/retry", { import_id: importId, retry_kind: "scan", schema_version: 1 }),
      409,
      "INVALID_SKILL_IMPORT_TRANSITION",
    );
    const rejected = await agent.call("POST", "/api/skills/import/reject", { import_id: importId, reason: "Not needed", schema_version: 1 });
    expect(rejected.body.import_record.stage_state).toBe("rejected");
    expectError(
      await agent.call("POST", "/api/skills/import/install-private", { import_id: importId, schema_version: 1 }),
      409,
      "INVALID_SKILL_IMPORT_TRANSITION",
    );
    expectError(await agent.call("GET", "/api/skills/import/8d3f7c55-1b7a-4c8e-9a51-2f0d9b7e4c11"), 404, "SKILL_IMPORT_NOT_FOUND");
  });

  it("retries a failed scan, and says retry_limit_reached after three failed retries", async () => {
    await boot();
    await agent.call("POST", "/api/skills/import/install-private", { import_id: await stageThrough(agent, publicBundle()), schema_version: 1 });
    const { importId, state } = await stageOrScan(publicBundle());
    expect(state).toBe("scan_failed");
    for (let attempt = 1; attempt <= 3; attempt++) {
      const retried = await agent.call("POST", "/api/skills/import/retry", {
        import_id: importId,
        retry_kind: "scan",
        client_request_id: `r-${attempt}`,
        schema_version: 1,
      });
      expect(retried.body.import_record).toMatchObject({ stage_state: "scan_failed", retry_count: attempt, last_error_code: "NAME_COLLISION" });
      // The same request again is the same retry, not a fourth.
      await agent.call("POST", "/api/skills/import/retry", { import_id: importId, retry_kind: "scan", client_request_id: `r-${attempt}`, schema_version: 1 });
      const warnings = (await agent.call("GET", `/api/skills/import/${importId}`)).body.warnings as string[];
      expect(warnings.some((warning) => warning.startsWith("retry_limit_reached"))).toBe(attempt === 3);
    }
  });

  it("warns upload_expiring_soon under two hours left, then refuses an expired upload", async () => {
    await boot();
    const uploaded = await uploadThrough(agent, { name: "b.zip", bytes: publicBundle() });
    const ref = uploaded.body.temp_artifact.temp_artifact_ref as string;
    const scanned = await agent.call("POST", "/api/skills/import/scan", { source: "manual_upload", temp_artifact_ref: ref, schema_version: 1 });
    const importId = scanned.body.import_record.import_id as string;
    clock.advance(23 * 60 * 60 * 1000);
    expect((await agent.call("GET", `/api/skills/import/${importId}`)).body.warnings).toEqual([
      expect.stringMatching(/^upload_expiring_soon: the upload expires in 60 minutes/),
    ]);
    clock.advance(61 * 60 * 1000);
    expectError(
      await agent.call("POST", "/api/skills/import/scan", { source: "manual_upload", staged_upload_ref: ref, schema_version: 1 }),
      410,
      "SKILL_IMPORT_UPLOAD_EXPIRED",
    );
    const staged = await agent.call("POST", "/api/skills/import/stage", { import_id: importId, schema_version: 1 });
    expect(staged.body.import_record).toMatchObject({ stage_state: "stage_failed", last_error_code: "SKILL_IMPORT_UPLOAD_EXPIRED" });
    await agent.call("GET", "/api/skills/import/list");
    expectError(await agent.call("DELETE", `/api/skills/import/uploads/${ref}`), 404, "SKILL_IMPORT_UPLOAD_NOT_FOUND");
  });

  it("deletes an upload, discards a scanned import, and lists the packs", async () => {
    await boot();
    const uploaded = await uploadThrough(agent, { name: "b.zip", bytes: publicBundle() });
    const ref = uploaded.body.temp_artifact.temp_artifact_ref as string;
    expect((await agent.call("DELETE", `/api/skills/import/uploads/${ref}`)).body).toEqual({ deleted: true, temp_artifact_ref: ref, schema_version: 1 });
    expectError(
      await agent.call("POST", "/api/skills/import/scan", { source: "manual_upload", temp_artifact_ref: ref, schema_version: 1 }),
      404,
      "SKILL_IMPORT_UPLOAD_NOT_FOUND",
    );
    const { importId } = await stageOrScan(publicBundle());
    expectError(
      await agent.call("POST", "/api/skills/import/stage", { import_id: importId, requested_pack_id: "nope", schema_version: 1 }),
      404,
      "SKILL_PACK_NOT_FOUND",
    );
    expect((await agent.call("POST", "/api/skills/import/discard", { import_id: importId, schema_version: 1 })).body.import_record.stage_state).toBe(
      "discarded",
    );
    expect(await receiptKinds()).toContain("skill.import.discarded");
    const packs = (await agent.call("GET", "/api/skills/packs")).body.packs as Array<{ pack_id: string }>;
    expect(packs.map((pack) => pack.pack_id)).toEqual(["agent-skills", "elnor-learned", "openclaw"]);
  });
});
