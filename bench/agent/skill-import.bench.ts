import { randomBytes } from "node:crypto";
import { agentLoggerOptions, buildApp } from "../../agent/app/app";
import { openMemoryStore } from "../../agent/memory/memory-store";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { readBundleArchive } from "../../agent/skill-import/bundle-reader";
import { multipartBody } from "../../agent/test-support/skill-bundles";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { zipFolder } from "../../agent/test-support/test-zip";
import type { BenchResult } from "../bench-result";

const BUNDLES = 17;
const FILES_PER_BUNDLE = 24;

/**
 * Import Skill (issue #20) on a set shaped like the held-out public bundles: 17 bundles, about 400
 * files and 10 MB (long descriptions, references, scripts with the executable bit, binary assets
 * that do not compress). Each goes upload → scan → stage → install privately through the HTTP
 * routes. Baseline, same run: only reading and checking the same archives with yauzl.
 */
function bundle(index: number): Buffer {
  const name = `public-skill-${String(index).padStart(2, "0")}`;
  const files: Record<string, string | Buffer | { data: string | Buffer; mode: number }> = {
    "SKILL.md": `---\nname: ${name}\ndescription: "Works with report number ${index}: reads it, checks its tables and writes a summary. Use when the user asks to summarise report ${index}, check its tables, or compare it with last quarter. ${"It keeps the original file unchanged. ".repeat(12)}"\nlicense: Apache-2.0\n---\n# Report ${index}\n\nSee references/GUIDE-0.md.\n`,
    "scripts/run.py": { data: "#!/usr/bin/env python3\nprint('run')\n", mode: 0o100755 },
    "scripts/__init__.py": "",
  };
  for (let file = 0; files && Object.keys(files).length < FILES_PER_BUNDLE - 4; file++)
    files[`references/GUIDE-${file}.md`] = `# Guide ${file}\n\n${"Some reference text about the report. ".repeat(40)}\n`;
  for (let asset = 0; asset < 4; asset++) files[`assets/asset-${asset}.bin`] = randomBytes(150_000);
  return zipFolder(name, files);
}

export async function benchSkillImport(): Promise<BenchResult[]> {
  const zips = Array.from({ length: BUNDLES }, (_, index) => bundle(index));
  const totalBytes = zips.reduce((sum, zip) => sum + zip.length, 0);
  const started = performance.now();
  let files = 0;
  for (const zip of zips) files += (await readBundleArchive(zip)).files.length;
  const readOnly = performance.now() - started;

  const { root, cleanup } = await makeTempMemoryRoot("elnor-bench-import-");
  const memory = await openMemoryStore({ root });
  const app = await buildApp({ memory, port: 47999, logger: agentLoggerOptions("silent") });
  await app.ready();
  const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
  const headers = { host: "127.0.0.1:47999", authorization: `Bearer ${token}` };
  const post = async (url: string, payload: Record<string, unknown>) =>
    (await app.inject({ method: "POST", url, headers, payload })).json() as { import_record: { import_id: string; stage_state: string } };
  try {
    const begin = performance.now();
    let installed = 0;
    for (const [index, zip] of zips.entries()) {
      const { payload, contentType } = await multipartBody({ name: `bundle-${index}.zip`, type: "application/zip", bytes: zip });
      const uploaded = (
        await app.inject({ method: "POST", url: "/api/skills/import/uploads", headers: { ...headers, "content-type": contentType }, payload })
      ).json() as { temp_artifact: { temp_artifact_ref: string } };
      const scanned = await post("/api/skills/import/scan", {
        source: "anthropic_bundle",
        temp_artifact_ref: uploaded.temp_artifact.temp_artifact_ref,
        schema_version: 1,
      });
      await post("/api/skills/import/stage", { import_id: scanned.import_record.import_id, schema_version: 1 });
      const done = await post("/api/skills/import/install-private", { import_id: scanned.import_record.import_id, schema_version: 1 });
      if (done.import_record.stage_state === "installed_private") installed += 1;
    }
    const whole = performance.now() - begin;
    const perBundle = whole / BUNDLES;
    console.error(
      `skill import: ${BUNDLES} bundles, ${files} files, ${(totalBytes / 1024 / 1024).toFixed(1)} MB zipped, ${installed} installed in ${(whole / 1000).toFixed(2)} s`,
    );
    return [
      {
        name: `import ${BUNDLES} bundles (${files} files, ${(totalBytes / 1024 / 1024).toFixed(1)} MB): upload → scan → stage → install, per bundle`,
        value: perBundle,
        unit: "ms",
        baselineName: "yauzl read and check only",
        baseline: readOnly / BUNDLES,
        target: "≤ 2000 ms per bundle, all installed",
        pass: perBundle <= 2000 && installed === BUNDLES,
      },
    ];
  } finally {
    await app.close();
    await memory.close();
    await cleanup();
  }
}
