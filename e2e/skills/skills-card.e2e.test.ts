import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchExtensionBrowser, pairPanel, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";
import { endJourney } from "../test-support/panel-flow";

/**
 * The Skills card of the assistant's own skills, in the built side panel against a real agent: a
 * skill in the user's folder and two shipped with the assistant (one whose SKILL.md declares a
 * version under `metadata`, one that declares none). Each card says what is true of it: the
 * declared version or that there is none, and that this agent did not validate it. The search box
 * finds a skill by what a request means.
 */

let root: string;
let cleanup: () => Promise<void>;
let folders: string;
let agent: AgentProcess | undefined;
let chromium: ExtensionBrowser | undefined;
let panel: Page;

async function writeSkill(folder: string, name: string, description: string, extra = ""): Promise<void> {
  await mkdir(path.join(folder, name), { recursive: true });
  await writeFile(path.join(folder, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n# ${name}\n`);
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-skills-card-"));
  folders = await mkdtemp(path.join(tmpdir(), "elnor-skills-card-folders-"));
  await writeSkill(path.join(folders, "user"), "meeting-notes", "Write up meeting notes. Use when the user asks for notes of a meeting.");
  await writeSkill(
    path.join(folders, "bundled"),
    "pdf-tools",
    "Fill and merge PDF files. Use when asked to fill a PDF form.",
    'metadata:\n  version: "1.4.0"\n',
  );
  await writeSkill(path.join(folders, "bundled"), "theme-factory", "Style slides with a theme. Use when the user wants a colour theme for a deck.");
  await writeSkill(path.join(folders, "user"), "heater-repair", "Book a repair for the broken heater with the landlord's maintenance service.");
  agent = await startAgentProcess(root, {
    OPENCLAW_WORKSPACE: path.join(folders, "workspace"),
    OPENCLAW_SKILLS_DIR: path.join(folders, "user"),
    ELNOR_BUNDLED_SKILLS_DIRS: path.join(folders, "bundled"),
  });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  chromium = await launchExtensionBrowser();
  panel = await chromium.openSidePanel({ width: 400, height: 900 });
  await pairPanel(panel, agent.url, token);
}, 90_000);

afterAll(() => endJourney({ chromium, agent, cleanup, folders: [folders] }));

describe("the Skills card of the assistant's own skills, in real Chromium", () => {
  it("says the version their SKILL.md declares, or that it declares none, and that they were not validated here", async () => {
    await panel.locator("button::-p-text(Skills)").click();
    await panel.waitForSelector('[data-ability-id="bundled.pdf-tools"]', { timeout: 20_000 });
    const line = (id: string) => panel.$eval(`[data-ability-id="${id}"] [data-last-validation]`, (element) => (element as HTMLElement).innerText.trim());
    expect(await line("bundled.pdf-tools")).toBe("v1.4.0 · not validated here (bundled with the assistant)");
    expect(await line("bundled.theme-factory")).toBe("no version declared · not validated here (bundled with the assistant)");
    expect(await line("native.meeting-notes")).toBe("no version declared · not validated here (the assistant's own skill)");
    await saveScreenshot(panel, "skills-card-own-skills");
  }, 60_000);

  // Issue #15: the search box asks the agent's lookup, which reads the request's meaning as well as its words.
  it("finds a skill asked for with no word of its own, and nothing for a request no skill does", async () => {
    const search = async (text: string) => {
      await panel.$eval('input[type="search"]', (input) => ((input as HTMLInputElement).value = ""));
      await panel.type('input[type="search"]', text);
    };
    await search("fix the boiler");
    // The matches only (issue #34 adds "Maybe you meant" below them, in a section of its own).
    await panel.waitForFunction(
      () =>
        document.querySelector(".skills > .list > [data-ability-id]")?.getAttribute("data-ability-id") === "native.heater-repair" &&
        document.querySelectorAll(".skills > .list > [data-ability-id]").length === 1,
      { timeout: 20_000 },
    );
    await saveScreenshot(panel, "skills-search-by-meaning");
    // Typed with slips (ninth round): read with them mended.
    await search("the heatr is brokn");
    await panel.waitForFunction(() => document.querySelector("[data-ability-id]")?.getAttribute("data-ability-id") === "native.heater-repair", {
      timeout: 20_000,
    });
    await saveScreenshot(panel, "skills-search-typos");
    await search("tell me a joke");
    await panel.waitForFunction(() => document.body.innerText.includes("No skill fits that request."), { timeout: 20_000 });
    expect(await panel.$("[data-maybe-you-meant]")).toBeNull();
  }, 60_000);

  // Issue #34: a request below the gate of every skill still shows the one it reads close to, marked as a guess.
  it('shows "Maybe you meant" with the skill a request reads close to when nothing matches, each a skill item like the others', async () => {
    await panel.$eval('input[type="search"]', (input) => ((input as HTMLInputElement).value = ""));
    await panel.type('input[type="search"]', "my radiator makes a strange noise at night");
    await panel.waitForSelector('[data-maybe-you-meant] [data-ability-id="native.heater-repair"]', { timeout: 20_000 });
    const seen = await panel.evaluate(() => ({
      heading: document.querySelector("[data-maybe-you-meant] h3")?.textContent?.trim(),
      matches: document.querySelectorAll(".skills > .list > [data-ability-id]").length,
      noFit: document.body.innerText.includes("No skill fits that request."),
      reason: (
        document.querySelector('[data-maybe-you-meant] [data-ability-id="native.heater-repair"] [data-maybe-reason]') as HTMLElement | null
      )?.innerText.trim(),
      validation: (
        document.querySelector('[data-maybe-you-meant] [data-ability-id="native.heater-repair"] [data-last-validation]') as HTMLElement | null
      )?.innerText.trim(),
    }));
    expect(seen).toMatchObject({
      heading: "Maybe you meant",
      matches: 0,
      noFit: false,
      validation: "no version declared · not validated here (the assistant's own skill)",
    });
    expect(seen.reason).toMatch(/^Low confidence: reads close to "heater.repair" \(similarity 0\.\d\d\)/);
    await saveScreenshot(panel, "skills-maybe-you-meant");
  }, 60_000);
});
