import { describe, expect, it } from "vitest";
import { buildTestZip, zipFolder } from "../test-support/test-zip";
import { readBundleArchive } from "./bundle-reader";

const SKILL = "---\nname: pdf-forms\ndescription: Fill PDF forms. Use when the user asks to fill in a PDF form.\n---\n# PDF forms\n";

async function refusal(bytes: Buffer): Promise<{ code: string; message: string }> {
  try {
    await readBundleArchive(bytes);
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("the archive was accepted");
}

describe("reading a skill bundle archive", () => {
  it("keeps every file byte for byte, binary included, with executable bits and nested folders", async () => {
    const font = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256));
    const zip = zipFolder("pdf-forms", {
      "SKILL.md": SKILL,
      "scripts/fill.py": { data: "#!/usr/bin/env python3\nprint('fill')\n", mode: 0o100755 },
      "scripts/__init__.py": "",
      "assets/font.ttf": font,
      "references/FORMS.md": "# Forms\n",
    });
    const archive = await readBundleArchive(zip);
    expect(archive.files.map((file) => file.path)).toEqual([
      "pdf-forms/SKILL.md",
      "pdf-forms/scripts/fill.py",
      "pdf-forms/scripts/__init__.py",
      "pdf-forms/assets/font.ttf",
      "pdf-forms/references/FORMS.md",
    ]);
    expect(archive.files.find((file) => file.path.endsWith("font.ttf"))?.bytes.equals(font)).toBe(true);
    expect(archive.files.find((file) => file.path.endsWith("fill.py"))).toMatchObject({ executable: true, mode: 0o755 });
    expect(archive.files.find((file) => file.path.endsWith("SKILL.md"))?.executable).toBe(false);
  });

  it("leaves out folder entries and archiver litter, and says so", async () => {
    const archive = await readBundleArchive(
      buildTestZip([
        { name: "s/", mode: 0o040755 },
        { name: "s/SKILL.md", data: SKILL },
        { name: "__MACOSX/s/._SKILL.md", data: "x" },
        { name: "s/.DS_Store", data: "x" },
      ]),
    );
    expect(archive.files.map((file) => file.path)).toEqual(["s/SKILL.md"]);
    expect(archive.skipped).toEqual(["s/", "__MACOSX/s/._SKILL.md", "s/.DS_Store"]);
  });

  const hostile: Array<[string, () => Buffer, RegExp]> = [
    [
      "path traversal",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "../../outside.txt", data: "x" },
        ]),
      /climbs out/,
    ],
    [
      "traversal inside a folder",
      () =>
        buildTestZip([
          { name: "s/SKILL.md", data: SKILL },
          { name: "s/a/../../../x", data: "x" },
        ]),
      /climbs out/,
    ],
    ["an absolute path", () => buildTestZip([{ name: "/etc/cron.d/evil", data: "x" }]), /absolute path/],
    ["a drive-letter path", () => buildTestZip([{ name: "C:/Windows/evil.dll", data: "x" }]), /absolute path/],
    ["a backslash path", () => buildTestZip([{ name: "..\\..\\evil", data: "x" }]), /backslash/],
    [
      "a symlink",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "link", data: "/etc/passwd", mode: 0o120777 },
        ]),
      /symbolic link/,
    ],
    ["10,000 entries", () => buildTestZip(Array.from({ length: 10_000 }, (_, index) => ({ name: `f${index}.txt`, data: "x" }))), /10000 entries/],
    [
      "a high compression ratio",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "zeros.bin", data: Buffer.alloc(20 * 1024 * 1024) },
        ]),
      /zip bomb/,
    ],
    [
      "a 2 GB declared size",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "big.bin", data: "small", declaredSize: 2 * 1024 * 1024 * 1024, deflate: true },
        ]),
      /declares 2147483648 bytes/,
    ],
    [
      "a declared size smaller than the data",
      () => buildTestZip([{ name: "SKILL.md", data: "x".repeat(5000), declaredSize: 10, deflate: true }]),
      /damaged|size/,
    ],
    [
      "duplicate names",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "SKILL.md", data: "---\nname: evil\n---\n" },
        ]),
      /twice/,
    ],
    [
      "names differing only in case",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: "skill.md", data: "x" },
        ]),
      /only in case/,
    ],
    [
      "a non-UTF-8 name",
      () =>
        buildTestZip([
          { name: "SKILL.md", data: SKILL },
          { name: Buffer.from([0x72, 0xe9, 0x73, 0x75, 0x6d, 0xe9, 0x2e, 0x6d, 0x64]), data: "x", utf8Flag: false },
        ]),
      /not UTF-8/,
    ],
    ["a control character in a name", () => buildTestZip([{ name: "a\u0001b", data: "x" }]), /control characters/],
  ];

  it.each(hostile)("refuses %s with SKILL_IMPORT_ARCHIVE_UNSAFE and says why", async (_name, build, reason) => {
    const error = await refusal(build());
    expect(error.code).toBe("SKILL_IMPORT_ARCHIVE_UNSAFE");
    expect(error.message).toMatch(reason);
  });

  it("refuses what is not a zip with SKILL_IMPORT_ARCHIVE_REQUIRED", async () => {
    expect((await refusal(Buffer.from("not a zip at all, just text"))).code).toBe("SKILL_IMPORT_ARCHIVE_REQUIRED");
  });
});
