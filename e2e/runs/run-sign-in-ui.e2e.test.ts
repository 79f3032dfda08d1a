import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import { startNotesAgent, type NotesAgent } from "../../agent/test-support/notes-agent";
import { FIXTURE_USER, type SignInFixture } from "../../agent/test-support/sign-in-fixture";
import { pair } from "../golden/demonstration";
import { launchExtensionBrowser, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";
import { memoryText } from "../../agent/test-support/memory-text";

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
      await panel.waitForSelector(
        '[data-run-progress][data-run-state="needs_confirmation"], [data-run-progress][data-run-state="succeeded"], [data-run-progress][data-run-state="failed"]',
        { timeout: 90_000 },
      );
      const state = await panel.$eval("[data-run-progress]", (element) => element.getAttribute("data-run-state"));
      if (state !== "needs_confirmation") break;
      // Nothing was saved before the person said so.
      expect(site.notes()).toEqual([]);
      await panel.locator("[data-run-confirmation] button::-p-text(Do it)").click();
      await panel.waitForFunction(() => document.querySelector("[data-run-progress]")?.getAttribute("data-run-state") !== "needs_confirmation", {
        timeout: 30_000,
      });
    }
    const shown = await panel.$eval("[data-run-progress]", (element) => (element as HTMLElement).innerText);
    expect(await panel.$eval("[data-run-progress]", (element) => element.getAttribute("data-run-state")), shown).toBe("succeeded");
    const statuses = await panel.$$eval("[data-run-progress] [data-checkpoint-status]", (rows) =>
      rows.map((row) => row.getAttribute("data-checkpoint-status")),
    );
    expect(statuses.length).toBeGreaterThan(1);
    expect(
      statuses.every((status) => status === "reached"),
      shown,
    ).toBe(true);
    expect(shown).toContain("Signed in as “Username”");
    await saveScreenshot(panel, "run-sign-in-succeeded");
    // The app's own state: signed in once, the new note under the account.
    expect(site.signIns()).toBe(1);
    expect(site.notes()).toEqual([{ owner: FIXTURE_USER, title: TITLE }]);
    expect(await memoryText(root)).not.toContain(PASSWORD);
    expect(agent.output()).not.toContain(PASSWORD);
  }, 200_000);

  /**
   * In the person's own tab, through the extension's relay: every page of the app is a full page
   * load in the lent tab (sign-in form, post and redirect, the editor, the note). The first run signs
   * in there; the second finds this Chrome signed in and skips the sign-in, still proving it.
   */
  it("runs in my browser: signs in there the first time, and skips the sign-in once this Chrome is signed in", async () => {
    const runInTab = async (title: string, consent: boolean) => {
      await panel.bringToFront();
      // The run view of this skill is open since the last run: Run again gives the form.
      await panel.locator("[data-run-panel] button::-p-text(Run again)").click();
      await panel.waitForSelector("[data-run-form]", { timeout: 10_000 });
      await panel.locator('[data-run-form] [name="username"]').fill(FIXTURE_USER);
      await panel.locator('[data-run-form] [name="password"]').fill(PASSWORD);
      await panel.locator('[data-run-form] [name="title"]').fill(title);
      await panel.locator('[data-run-form] input[value="user_tab"]').click();
      await panel.locator("[data-run-form] button[type=submit]").click();
      if (consent) {
        await panel.waitForSelector("[data-tab-consent]", { timeout: 15_000 });
        await panel.locator("[data-tab-consent] button::-p-text(Allow and run)").click();
      }
      // The run's tab comes to the front: the panel's buttons are pressed as click events (see run-ui.e2e).
      const settled =
        '[data-run-progress][data-run-state="needs_confirmation"], [data-run-progress][data-run-state="succeeded"], [data-run-progress][data-run-state="failed"]';
      for (let turns = 0; turns < 5; turns += 1) {
        await panel.waitForSelector(settled, { timeout: 90_000 });
        if ((await panel.$eval("[data-run-progress]", (element) => element.getAttribute("data-run-state"))) !== "needs_confirmation") break;
        await panel.$eval("[data-run-confirmation] button", (button) => (button as HTMLButtonElement).click());
        // Polled on a timer: a background tab runs no animation frames.
        await panel.waitForFunction(() => document.querySelector("[data-run-progress]")?.getAttribute("data-run-state") !== "needs_confirmation", {
          timeout: 30_000,
          polling: 200,
        });
      }
      await panel.bringToFront();
      const shown = await panel.$eval("[data-run-progress]", (element) => (element as HTMLElement).innerText);
      expect(await panel.$eval("[data-run-progress]", (element) => element.getAttribute("data-run-state")), shown).toBe("succeeded");
      expect(shown).toContain("In my browser");
      const statuses = await panel.$$eval("[data-run-progress] [data-checkpoint-status]", (rows) =>
        rows.map((row) => row.getAttribute("data-checkpoint-status")),
      );
      expect(statuses.length).toBeGreaterThan(1);
      expect(
        statuses.every((status) => status === "reached"),
        shown,
      ).toBe(true);
      return shown;
    };

    const signInsBefore = site.signIns();
    await runInTab("Minutes of the planning day", true);
    // Signed in through the sign-in form in the lent tab: the app saw one more sign-in and the note.
    expect(site.signIns()).toBe(signInsBefore + 1);
    expect(site.notes().at(-1)).toEqual({ owner: FIXTURE_USER, title: "Minutes of the planning day" });

    const shown = await runInTab("Packing list for the offsite", false);
    expect(site.signIns(), "this Chrome was already signed in: no new sign-in").toBe(signInsBefore + 1);
    expect(site.notes().at(-1)).toEqual({ owner: FIXTURE_USER, title: "Packing list for the offsite" });
    expect(shown).toContain("Signed in as “Username”");
    expect(shown).toContain("the browser is already signed in");
    await saveScreenshot(panel, "run-in-tab-signed-in-skipped");
    expect(await memoryText(root)).not.toContain(PASSWORD);
    expect(agent.output()).not.toContain(PASSWORD);
  }, 300_000);
});
