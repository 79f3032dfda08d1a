import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import { pairPanel, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";
import { afterPaint, centreOf, openPanelHolding } from "../test-support/held-requests";
import { endJourney, installApprovedSkill, startPanelJourney } from "../test-support/panel-flow";

/**
 * Skills right after pairing: what each skill offers depends on the agent's description
 * (`GET /api/openapi.json`): its Run row, its lifecycle controls and the category filter above the
 * list. Skills used to draw the list before the description was read and add those when it
 * arrived, so every skill's buttons moved under the pointer. Here the description is held back by
 * the test (the real agent answers it, later) to make that moment as long as a loaded machine does.
 */

const IMPROVE = '[data-skills-status="ready"] li button::-p-text(Improve This Skill)';
/** The same button for `document.querySelector` (no text selectors there): the last of its row. */
const IMPROVE_CSS = '[data-skills-status="ready"] li .row button:last-child';

let cleanup: () => Promise<void>;
let agent: AgentProcess;
let token: string;
let chromium: ExtensionBrowser;

beforeAll(async () => {
  ({ cleanup, agent, token, chromium } = await startPanelJourney("elnor-skills-after-pairing-", async (call) => {
    // One learned skill, installed and approved, filed in a category.
    await installApprovedSkill(call);
    const category = await call("POST", "/api/categories", { title: "Invoices", schema_version: 1 });
    expect(category.status, JSON.stringify(category.body)).toBe(201);
  }));
}, 60_000);

afterAll(() => endJourney({ chromium, agent, cleanup }));

describe("Skills right after pairing", () => {
  it("a skill's button aimed at as soon as it shows is still under the pointer when the agent's description arrives", async () => {
    const { panel, ...description } = await openPanelHolding(chromium, (url) => url.endsWith("/api/openapi.json"), { width: 400, height: 1200 });
    await pairPanel(panel, agent.url, token);
    await panel.locator("button.crumb::-p-text(Skills)").click();
    await panel.waitForSelector("[data-skills-status]", { timeout: 10_000 });
    expect(await description.waitForHeld(), "the panel asked for the agent's description").toBe(true);
    // Whatever Skills shows while the description is read (the list, or that it is checking)…
    await panel.waitForFunction(() => document.querySelector("[data-reading-features], [data-skills-status='ready'] li") !== null, { timeout: 10_000 });
    await afterPaint(panel);
    const aimed = await centreOf(panel, IMPROVE_CSS);
    if (aimed === null) {
      expect(await panel.$eval("[data-reading-features]", (element) => element.textContent)).toBe("Checking what your agent can do…");
      await saveScreenshot(panel, "skills-reading-features");
    }
    await description.release();
    // …until it is read: the skill's Run row and its lifecycle controls are offered.
    await panel.waitForSelector('[data-skills-status="ready"] li [data-run-entry]:not([data-run-entry="loading"])', { timeout: 15_000 });
    await panel.waitForFunction(() => document.querySelector('[data-skills-status="ready"] [data-category]') !== null, { timeout: 15_000 });
    expect(await panel.$eval(IMPROVE, (button) => button.textContent)).toBe("Improve This Skill");
    await afterPaint(panel);
    const now = await centreOf(panel, IMPROVE_CSS);
    expect(now).not.toBeNull();
    const target = aimed ?? now!;
    await panel.mouse.click(target.x, target.y);
    const opened = await panel.waitForSelector('input[name="target-skill"]', { timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    expect(
      opened,
      `the click at ${JSON.stringify(target)} (Improve This Skill was at ${JSON.stringify(aimed)}, now ${JSON.stringify(now)}) opened nothing`,
    ).toBe(true);
    expect(aimed === null || (aimed.x === now!.x && aimed.y === now!.y), "a skill's button moved after it was shown").toBe(true);
    await panel.locator("button.crumb::-p-text(Skills)").click();
    await panel.waitForSelector('[data-skills-status="ready"] li [data-run-entry]', { timeout: 10_000 });
    await afterPaint(panel);
    await saveScreenshot(panel, "skills-after-description");
    await panel.close();
  }, 90_000);
});
