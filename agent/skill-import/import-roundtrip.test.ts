import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { validate as validateAgentSkill } from "skills-ref";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryPaths } from "../memory/memory-paths";
import { readyProposal } from "../test-support/ready-proposal";
import { startTestAgent, type TestAgent } from "../test-support/test-agent";
import { zipFolder } from "../test-support/test-zip";
import { stageThrough } from "../test-support/skill-bundles";

const agents: TestAgent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
});

async function filesOf(folder: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(folder, file)] = await readFile(file);
  }
  return out;
}

describe("importing our own exported bundle", () => {
  it("gives back the same skill: the same §0.2C SKILL.md in ELNOR_MEMORY, the same projected files, the same triggers", async () => {
    const learner = await startTestAgent();
    agents.push(learner);
    const { proposalId } = await readyProposal((...args) => learner.call(...args));
    const installed = await learner.call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(installed.status).toBe(200);
    const skill = "export-the-monthly-invoices";
    const exported = path.join(learner.memory.root, "openclaw-workspace", "skills", skill);
    expect(await validateAgentSkill(exported)).toEqual([]);
    const exportedFiles = await filesOf(exported);
    const canonical = await learner.memory.readText(`${MemoryPaths.installedSkill(skill)}/SKILL.md`);
    const snapshotOf = async (agent: TestAgent) => JSON.parse((await agent.memory.readText(MemoryPaths.availabilityCurrent)) ?? "{}").abilities[0];
    const learned = await snapshotOf(learner);

    // Someone zips the assistant's folder and imports it on another machine.
    const other = await startTestAgent();
    agents.push(other);
    const importId = await stageThrough(other, zipFolder(skill, exportedFiles), `${skill}.zip`);
    const detail = (await other.call("GET", `/api/skills/import/${importId}`)).body;
    expect(detail.bundle.format).toBe("elnor_export");
    expect(detail.bundle.derived).toEqual([]);
    expect(detail.compatibility_report.findings.map((finding: { code: string }) => finding.code)).toContain("ELNOR_EXPORT");
    expect((await other.call("POST", "/api/skills/import/install-private", { import_id: importId, schema_version: 1 })).body.import_record.stage_state).toBe(
      "installed_private",
    );

    expect(await other.memory.readText(`system/skills/imported/${skill}/SKILL.md`)).toBe(canonical);
    const projected = path.join(other.memory.root, "openclaw-workspace", "skills", skill);
    const projectedFiles = await filesOf(projected);
    expect(Object.keys(projectedFiles).sort()).toEqual(Object.keys(exportedFiles).sort());
    for (const [file, bytes] of Object.entries(exportedFiles)) expect(projectedFiles[file]?.equals(bytes), file).toBe(true);
    expect((await stat(path.join(projected, "SKILL.md"))).mode & 0o222).toBe(0);
    const imported = await snapshotOf(other);
    expect(imported).toMatchObject({
      source: "imported",
      title: learned.title,
      trigger_phrases: learned.trigger_phrases,
      negative_triggers: learned.negative_triggers,
      usable_now: true,
    });
  });
});
