import { afterEach, describe, expect, it } from "vitest";
import { diffMemoryTrees, readMemoryTree } from "../test-support/adversarial/memory-tree";
import { createFakeClock, expectError, startTestAgent, type TestAgent } from "../test-support/test-agent";
import { buildTestZip } from "../test-support/test-zip";
import { publicBundle, uploadThrough } from "../test-support/skill-bundles";

/** Import Skill: hostile bundles, wrong uploads and malformed multipart bodies are refused with a coded error and change nothing. */

let agent: TestAgent;
afterEach(async () => agent?.close());

async function boot() {
  agent = await startTestAgent({ clock: createFakeClock() });
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
