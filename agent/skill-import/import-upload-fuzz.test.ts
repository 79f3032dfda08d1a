import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODE_TABLE } from "../../shared/common/error-codes";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { diffMemoryTrees, readMemoryTree } from "../test-support/adversarial/memory-tree";
import { startTestAgent, type TestAgent } from "../test-support/test-agent";
import { buildTestZip } from "../test-support/test-zip";
import { publicBundle } from "../test-support/skill-bundles";
import { readBundleArchive } from "./bundle-reader";

/**
 * The upload route is multipart, which the route fuzzer (JSON bodies from the OpenAPI list) does
 * not reach: here random multipart bodies and damaged zips. Every answer is a 200 or a coded
 * envelope whose status is its code's row; nothing is a 5xx; a refusal changes nothing.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25) * 4;
/** `FUZZ_SEED=<seed>` replays a run fast-check reported. */
const seeded = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) };
const GOOD = publicBundle();
const SMALL = buildTestZip([
  { name: "s/SKILL.md", data: "---\nname: small-one\ndescription: Does a small thing. Use when asked.\n---\n# Small\n" },
  { name: "s/run.sh", data: "#!/bin/sh\n", mode: 0o100755 },
]);

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(async () => agent?.close());

/** A zip with bytes flipped or cut: what a damaged download or a crafted archive looks like. */
const damagedZip = fc
  .tuple(
    fc.constantFrom(GOOD, SMALL),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
    fc.option(fc.nat(), { nil: undefined }),
  )
  .map(([zip, flips, cut]) => {
    const bytes = Buffer.from(zip);
    for (const [at, value] of flips) bytes[at % bytes.length] = value;
    return cut === undefined ? bytes : bytes.subarray(0, cut % bytes.length);
  });

const randomPart = fc.record({
  name: fc.constantFrom("bundle", "metadata", "other", 'bundle"; filename="x.zip'),
  filename: fc.option(fc.constantFrom("a.zip", "a.skillbundle.zip", "SKILL.md", "a.tar", "../../a.zip", "a\u0000.zip", ""), { nil: undefined }),
  type: fc.option(fc.constantFrom("application/zip", "application/octet-stream", "text/markdown", "image/png", ""), { nil: undefined }),
  body: fc.oneof(
    damagedZip,
    fc.constant(SMALL),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.json().map((text) => Buffer.from(text)),
  ),
});
/** A well-formed bundle part, its zip intact or damaged, so uploads are accepted often enough to check that branch too. */
const bundlePart = fc.record({
  name: fc.constant("bundle"),
  filename: fc.constantFrom("a.zip", "a.skillbundle.zip"),
  type: fc.constantFrom("application/zip", "application/octet-stream"),
  body: fc.oneof(fc.constant(SMALL), damagedZip),
});
const part = fc.oneof(randomPart, bundlePart);

function multipart(
  parts: Array<{ name: string; filename: string | undefined; type: string | undefined; body: Buffer }>,
  boundary: string,
  truncate: number | undefined,
): Buffer {
  const chunks: Buffer[] = [];
  for (const item of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${item.name}"${item.filename === undefined ? "" : `; filename="${item.filename}"`}\r\n${item.type === undefined ? "" : `Content-Type: ${item.type}\r\n`}\r\n`,
      ),
      item.body,
      Buffer.from("\r\n"),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const whole = Buffer.concat(chunks);
  return truncate === undefined ? whole : whole.subarray(0, truncate % (whole.length + 1));
}

describe("upload fuzzing: random multipart bodies and damaged zips", () => {
  it("reads a damaged zip to a coded refusal or to files, never to a crash", async () => {
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(damagedZip, async (bytes) => {
        let outcome = "read";
        try {
          await readBundleArchive(bytes);
        } catch (error) {
          outcome = (error as { code?: string }).code ?? String(error);
          expect(["SKILL_IMPORT_ARCHIVE_UNSAFE", "SKILL_IMPORT_ARCHIVE_REQUIRED"]).toContain(outcome);
        }
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }),
      { numRuns: RUNS * 4, ...seeded },
    );
    // The damage reached the reader both ways: some archives still read, others were refused.
    expect([...outcomes.keys()].sort()).toEqual(["SKILL_IMPORT_ARCHIVE_REQUIRED", "SKILL_IMPORT_ARCHIVE_UNSAFE", "read"]);
  });

  it("answers every upload with 200 or a coded envelope, scans what it accepted, and a refusal changes nothing", async () => {
    let before = readMemoryTree(agent.memory.root);
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(part, { minLength: 0, maxLength: 4 }),
        fc.constantFrom("b0undary", "----x", "a".repeat(70)),
        fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: fc.nat(), weight: 1 }),
        async (parts, boundary, truncate) => {
          const response = await agent.app.inject({
            method: "POST",
            url: "/api/skills/import/uploads",
            headers: agent.headers({ "content-type": `multipart/form-data; boundary=${boundary}` }),
            payload: multipart(parts, boundary, truncate),
          });
          const after = readMemoryTree(agent.memory.root);
          const what = `${response.statusCode} ${response.body.slice(0, 300)}`;
          statuses.add(response.statusCode);
          try {
            expect(response.statusCode, what).toBeLessThan(500);
            if (response.statusCode >= 300) {
              const envelope = ApiErrorResponseSchema.parse(JSON.parse(response.body));
              expect(ERROR_CODE_TABLE[envelope.error.code as keyof typeof ERROR_CODE_TABLE]?.http, what).toBe(response.statusCode);
              expect(diffMemoryTrees(before, after), what).toEqual([]);
            } else {
              const uploaded = JSON.parse(response.body) as { accepted: boolean; temp_artifact: { temp_artifact_ref: string } };
              expect(uploaded.accepted, what).toBe(true);
              // Whatever was accepted scans to an answer, never to a crash or a record stuck in scanning.
              const scanned = await agent.call("POST", "/api/skills/import/scan", {
                source: "manual_upload",
                temp_artifact_ref: uploaded.temp_artifact.temp_artifact_ref,
                schema_version: 1,
              });
              expect(scanned.status, JSON.stringify(scanned.body).slice(0, 300)).toBe(200);
              expect(["scan_complete", "scan_failed"]).toContain(scanned.body.import_record.stage_state);
            }
          } finally {
            before = readMemoryTree(agent.memory.root);
          }
        },
      ),
      // A well-formed upload and an empty one first: both branches below are checked whatever the
      // random runs draw (a run that drew no accepted upload failed the check after it once).
      {
        numRuns: RUNS,
        ...seeded,
        examples: [
          [[{ name: "bundle", filename: "a.zip", type: "application/zip", body: SMALL }], "b0undary", undefined],
          [[], "b0undary", undefined],
        ],
      },
    );
    // Both accepted uploads and refusals were produced, so both branches above were checked.
    expect(statuses.has(200)).toBe(true);
    expect([...statuses].some((status) => status >= 400)).toBe(true);
  });
});
