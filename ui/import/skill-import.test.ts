import { render } from "svelte/server";
import { afterEach, describe, expect, it } from "vitest";
import { startListeningAgent, type ListeningAgent } from "../../agent/test-support/adversarial/listening-agent";
import { publicBundle } from "../../agent/test-support/skill-bundles";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { createAgentClient } from "../agent-link/agent-client";
import ImportSkillFlow from "./ImportSkillFlow.svelte";
import { noBrowser } from "../common/no-browser";
import { PendingImportsState } from "./pending-imports.svelte";
import { SkillImportFlowState } from "./skill-import.svelte";
import { groupFindings, importWarnings } from "./skill-import-text";

let agent: ListeningAgent | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await agent?.close();
  await cleanup?.();
  agent = undefined;
});

async function flowOnRealAgent() {
  const temp = await makeTempMemoryRoot("elnor-ui-import-");
  cleanup = temp.cleanup;
  agent = await startListeningAgent(temp.root);
  const client = createAgentClient({ baseUrl: agent.url, token: agent.token, timeoutMs: 20_000 });
  const failures: unknown[] = [];
  const deps = { client, browser: noBrowser, features: { has: () => true }, onFailure: (error: unknown) => failures.push(error) };
  const accepted: Array<string | undefined> = [];
  return { deps, failures, accepted, flow: new SkillImportFlowState(deps, { onaccepted: (abilityId) => accepted.push(abilityId) }) };
}

describe("the Import Skill flow in the side panel", () => {
  it("shows the scan in words before any decision, then stages, tests, installs and leaves Pending Abilities", async () => {
    const { deps, flow, accepted, failures } = await flowOnRealAgent();
    await flow.pick(new File([new Uint8Array(publicBundle())], "pdf-form-filler.zip"));
    expect(failures).toEqual([]);
    expect(flow.state).toBe("scan_complete");

    // The text as a reader sees it: markup's line breaks and indentation read as one space.
    let html = render(ImportSkillFlow, { props: { flow, onclose: () => {}, onshowskills: () => {} } }).body.replace(/\s+/g, " ");
    for (const text of [
      "What it says it does",
      "Fill in, flatten and check PDF forms",
      "What it contains",
      "7 files",
      "script (never run by the import)",
      "Flagged for you to check",
      "has the executable bit",
      "Continue to review",
    ]) {
      expect(html).toContain(text);
    }
    // Install and approve are not offered before the bundle is staged for review.
    expect(html).not.toContain("Install for me only");

    const pending = new PendingImportsState(deps);
    await pending.load();
    expect(pending.items.map((item) => item.skill_name)).toEqual(["pdf-form-filler"]);

    await flow.stage();
    expect(flow.state).toBe("ready_for_review");
    await flow.runTest("fill in this pdf form");
    expect(flow.test?.matched).toBe(true);
    html = render(ImportSkillFlow, { props: { flow, onclose: () => {}, onshowskills: () => {} } }).body.replace(/\s+/g, " ");
    expect(html).toContain("Matched: “fill in this pdf form” would find this skill");
    expect(html).toContain("Install for me only");

    await flow.decide("install");
    expect(flow.state).toBe("installed_private");
    expect(accepted).toEqual(["imported.pdf-form-filler"]);
    await pending.load();
    expect(pending.items).toEqual([]);
  });

  it("says why an upload was refused and stays on the file picker", async () => {
    const { flow } = await flowOnRealAgent();
    await flow.pick(new File(["not a zip"], "bundle.tar.gz"));
    expect(flow.phase).toBe("pick");
    expect(flow.error).toMatch(/Upload a \.zip .*SKILL_IMPORT_UNSUPPORTED_EXTENSION/);
  });
});

describe("import text", () => {
  it("groups findings into what blocks, what was flagged and notes, and reads warning codes", () => {
    const groups = groupFindings([
      { code: "A", severity: "info", message: "note" },
      { code: "B", severity: "error", message: "blocks" },
      { code: "C", severity: "warning", message: "flag" },
    ]);
    expect(groups.map((group) => [group.id, group.findings.map((finding) => finding.code)])).toEqual([
      ["blocking", ["B"]],
      ["flagged", ["C"]],
      ["notes", ["A"]],
    ]);
    expect(importWarnings(["upload_expiring_soon: the upload expires in 5 minutes", "plain"])).toEqual([
      { code: "upload_expiring_soon", text: "the upload expires in 5 minutes" },
      { code: "other", text: "plain" },
    ]);
  });
});
