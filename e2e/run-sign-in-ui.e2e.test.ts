import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../agent/test-support/agent-process";
import { startNotesAgent, type NotesAgent } from "../agent/test-support/notes-agent";
import { FIXTURE_USER, type SignInFixture } from "../agent/test-support/sign-in-fixture";
import { pair } from "./golden/demonstration";
import { launchExtensionBrowser, saveScreenshot, type ExtensionBrowser } from "./support/extension-browser";
import { memoryText } from "../agent/test-support/memory-text";

/**
 * Issue #35 "run it later … from the side panel": a skill learned on a multi-page app behind a
 * sign-in (the notes fixture: session cookie, CSRF token, a form that posts and redirects), run
 * from Skills in the side panel with new inputs: the person types the password into the run form,
 * confirms "Save note" when asked, and sees every checkpoint proved; the app's own state holds the
 * new note, and the password is nowhere in ELNOR_MEMORY.
 */
const PASSWORD = `pw-${crypto.randomUUID().slice(0, 12)}`;
const TITLE = "Agenda for the Tuesday call";

let notes: NotesAgent;
let root: string;
let agent: AgentProcess;
let chromium: ExtensionBrowser;
let site: SignInFixture;
let panel: Page;
let abilityId: string;

beforeAll(async () => {
  notes = await startNotesAgent("elnor-run-sign-in-ui-", PASSWORD);
  ({ root, agent, site, abilityId } = notes);
  chromium = await launchExtensionBrowser();
  panel = await pair(chromium, agent, notes.token);
  await panel.setViewport({ width: 400, height: 900 });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await notes?.close();
});

describe("Skills → Run on a skill learned behind a sign-in (issue #35)", () => {
  it("signs in with the password typed into the run form, saves the new note after Do it, and proves every checkpoint", async () => {
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    const item = `[data-ability-id="${abilityId}"]`;
    await panel.waitForSelector(`${item} [data-run-entry="runnable"]`, { timeout: 20_000 });
    await panel.locator(`${item} [data-run-entry] button::-p-text(Run)`).click();
    await panel.waitForSelector("[data-run-form]", { timeout: 10_000 });
    expect(await panel.$eval('[data-run-form] [name="password"]', (element) => element.getAttribute("type"))).toBe("password");
    await panel.locator('[data-run-form] [name="username"]').fill(FIXTURE_USER);
    await panel.locator('[data-run-form] [name="password"]').fill(PASSWORD);
    await panel.locator('[data-run-form] [name="title"]').fill(TITLE);
    await panel.locator("[data-run-form] button[type=submit]").click();
    await panel.waitForSelector("[data-run-progress]", { timeout: 30_000 });
    for (let turns = 0; turns < 5; turns += 1) {
      await panel.waitForSelector('[data-run-progress][data-run-state="needs_confirmation"], [data-run-progress][data-run-state="succeeded"], [data-run-progress][data-run-state="failed"]', { timeout: 90_000 });
      const state = await panel.$eval("[data-run-progress]", (element) => element.getAttribute("data-run-state"));
      if (state !== "needs_confirmation") break;
      // Nothing was saved before the person said so.
      expect(site.notes()).toEqual([]);
      await panel.locator("[data-run-confirmation] button::-p-text(Do it)").click();
      await panel.waitForFunction(() => document.querySelector("[data-run-progress]")?.getAttribute("data-run-state") !== "needs_confirmation", { timeout: 30_000 });
    }
    const shown = await panel.$eval("[data-run-progress]", (element) => (element as HTMLElement).innerText);
    expect(await panel.$eval("[data-run-progress]", (element) => element.getAttribute("data-run-state")), shown).toBe("succeeded");
    const statuses = await panel.$$eval("[data-run-progress] [data-checkpoint-status]", (rows) => rows.map((row) => row.getAttribute("data-checkpoint-status")));
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.every((status) => status === "reached"), shown).toBe(true);
    expect(shown).toContain("Signed in as “Username”");
    await saveScreenshot(panel, "run-sign-in-succeeded");
    // The app's own state: signed in once, the new note under the account.
    expect(site.signIns()).toBe(1);
    expect(site.notes()).toEqual([{ owner: FIXTURE_USER, title: TITLE }]);
    expect(await memoryText(root)).not.toContain(PASSWORD);
    expect(agent.output()).not.toContain(PASSWORD);
  }, 200_000);
});
