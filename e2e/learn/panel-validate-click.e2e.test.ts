import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import { readyProposal } from "../../agent/test-support/ready-proposal";
import { pairPanel, saveScreenshot, waitForStatus, type ExtensionBrowser } from "../test-support/extension-browser";
import { afterPaint, centreOf, openPanelHolding } from "../test-support/held-requests";
import { endJourney, startPanelJourney } from "../test-support/panel-flow";

/**
 * The first click on Validate opens its form (the "click that opens nothing" of e2e learn-ui,
 * improve-ui, practice-ui and coaching, which their shared openValidateForm used to click again).
 * The review drawer used to show the proposal and its decisions as soon as the proposal's detail
 * was read, then the SKILL.md preview (up to 22rem), the validation runs and the install steps as
 * they arrived: Validate moved down ~340 px under the pointer, and a Validate clicked before the
 * SKILL.md was read opened a form that asked for no test values. Here the SKILL.md is held back by
 * the test (the real agent answers it, later) to make that moment as long as a loaded machine does.
 */

const VALIDATE = '[data-proposal-drawer] button[name="validate"]:not([disabled])';

let cleanup: () => Promise<void>;
let agent: AgentProcess;
let token: string;
let chromium: ExtensionBrowser;

beforeAll(async () => {
  ({ cleanup, agent, token, chromium } = await startPanelJourney("elnor-validate-click-", readyProposal));
}, 60_000);

afterAll(() => endJourney({ chromium, agent, cleanup }));

describe("the review drawer's Validate", () => {
  it("aimed at as soon as it shows, is still under the pointer when the SKILL.md arrives: the first click opens the validation form", async () => {
    // Tall enough that the whole drawer is on screen without scrolling, before and after.
    const { panel, ...skillMd } = await openPanelHolding(chromium, (url) => url.endsWith("/skill-md"), { width: 400, height: 2400 });
    await pairPanel(panel, agent.url, token);
    await panel.locator("#learn-tab-pending").click();
    await panel.locator('[data-pending-group="ready_for_review"] button::-p-text(Review)').click();
    await panel.waitForSelector("[data-proposal-drawer]", { timeout: 10_000 });
    expect(await skillMd.waitForHeld(), "the drawer asked for the SKILL.md").toBe(true);
    await afterPaint(panel);
    // The person aims at Validate as soon as it is on screen (it is not, while the review is read).
    const aimed = await centreOf(panel, VALIDATE);
    if (aimed === null) {
      expect(await panel.$eval("[data-proposal-drawer] [data-proposal-loading]", (element) => element.textContent)).toBe("Loading the proposal…");
      await saveScreenshot(panel, "review-loading");
    }
    await skillMd.release();
    await panel.waitForSelector("[data-proposal-drawer] pre.markdown", { timeout: 15_000 });
    await panel.waitForSelector(VALIDATE, { timeout: 15_000 });
    await afterPaint(panel);
    const now = await centreOf(panel, VALIDATE);
    expect(now).not.toBeNull();
    // …and clicks once, where they aimed, after the SKILL.md has arrived.
    const target = aimed ?? now!;
    await panel.mouse.click(target.x, target.y);
    const opened = await panel.waitForSelector('[data-proposal-drawer] button[name="run-validation"]', { timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    expect(opened, `the click at ${JSON.stringify(target)} (Validate was at ${JSON.stringify(aimed)}, now ${JSON.stringify(now)}) opened nothing`).toBe(true);
    expect(aimed === null || (aimed.x === now!.x && aimed.y === now!.y), "Validate moved after it was shown").toBe(true);
    await saveScreenshot(panel, "review-validate-form");
    await panel.close();
  }, 60_000);

  it("in a drawer opened before the agent's description is read, is drawn once it is: enabled, where it stays, with the validation runs shown", async () => {
    // Already paired (by the test above): a panel opened now connects by itself.
    const { panel, ...description } = await openPanelHolding(chromium, (url) => url.endsWith("/api/openapi.json"), { width: 400, height: 2400 });
    await waitForStatus(panel, "connected");
    expect(await description.waitForHeld(), "the panel asked for the agent's description").toBe(true);
    await panel.locator("#learn-tab-pending").click();
    await panel.locator('[data-pending-group="ready_for_review"] button::-p-text(Review)').click();
    await panel.waitForSelector("[data-proposal-drawer]", { timeout: 10_000 });
    // Long enough for a drawer that does not wait to have drawn its review.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await afterPaint(panel);
    const aimed = await centreOf(panel, '[data-proposal-drawer] button[name="validate"]');
    await description.release();
    await panel.waitForSelector(VALIDATE, { timeout: 15_000 });
    await panel.waitForSelector("[data-proposal-drawer] pre.markdown", { timeout: 15_000 });
    await afterPaint(panel);
    const now = await centreOf(panel, VALIDATE);
    expect(now).not.toBeNull();
    const validation = await panel.$eval('[data-proposal-drawer] section[aria-labelledby$="-validation"]', (element) => (element as HTMLElement).innerText);
    expect(validation).not.toContain("Validation arrives with the next agent update.");
    expect(validation).toContain("Not validated yet.");
    const target = aimed ?? now!;
    await panel.mouse.click(target.x, target.y);
    const opened = await panel.waitForSelector('[data-proposal-drawer] button[name="run-validation"]', { timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    expect(opened, `the click at ${JSON.stringify(target)} (Validate was at ${JSON.stringify(aimed)}, now ${JSON.stringify(now)}) opened nothing`).toBe(true);
    expect(aimed === null || (aimed.x === now!.x && aimed.y === now!.y), "Validate moved after it was shown").toBe(true);
    await panel.close();
  }, 60_000);
});
