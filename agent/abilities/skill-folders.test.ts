import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryPaths } from "../memory/memory-paths";
import { readyProposal } from "../test-support/ready-proposal";
import { expectError, startTestAgent, type TestAgent } from "../test-support/test-agent";
import { publicBundle, stageThrough, uploadThrough } from "../test-support/skill-bundles";

let agent: TestAgent | undefined;
let folders: string | undefined;
afterEach(async () => {
  await agent?.close();
  if (folders !== undefined) await rm(folders, { recursive: true, force: true });
  agent = undefined;
});

async function writeSkill(folder: string, name: string, description: string, extra = "") {
  await mkdir(path.join(folder, name), { recursive: true });
  await writeFile(path.join(folder, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n# ${name}\n`);
}

async function snapshot(): Promise<
  Array<{ ability_id: string; source: string; family: string; usable_now: boolean; reason_unusable?: string; install_lane: string }>
> {
  return JSON.parse((await agent!.memory.readText(MemoryPaths.availabilityCurrent)) ?? "{}").abilities;
}

describe("every skill in Skills: the assistant's own skill folders, read-only", () => {
  it("lists native and bundled skills beside learned ones, once each by precedence, and lookup finds them", async () => {
    folders = await mkdtemp(path.join(tmpdir(), "elnor-skill-folders-"));
    const user = path.join(folders, "user-skills");
    const bundled = path.join(folders, "bundled");
    await writeSkill(user, "slack-gif-creator", "Create animated GIFs sized for Slack. Use when the user asks for a Slack GIF or emoji animation.");
    await writeSkill(user, "canvas-design", "User copy of canvas design.");
    await writeSkill(bundled, "canvas-design", "Create visual art as PNG and PDF posters. Use when asked for a poster or a piece of visual art.");
    await writeSkill(bundled, "theme-factory", "Style artifacts with a theme. Use when the user wants a consistent colour theme for slides or documents.");
    await mkdir(path.join(bundled, "broken"), { recursive: true });
    await writeFile(path.join(bundled, "broken", "SKILL.md"), "no frontmatter here\n");
    agent = await startTestAgent({
      skillFolders: [
        { path: user, kind: "native" },
        { path: bundled, kind: "bundled" },
      ],
    });
    const { proposalId } = await readyProposal((...args) => agent!.call(...args));
    expect((await agent.call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).status).toBe(200);

    const abilities = await snapshot();
    expect(abilities.map((ability) => `${ability.ability_id}:${ability.source}:${ability.family}:${ability.usable_now}`)).toEqual([
      "learned.export-the-monthly-invoices:learned:browser:true",
      "native.canvas-design:native:native:true",
      "native.slack-gif-creator:native:native:true",
      "bundled.broken:native:bundled:false",
      "bundled.theme-factory:native:bundled:true",
    ]);
    expect(abilities.find((ability) => ability.ability_id === "bundled.broken")?.reason_unusable).toMatch(/frontmatter/);
    const lookup = await agent.call("POST", "/api/abilities/lookup", { user_query: "make a slack gif", schema_version: 1 });
    expect(lookup.body.matches[0]).toMatchObject({ ability_id: "native.slack-gif-creator", usable_now: true });
    // Read-only: the lifecycle commands are for what this agent installed.
    expectError(await agent.call("POST", "/api/abilities/native.slack-gif-creator/deactivate", { schema_version: 1 }), 404, "ABILITY_NOT_FOUND");
    // And an import cannot take a name the assistant already has.
    const uploaded = await uploadThrough(agent, { name: "t.zip", bytes: publicBundle("theme-factory", "Another theme skill. Use when asked.") });
    const scanned = await agent.call("POST", "/api/skills/import/scan", {
      source: "manual_upload",
      temp_artifact_ref: uploaded.body.temp_artifact.temp_artifact_ref,
      schema_version: 1,
    });
    expect(scanned.body.compatibility_report.findings).toContainEqual(expect.objectContaining({ code: "NAME_COLLISION", severity: "error" }));
  });

  it("lists the version a skill's SKILL.md declares (metadata.version), and none where it declares none", async () => {
    folders = await mkdtemp(path.join(tmpdir(), "elnor-skill-folders-"));
    const bundled = path.join(folders, "bundled");
    await writeSkill(
      bundled,
      "pdf-tools",
      "Fill and merge PDF files. Use when asked to fill a PDF form.",
      'metadata:\n  author: someone\n  version: "1.4.0"\n',
    );
    await writeSkill(bundled, "theme-factory", "Style artifacts with a theme. Use when the user wants a colour theme.");
    await writeSkill(bundled, "odd-version", "A skill with a version that is not one. Use never.", "metadata:\n  version: latest and greatest\n");
    agent = await startTestAgent({ skillFolders: [{ path: bundled, kind: "bundled" }] });
    const listed = await agent.call("GET", "/api/abilities/availability");
    const versions = Object.fromEntries(
      (listed.body.abilities as Array<{ ability_id: string; skill_version?: string }>).map((ability) => [ability.ability_id, ability.skill_version ?? null]),
    );
    expect(versions).toEqual({ "bundled.odd-version": null, "bundled.pdf-tools": "1.4.0", "bundled.theme-factory": null });
  });

  it("notices a skill added to a folder while the agent runs, and leaves imported skills to the registry", async () => {
    folders = await mkdtemp(path.join(tmpdir(), "elnor-skill-folders-"));
    agent = await startTestAgent({ skillFolders: [{ path: folders, kind: "native" }], skillFoldersIntervalMs: 50 });
    await agent.call("POST", "/api/skills/import/install-private", { import_id: await stageThrough(agent, publicBundle()), schema_version: 1 });
    await writeSkill(folders, "meeting-minutes", "Turn meeting notes into decisions and actions. Use when the user asks for minutes.");
    await expect
      .poll(async () => (await snapshot()).map((ability) => ability.ability_id), { timeout: 5000 })
      .toEqual(["imported.pdf-form-filler", "native.meeting-minutes"]);
  });
});
