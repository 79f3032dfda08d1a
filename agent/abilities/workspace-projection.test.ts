import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempMemoryRoot } from "../test-support/temp-memory";
import { createWorkspaceProjector } from "./workspace-projection";

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-workspace-"));
});
afterEach(async () => cleanup());

describe("the workspace projection", () => {
  it("sweeps the staging and replaced folders a crash left, and nothing else", async () => {
    const projector = createWorkspaceProjector(root);
    await projector.project("export-invoices", { "SKILL.md": "# Export\n" });
    const skills = path.join(root, "skills");
    for (const leftover of [".export-invoices.staging-0a1b2c3d", "export-invoices.previous-deadbeef"]) {
      await mkdir(path.join(skills, leftover, "capabilities"), { recursive: true });
      await writeFile(path.join(skills, leftover, "capabilities", "half.json"), '{"capab', { mode: 0o444 });
    }
    // Someone else's skill whose name merely looks alike stays.
    await mkdir(path.join(skills, "notes.previous-version"));
    expect((await projector.sweep()).sort()).toEqual([".export-invoices.staging-0a1b2c3d", "export-invoices.previous-deadbeef"]);
    expect((await readdir(skills)).sort()).toEqual(["export-invoices", "notes.previous-version"]);
    expect(await projector.read("export-invoices")).toEqual({ "SKILL.md": "# Export\n" });
  });
});
