import { afterEach, describe, expect, it } from "vitest";
import { createFakeClock, expectError, startTestAgent, type FakeClock, type TestAgent } from "../test-support/test-agent";
import { importReceiptKinds, publicBundle, scanThrough, stageThrough, uploadThrough } from "../test-support/skill-bundles";

/** Import Skill through the routes: the state machine, retries, expiry and idempotency. */

let agent: TestAgent;
let clock: FakeClock;
afterEach(async () => agent?.close());

async function boot() {
  clock = createFakeClock();
  agent = await startTestAgent({ clock });
}
const receiptKinds = () => importReceiptKinds(agent);
const stageOrScan = (bytes: Buffer) => scanThrough(agent, bytes);

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
