import type { HTTPRequest, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import { pairPanel, saveScreenshot, waitForStatus, type ExtensionBrowser } from "../test-support/extension-browser";
import { afterPaint, centreOf, openPanelHolding } from "../test-support/held-requests";
import { endJourney, installApprovedSkill, startPanelJourney } from "../test-support/panel-flow";

/**
 * Skills while its abilities refresh, and when the check of what the agent can do fails.
 *
 * §0C.11B: the agent marks an availability snapshot behind its latest change as stale
 * (`x-availability-stale: true`); the panel then says "Refreshing abilities…" and reads it again
 * two seconds later. That line used to be a boxed notice in place of the one-line "As of …", so
 * the whole list moved down when a refresh started and back when it ended: a click aimed at a
 * skill's button during a refresh landed elsewhere. A real agent is stale only for the moment it
 * rewrites its snapshot; here the panel's watch gets the agent's own answer with that header set
 * (the agent's body and headers, fetched by the test), and the re-read that follows is held until
 * the test lets it through, to make that moment as long as a busy agent does.
 */

const IMPROVE_CSS = '[data-skills-status="ready"] li .row button:last-child';
const AVAILABILITY = "/api/abilities/availability";

let cleanup: () => Promise<void>;
let agent: AgentProcess;
let token: string;
let chromium: ExtensionBrowser;

beforeAll(async () => {
  ({ cleanup, agent, token, chromium } = await startPanelJourney("elnor-skills-refresh-", async (call) => {
    // One learned skill, installed and approved: it has lifecycle controls and Improve This Skill.
    await installApprovedSkill(call);
  }));
}, 60_000);

afterAll(() => endJourney({ chromium, agent, cleanup }));

/** The side panel, whose availability requests the test can answer as stale, then hold. */
interface PanelRefreshing {
  panel: Page;
  /** The next availability request gets the agent's answer marked stale; the ones after it are held. */
  staleNext(): void;
  /** How many availability requests are held. */
  held(): number;
  /** Lets the held requests (and later ones) through to the agent. */
  release(): Promise<void>;
}

async function openPanelRefreshing(viewport: { width: number; height: number }): Promise<PanelRefreshing> {
  const panel = await chromium.browser.newPage();
  await panel.setViewport(viewport);
  let mode: "through" | "stale" | "hold" = "through";
  const held: HTTPRequest[] = [];
  await panel.setRequestInterception(true);
  panel.on("request", (request) => {
    if (new URL(request.url()).pathname !== AVAILABILITY || mode === "through") return void request.continue();
    if (mode === "hold") return void held.push(request);
    mode = "hold";
    void answerStale(request);
  });
  await panel.goto(`chrome-extension://${chromium.extensionId}/sidepanel.html`);
  return {
    panel,
    staleNext: () => void (mode = "stale"),
    held: () => held.length,
    async release() {
      mode = "through";
      for (const request of held.splice(0)) await request.continue();
    },
  };
}

/** The agent's own answer to `request` (its full snapshot, never a 304), marked stale as §0C.11B says. */
async function answerStale(request: HTTPRequest): Promise<void> {
  const headers = Object.fromEntries(Object.entries(request.headers()).filter(([name]) => name.toLowerCase() !== "if-none-match"));
  const answer = await fetch(request.url(), { headers });
  expect(answer.status).toBe(200);
  const answerHeaders: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    // The body is handed over whole and decoded: no length, encoding or hop-by-hop header of the agent's.
    if (!["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"].includes(name)) answerHeaders[name] = value;
  });
  await request.respond({ status: 200, headers: { ...answerHeaders, "x-availability-stale": "true" }, body: await answer.text() });
}

/**
 * Waits until Skills says it is refreshing (or no longer is, and says when its list is from), as a
 * person reads it: `innerText` leaves out what is drawn invisible.
 */
async function waitUntilSkillsSay(panel: Page, state: "refreshing" | "as of"): Promise<void> {
  await panel.waitForFunction(
    (refreshing) => {
      const says = (document.querySelector('[data-skills-status="ready"]') as HTMLElement | null)?.innerText ?? "";
      return refreshing ? says.includes("Refreshing abilities…") : /\bAs of \S/.test(says) && !says.includes("Refreshing abilities…");
    },
    { timeout: 15_000, polling: 100 },
    state === "refreshing",
  );
}

describe("Skills while its abilities refresh", () => {
  it("says it is refreshing, and when the list is from, without moving the list: a click aimed at a skill's button during a refresh lands on it", async () => {
    const { panel, ...availability } = await openPanelRefreshing({ width: 400, height: 900 });
    await pairPanel(panel, agent.url, token);
    await panel.locator("button.crumb::-p-text(Skills)").click();
    await waitUntilSkillsSay(panel, "as of");
    await panel.waitForSelector(IMPROVE_CSS, { timeout: 15_000 });
    await afterPaint(panel);
    const aimed = await centreOf(panel, IMPROVE_CSS);
    expect(aimed).not.toBeNull();
    await saveScreenshot(panel, "skills-as-of");

    // A refresh starts (the watch asks every 3 s)…
    availability.staleNext();
    await waitUntilSkillsSay(panel, "refreshing");
    await afterPaint(panel);
    const during = await centreOf(panel, IMPROVE_CSS);
    await saveScreenshot(panel, "skills-refreshing");
    // …and ends: the re-read two seconds later is let through.
    for (let waited = 0; availability.held() === 0 && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(availability.held(), "the panel read the stale snapshot again").toBeGreaterThan(0);
    await availability.release();
    await waitUntilSkillsSay(panel, "as of");
    await afterPaint(panel);
    const after = await centreOf(panel, IMPROVE_CSS);
    expect({ during, after }, `Improve This Skill was aimed at ${JSON.stringify(aimed)}`).toEqual({ during: aimed, after: aimed });

    // The person clicks where they aimed while the next refresh is under way: it opens that skill's improvement.
    availability.staleNext();
    await waitUntilSkillsSay(panel, "refreshing");
    await afterPaint(panel);
    await panel.mouse.click(aimed!.x, aimed!.y);
    const opened = await panel.waitForSelector('input[name="target-skill"]', { timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    expect(opened, `the click at ${JSON.stringify(aimed)} during a refresh opened nothing`).toBe(true);
    await availability.release();
    await panel.close();
  }, 90_000);
});

describe("Skills when the check of what the agent can do fails", () => {
  it("says so over the skills, with why; Try again checks again and draws the list once, with the controls the agent offers", async () => {
    // Already paired (by the test above): a panel opened now connects by itself.
    const { panel, ...description } = await openPanelHolding(chromium, (url) => url.endsWith("/api/openapi.json"), { width: 400, height: 900 });
    await waitForStatus(panel, "connected");
    await panel.locator("button.crumb::-p-text(Skills)").click();
    await panel.waitForSelector("[data-skills-status] [data-reading-features]", { timeout: 10_000 });
    expect(await description.waitForHeld(), "the panel asked for the agent's description").toBe(true);
    await description.fail();

    // Never a silent "not available": the notice says the check failed, and why, above the skills.
    const notice = await panel.waitForSelector("[data-skills-status] [data-features-failure]", { timeout: 10_000 });
    const says = await notice!.evaluate((element) => (element as HTMLElement).innerText);
    expect(says).toContain("Could not check what your agent can do");
    expect(says).toContain("The agent did not answer.");
    await panel.waitForSelector(IMPROVE_CSS, { timeout: 10_000 });
    const deactivate = '[data-skills-status="ready"] li .row button::-p-text(Deactivate)';
    expect(await panel.$eval(deactivate, (button) => (button as HTMLButtonElement).disabled)).toBe(true);
    // Whether the agent has the controls is what could not be checked: not "arrive with the next agent update".
    const line = await panel.$eval("[data-skills-status] li", (item) => (item as HTMLElement).innerText);
    expect(line).toContain("unknown until your agent's description is read");
    expect(line).not.toContain("arrive with the next agent update");
    await afterPaint(panel);
    await saveScreenshot(panel, "skills-features-failure");

    // Try again: the panel asks again (held, to see what it shows meanwhile)…
    description.hold();
    await panel.locator("[data-features-failure] button::-p-text(Try again)").click();
    expect(await description.waitForHeld(), "Try again asked for the agent's description").toBe(true);
    await panel.waitForSelector("[data-skills-status] [data-reading-features]", { timeout: 5_000 });
    expect(await panel.$("[data-features-failure]")).toBeNull();
    expect(await panel.$("[data-skills-status] li")).toBeNull();
    await panel.evaluate(() => {
      // The first list drawn after Try again, seen before it is painted.
      const seen: { firstList: null | { deactivateDisabled: boolean; notice: boolean } } = { firstList: null };
      (window as unknown as { seen: typeof seen }).seen = seen;
      new MutationObserver((_, observer) => {
        const item = document.querySelector('[data-skills-status="ready"] li');
        if (item === null) return;
        const deactivate = [...item.querySelectorAll(".row button")].find((button) => button.textContent === "Deactivate") as HTMLButtonElement | undefined;
        seen.firstList = { deactivateDisabled: deactivate?.disabled ?? true, notice: document.querySelector("[data-features-failure]") !== null };
        observer.disconnect();
      }).observe(document.body, { childList: true, subtree: true });
    });
    // …and once the description is read, draws the list once, with every control the agent has.
    await description.release();
    await panel.waitForFunction(() => (window as unknown as { seen: { firstList: unknown } }).seen.firstList !== null, { timeout: 15_000, polling: 200 });
    expect(await panel.evaluate(() => (window as unknown as { seen: { firstList: unknown } }).seen.firstList)).toEqual({
      deactivateDisabled: false,
      notice: false,
    });
    expect(await panel.$eval(deactivate, (button) => (button as HTMLButtonElement).disabled)).toBe(false);
    expect(await panel.evaluate(() => document.body.innerText)).not.toContain("unknown until your agent's description is read");
    await panel.close();
  }, 90_000);
});
