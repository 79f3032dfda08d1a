import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchExtensionBrowser, type ExtensionBrowser } from "../test-support/extension-browser";
import { waitForSessionState, waitForText } from "../test-support/panel-flow";

/**
 * The journeys' shared waits on the side panel (e2e/test-support/panel-flow.ts) while another tab is in
 * front, as when coaching starts and the assistant's tab comes forward: a panel in the background
 * paints nothing, and a wait that re-checked on animation frames never looked again (e2e `coaching`,
 * "no session state in 20 s", while the panel's page already showed the session armed).
 */

let chromium: ExtensionBrowser;

beforeAll(async () => {
  chromium = await launchExtensionBrowser();
}, 60_000);

afterAll(async () => {
  await chromium?.close();
});

describe("waiting on the side panel while another tab is in front", () => {
  it("sees a session state and a text the panel shows after it went to the background", async () => {
    const panel = await chromium.openSidePanel();
    await panel.waitForSelector("[data-status]");
    const other = await chromium.browser.newPage();
    await other.bringToFront();
    expect(await panel.evaluate(() => document.visibilityState)).toBe("hidden");
    // What the panel's own code does on an answer from the agent: it changes the page, unpainted.
    await panel.evaluate(() => {
      setTimeout(() => {
        const shown = document.createElement("article");
        shown.setAttribute("data-session-state", "armed");
        shown.textContent = "Recording";
        document.body.append(shown);
      }, 300);
    });
    expect(await waitForSessionState(panel, ["armed", "capturing"], 5_000)).toBe("armed");
    await waitForText(panel, "[data-session-state]", "Recording", 5_000);
    await other.close();
    await panel.close();
  }, 30_000);
});
