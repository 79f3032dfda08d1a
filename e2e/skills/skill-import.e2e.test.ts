import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ElementHandle, Page } from "puppeteer-core";
import { validate as validateAgentSkill } from "skills-ref";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { FONT_BYTES, publicBundle } from "../../agent/test-support/skill-bundles";
import { findForbiddenLabels } from "../../ui/forbidden-labels";
import { launchExtensionBrowser, pairPanel, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";
import { waitForCard } from "../test-support/panel-flow";

/**
 * Import Skill (issue #20) in real Chromium: the built extension's side panel against a real
 * agent. A bundle as people publish it (name and description only, a script with the executable
 * bit, a binary font, nested code) is picked in the panel's file input, scanned, reviewed under
 * Pending Abilities, trigger-tested and installed; then Skills lists it as imported and lookup
 * finds it.
 */

let root: string;
let cleanup: () => Promise<void>;
let workspace: string;
let files: string;
let agent: AgentProcess | undefined;
let chromium: ExtensionBrowser;
let panel: Page;
let token: string;

async function waitForText(page: Page, selector: string, text: string, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    (sel, wanted) => [...document.querySelectorAll(sel)].some((element) => (element.textContent ?? "").includes(wanted)),
    { timeout },
    selector,
    text,
  );
}

async function importState(page: Page, state: string, timeout = 20_000): Promise<void> {
  await page.waitForSelector(`[data-import-flow][data-import-state="${state}"]`, { timeout });
}

async function agentApi<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${agent!.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as T;
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot());
  workspace = await mkdtemp(path.join(tmpdir(), "elnor-import-ws-"));
  files = await mkdtemp(path.join(tmpdir(), "elnor-import-files-"));
  await writeFile(path.join(files, "pdf-form-filler.zip"), publicBundle());
  // A skill shipped with the assistant, in a bundled skills folder the agent is told about.
  await mkdir(path.join(files, "bundled", "theme-factory"), { recursive: true });
  await writeFile(
    path.join(files, "bundled", "theme-factory", "SKILL.md"),
    "---\nname: theme-factory\ndescription: Style slides and documents with a ready-made theme. Use when the user wants a consistent colour theme for a deck.\n---\n# Theme factory\n",
  );
  agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace, ELNOR_BUNDLED_SKILLS_DIRS: path.join(files, "bundled") });
  token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  chromium = await launchExtensionBrowser();
  panel = await chromium.openSidePanel({ width: 400, height: 900 });
  await pairPanel(panel, agent.url, token);
}, 90_000);

afterAll(async () => {
  await chromium?.close();
  await agent?.stop();
  await cleanup?.();
  for (const folder of [workspace, files]) if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe("Import Skill in the side panel, in real Chromium", () => {
  it("picks a bundle, shows the scan in words with every script flagged, before any decision", async () => {
    await waitForCard(panel, "Import Skill", 20_000);
    await panel.locator('[data-card="Import Skill"] button').click();
    const input = (await panel.waitForSelector('[data-import-flow] input[type="file"]')) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(path.join(files, "pdf-form-filler.zip"));
    await importState(panel, "scan_complete");
    const text = await panel.evaluate(() => document.body.innerText);
    for (const expected of [
      "What it says it does",
      "Fill in, flatten and check PDF forms",
      "What it contains",
      "7 files",
      "Flagged for you to check",
      "scripts/fill_form.py has the executable bit",
      "How your assistant will find it",
    ]) {
      expect(text).toContain(expected);
    }
    expect(await panel.$$eval('[data-file-kind="script"]', (elements) => elements.length)).toBe(3);
    expect(await panel.$("button::-p-text(Install for me only)")).toBeNull();
    expect(findForbiddenLabels(text)).toEqual([]);
    await saveScreenshot(panel, "import-skill-scan");
  });

  it("waits under Pending Abilities, then passes a trigger test and installs for me only", async () => {
    await panel.locator("button::-p-text(Continue to review)").click();
    await importState(panel, "ready_for_review");
    await panel.locator("#learn-tab-pending").click();
    await waitForText(panel, '[data-pending-group="imports"]', "pdf-form-filler");
    expect(await panel.evaluate(() => document.body.innerText)).not.toContain("No pending abilities");
    await saveScreenshot(panel, "import-skill-pending");
    await panel.locator('[data-pending-group="imports"] button::-p-text(Review)').click();
    await importState(panel, "ready_for_review");

    await panel.locator('[data-import-flow] input[type="text"]').fill("please fill in this PDF form");
    await panel.locator("button::-p-text(Run trigger test)").click();
    await panel.waitForSelector('[data-trigger-test="matched"]', { timeout: 20_000 });
    await saveScreenshot(panel, "import-skill-review");
    await panel.locator("button::-p-text(Install for me only)").click();
    await importState(panel, "installed_private");
    await waitForText(panel, "[data-import-flow]", "It is in Skills now");
  });

  it("lists it in Skills as imported and lookup finds it; the assistant's copy is the bundle, byte for byte", async () => {
    await panel.locator("button::-p-text(Open Skills)").click();
    await panel.waitForSelector('[data-ability-id="imported.pdf-form-filler"]', { timeout: 20_000 });
    await panel.locator("button::-p-text(Imported)").click();
    expect(await panel.$$eval("[data-ability-id]", (elements) => elements.map((element) => element.getAttribute("data-ability-id")))).toEqual([
      "imported.pdf-form-filler",
    ]);
    await saveScreenshot(panel, "import-skill-in-skills");

    const lookup = await agentApi<{ matches: Array<{ ability_id: string; usable_now: boolean }> }>("POST", "/api/abilities/lookup", {
      user_query: "fill in a pdf form",
      install_lanes_allowed: ["experimental_private"],
      schema_version: 1,
    });
    expect(lookup.matches[0]).toMatchObject({ ability_id: "imported.pdf-form-filler", usable_now: true });
    const folder = path.join(workspace, "skills", "pdf-form-filler");
    expect(await validateAgentSkill(folder)).toEqual([]);
    expect((await readFile(path.join(folder, "assets", "Inter-Regular.ttf"))).equals(FONT_BYTES)).toBe(true);
    expect((await stat(path.join(folder, "scripts", "fill_form.py"))).mode & 0o111).not.toBe(0);
  });

  it("R11.2-41/42: files the skill into two categories from Add to Category…, and filters Skills by either", async () => {
    await panel.locator("button::-p-text(All)").click();
    const item = '[data-ability-id="imported.pdf-form-filler"]';
    // Right-click opens the menu, as §0C.21 asks.
    await panel.click(item, { button: "right" });
    await panel.waitForSelector(`${item} [role="group"][aria-label="Add to Category"]`);
    for (const title of ["Litigation", "Daily Tasks"]) {
      await panel.locator(`${item} button::-p-text(+ New Category)`).click();
      await panel.locator(`${item} input[type="text"][maxlength="80"]`).fill(title);
      await panel.locator(`${item} button[type="submit"]::-p-text(Add)`).click();
      await panel.waitForSelector(`[data-category="${title}"]`, { timeout: 10_000 });
    }
    const checked = await panel.$$eval(`${item} [role="group"] label`, (labels) =>
      labels.map((label) => `${label.textContent?.trim()}:${(label.querySelector("input") as HTMLInputElement).checked}`),
    );
    expect(checked).toEqual(["Litigation:true", "Daily Tasks:true"]);
    await saveScreenshot(panel, "skills-categories");

    await panel.locator('[data-category="Daily Tasks"]').click();
    expect(await panel.$$eval("[data-ability-id]", (elements) => elements.map((element) => element.getAttribute("data-ability-id")))).toEqual([
      "imported.pdf-form-filler",
    ]);
    // Taken out of Daily Tasks, it leaves that filter and stays in Litigation.
    await panel.locator(`${item} label::-p-text(Daily Tasks) input`).click();
    await panel.waitForFunction(() => document.querySelectorAll("[data-ability-id]").length === 0, { timeout: 10_000 });
    await panel.locator('[data-category="Litigation"]').click();
    await panel.waitForSelector(item);
    const categories = await agentApi<{ categories: Array<{ title: string; item_count: number }> }>("GET", "/api/categories");
    expect(categories.categories.map((category) => `${category.title}:${category.item_count}`)).toEqual(["Litigation:1", "Daily Tasks:0"]);
  });

  it("lists the assistant's bundled skill under Bundle, read-only, and lookup finds it", async () => {
    await panel.locator("button::-p-text(Any category)").click();
    await panel.locator("button::-p-text(Bundle)").click();
    await panel.waitForSelector('[data-ability-id="bundled.theme-factory"] [data-read-only]', { timeout: 10_000 });
    expect(await panel.$$eval("[data-ability-id]", (elements) => elements.map((element) => element.getAttribute("data-ability-id")))).toEqual([
      "bundled.theme-factory",
    ]);
    expect(await panel.$('[data-ability-id="bundled.theme-factory"] button::-p-text(Deactivate)')).toBeNull();
    const lookup = await agentApi<{ matches: Array<{ ability_id: string }> }>("POST", "/api/abilities/lookup", {
      user_query: "give my deck a consistent colour theme",
      schema_version: 1,
    });
    expect(lookup.matches[0]?.ability_id).toBe("bundled.theme-factory");
  });
});
