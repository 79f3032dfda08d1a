import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { findForbiddenLabels } from "../../ui/forbidden-labels";
import { launchExtensionBrowser, pairPanel, saveScreenshot, waitForStatus, type ExtensionBrowser } from "../test-support/extension-browser";
import { drawerShot, endJourney, openValidateForm, waitForCard, waitForSessionState, waitForText } from "../test-support/panel-flow";

/**
 * The Ability Learning page (issue #7) in real Chromium: the built extension's side panel page,
 * opened as a tab, against a real agent and a fixture site on 127.0.0.1 (which Chrome grants
 * without a prompt, see e2e/capture/background-capture.e2e.test.ts). The whole journey the agent supports
 * today: pair, set up Demonstrating Skill for the fixture site, Start, demonstrate with canary
 * values, Stop, generate the proposal, answer the goal question, review the proposal and its
 * checkpoints. Every screen is checked for deprecated labels (§0C.18) and for the canaries.
 */

/**
 * The demonstrated page: a small sign-up with a text field, a password, a textarea and a
 * checkbox, whose result is a status message that does not echo what was typed (an echo would
 * end up in a learned checkpoint, which is the compiler's concern, not this page's).
 */
const JOIN_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Join — Fixture Shop</title></head><body>
<main><h1>Join the newsletter</h1>
<form id="join" aria-label="Join the newsletter">
<label for="email">Email</label> <input id="email" name="email" type="email" required>
<label for="password">Password</label> <input id="password" name="password" type="password" required>
<label for="notes">Notes</label> <textarea id="notes" name="notes"></textarea>
<label><input id="terms" name="terms" type="checkbox"> Accept terms</label>
<button type="submit">Join</button>
</form>
<p role="status" id="result"></p>
</main>
<script>
document.getElementById("join").addEventListener("submit", (event) => {
  event.preventDefault();
  document.getElementById("result").textContent = "You have joined the newsletter";
});
</script>
</body></html>`;
/** Typed into the page's fields; none of them may ever reach the panel's DOM. */
const CANARY = { email: "zq8.email.canary@example.com", password: "Zq8-pass-canary!", notes: "Zq8 notes canary text" } as const;

let root: string;
let workspace: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess | undefined;
let chromium: ExtensionBrowser;
let fixture: http.Server;
let site: string;
let shop: Page;
let panel: Page;
let token: string;

async function startFixtureSite(): Promise<string> {
  fixture = http.createServer((request, response) => {
    if (new URL(request.url ?? "/", "http://x").pathname === "/join.html") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(JOIN_PAGE);
    } else {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise<void>((resolve) => fixture.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
}

/** Everything the panel shows or holds in its DOM: text, attributes, and form values. */
async function panelDom(page: Page): Promise<string> {
  return page.evaluate(() => {
    const values = [...document.querySelectorAll("input, textarea, select")].map((field) => (field as HTMLInputElement).value);
    return `${document.documentElement.outerHTML}\n${document.body.innerText}\n${values.join("\n")}`;
  });
}

/** The checks every screen must pass: no deprecated label, no canary. */
async function assertCleanScreen(page: Page, screen: string): Promise<void> {
  const dom = await panelDom(page);
  expect(findForbiddenLabels(await page.evaluate(() => document.body.innerText)), `forbidden label on ${screen}`).toEqual([]);
  expect(findForbiddenLabels(dom), `forbidden label in the DOM of ${screen}`).toEqual([]);
  for (const canary of Object.values(CANARY)) expect(dom, `canary on ${screen}`).not.toContain(canary);
  expect(dom.toLowerCase()).not.toContain("zq8");
}

async function agentApi<T>(method: string, route: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${agent!.url}${route}`, { method, headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as T };
}

async function clickButton(page: Page, text: string): Promise<void> {
  await page.locator(`button::-p-text(${text})`).click();
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot());
  // Installs project the skill into the assistant's workspace: a temp one, never the user's.
  workspace = await mkdtemp(path.join(tmpdir(), "elnor-learn-ui-ws-"));
  agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace });
  token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  site = await startFixtureSite();
  chromium = await launchExtensionBrowser();
  // The page the person is working on, open before the panel: its site prefills the set-up.
  shop = await chromium.browser.newPage();
  await shop.setViewport({ width: 1000, height: 800 });
  await shop.goto(`${site}/join.html`);
  panel = await chromium.openSidePanel();
  await pairPanel(panel, agent.url, token);
}, 90_000);

afterAll(() => endJourney({ chromium, agent, sites: [fixture], cleanup, folders: [workspace] }));

describe("the Ability Learning page in real Chromium", () => {
  it("opens on Learn New Ability with the four tabs and the five cards, each offered by this agent", async () => {
    expect(await panel.$eval("h1", (h1) => h1.textContent)).toBe("Ability Learning");
    const tabs = await panel.$$eval('[role="tab"]', (elements) => elements.map((element) => element.textContent?.trim()));
    expect(tabs).toEqual(["Learn New Ability", "Active Capability Learning", "Pending Abilities", "History"]);
    await waitForText(panel, "h2", "Create new ability by:");
    // Import Skill is offered once the agent's description (read at pairing) lists its routes.
    await waitForCard(panel, "Import Skill");
    const cards = await panel.$$eval("[data-card]", (elements) =>
      elements.map((element) => ({ title: element.getAttribute("data-card"), disabled: element.querySelector("button")?.disabled ?? false })),
    );
    expect(cards).toEqual([
      { title: "Demonstrating Skill", disabled: false },
      { title: "Coaching Agent", disabled: false },
      { title: "Autonomous Agent Practice", disabled: false },
      { title: "Improving Existing Skill", disabled: false },
      { title: "Import Skill", disabled: false },
    ]);
    // Coaching Agent is offered once the agent describes its turn route (issue #16).
    expect(await panel.evaluate(() => document.body.innerText)).not.toContain("Not available yet");
    await assertCleanScreen(panel, "Learn New Ability");
    await saveScreenshot(panel, "learn-new-ability");
  });

  it("opens the Autonomous Agent Practice set-up from its card, and goes back", async () => {
    await panel.click('[data-card="Autonomous Agent Practice"] button');
    await panel.waitForSelector("[data-practice-setup]");
    const labels = await panel.$$eval("[data-practice-setup] label", (elements) => elements.map((element) => element.textContent?.trim()));
    expect(labels).toEqual([
      "Skill to practise",
      "Goal",
      "Success looks like",
      "Sites it may open",
      "Rounds",
      "Test inputs",
      "Dry run: stop before the step that sends, pays or deletes",
    ]);
    await assertCleanScreen(panel, "Practice set-up");
    await saveScreenshot(panel, "practice-setup");
    await clickButton(panel, "Back");
    await waitForText(panel, "h2", "Create new ability by:");
  });

  it("moves between the tabs with the arrow keys", async () => {
    await panel.focus("#learn-tab-new");
    await panel.keyboard.press("ArrowRight");
    expect(await panel.$eval('[role="tab"][aria-selected="true"]', (element) => element.id)).toBe("learn-tab-active");
    expect(await panel.evaluate(() => document.activeElement?.id)).toBe("learn-tab-active");
    await panel.keyboard.press("ArrowLeft");
    expect(await panel.$eval('[role="tab"][aria-selected="true"]', (element) => element.id)).toBe("learn-tab-new");
  });

  it("sets up Demonstrating Skill with the current tab's site prefilled and starts watching it", async () => {
    await panel.locator('[data-card="Demonstrating Skill"] button').click();
    await waitForText(panel, ".site", site);
    expect(await panel.$eval('input[name="watch-my-actions"]', (input) => (input as HTMLInputElement).checked)).toBe(true);
    expect(await panel.$eval('input[name="text-masking"][value="mask_text"]', (input) => (input as HTMLInputElement).checked)).toBe(true);
    // Choosing to record typed text shows the consent step; Start refuses without it.
    await panel.locator('input[name="text-masking"][value="none"]').click();
    await panel.waitForSelector('input[name="consent-record-text"]');
    await saveScreenshot(panel, "learn-setup-consent");
    await panel.locator('button[name="start"]').click();
    await waitForText(panel, '[role="alert"]', "needs your consent");
    await panel.locator('input[name="text-masking"][value="mask_text"]').click();
    expect(await panel.$('input[name="consent-record-text"]')).toBeNull();
    await assertCleanScreen(panel, "set-up");
    await saveScreenshot(panel, "learn-setup");
    // The rehearsal may perform the final step on the fixture (its only safe domain).
    await panel.locator('input[name="dry-run"]').click();

    await panel.locator('button[name="start"]').click();
    const state = await waitForSessionState(panel, ["armed", "capturing"]);
    expect(["armed", "capturing"]).toContain(state);
    expect(await panel.$eval('[role="tab"][aria-selected="true"]', (element) => element.textContent?.trim())).toBe("Active Capability Learning");
    await waitForText(panel, ".scope", site);
    await assertCleanScreen(panel, "armed session");
  });

  it("shows the demonstration live as readable steps, every typed value as 'masked'", async () => {
    await shop.bringToFront();
    await shop.type("#email", CANARY.email);
    await shop.type("#password", CANARY.password);
    await shop.type("#notes", CANARY.notes);
    await shop.click("#terms");
    await shop.click('button[type="submit"]');
    await shop.waitForFunction(() => document.getElementById("result")?.textContent === "You have joined the newsletter");
    await panel.bringToFront();
    await waitForSessionState(panel, ["capturing"]);
    await panel.waitForFunction(() => document.querySelectorAll("[data-event-id]").length >= 4, { timeout: 15_000 });
    await panel.waitForFunction(() => document.querySelectorAll("[data-masked]").length >= 3, { timeout: 20_000 });
    const masked = await panel.$$eval("[data-masked]", (elements) => elements.map((element) => element.textContent));
    expect(new Set(masked)).toEqual(new Set(["masked"]));
    expect(await panel.$eval("[data-off-site-dropped]", (element) => element.getAttribute("data-off-site-dropped"))).toBe("0");
    await assertCleanScreen(panel, "capturing");
    await saveScreenshot(panel, "learn-active-capturing");
  });

  it("marks a step, pauses and resumes from the panel", async () => {
    await panel.locator('input[name="step-label"]').fill("Review the new account");
    await clickButton(panel, "Mark step");
    await panel.waitForFunction(() => (document.querySelector('input[name="step-label"]') as HTMLInputElement | null)?.value === "");
    await panel.locator('button[name="session-pause"]').click();
    await waitForSessionState(panel, ["paused"]);
    await panel.locator('button[name="session-resume"]').click();
    await waitForSessionState(panel, ["capturing"]);
  });

  it("stops, generates the proposal and asks the goal question, one question at a time", async () => {
    await panel.locator('button[name="session-stop"]').click();
    await waitForSessionState(panel, ["stopped"]);
    await panel.locator('button[name="generate-proposal"]').click();
    await waitForSessionState(panel, ["awaiting_questions"], 30_000);
    await panel.waitForSelector("[data-questions] textarea[name='answer']");
    await waitForText(panel, "[data-questions] label", "What is this ability for?");
    await waitForText(panel, "[data-questions] .required", "(required)");
    await assertCleanScreen(panel, "questions");
    await saveScreenshot(panel, "learn-questions");

    // Answer every required question; skip the optional ones.
    for (let guard = 0; guard < 8; guard += 1) {
      const question = await panel.$eval("[data-questions] label", (label) => ({
        text: label.textContent ?? "",
        required: label.querySelector(".required") !== null,
      }));
      if (question.required) {
        const answer = question.text.includes("What is this ability for") ? "Join the shop newsletter" : 'The page says "You have joined the newsletter"';
        await panel.locator("[data-questions] textarea[name='answer']").fill(answer);
      }
      if (await panel.$("button[name='send-answers']")) {
        await panel.locator("button[name='send-answers']").click();
        break;
      }
      await panel.locator("button[name='next-question']").click();
      await panel.waitForFunction((previous) => document.querySelector("[data-questions] label")?.textContent !== previous, {}, question.text);
    }
  });

  it("opens the proposal review with its checkpoints, the SKILL.md as text and the honest disabled actions", async () => {
    await panel.waitForSelector("[data-proposal-drawer]", { timeout: 30_000 });
    await waitForText(panel, "[data-proposal-drawer] h3", "Checkpoint Progress");
    await panel.waitForSelector("[data-proposal-drawer] [data-checkpoint-status]");
    const statuses = await panel.$$eval("[data-checkpoint-status]", (elements) => elements.map((element) => element.getAttribute("data-checkpoint-status")));
    expect(statuses.length).toBeGreaterThan(0);
    // No rehearsal ran: every checkpoint is "not yet reached", and the panel says why.
    expect(new Set(statuses)).toEqual(new Set(["not_reached"]));
    await waitForText(panel, "[data-proposal-drawer]", "Checkpoint verification is not available yet");
    await panel.waitForSelector("[data-proposal-drawer] pre.markdown");
    const markdown = await panel.$eval("[data-proposal-drawer] pre.markdown", (pre) => pre.textContent ?? "");
    expect(markdown).toContain("## Checkpoints");
    expect(await panel.$eval("[data-proposal-drawer]", (drawer) => drawer.textContent ?? "")).toContain("Join the shop newsletter");
    const disabled = (name: string) => panel.$eval(`[data-proposal-drawer] button[name="${name}"]`, (button) => (button as HTMLButtonElement).disabled);
    // This agent has validate, install and approve (issue #6) and request-more-tests (§0C.18).
    for (const name of ["validate", "install", "approve", "revise", "reject", "request_more_tests"]) expect(await disabled(name), name).toBe(false);
    // The first checkpoint's detail opens on demand.
    await panel.locator("[data-proposal-drawer] [data-checkpoint-status] summary").click();
    await waitForText(panel, "[data-proposal-drawer] [data-checkpoint-status]", "(not yet reached)");
    await assertCleanScreen(panel, "proposal review");
    await drawerShot(panel, "learn-proposal-review");
    await drawerShot(panel, "learn-proposal-review-full", 2200);
  });

  it("closes the drawer with Escape and lists the proposal under Pending Abilities, ready for review", async () => {
    await panel.keyboard.press("Escape");
    await panel.waitForSelector("[data-proposal-drawer]", { hidden: true });
    await panel.locator("#learn-tab-pending").click();
    await panel.waitForSelector('[data-pending-group="ready_for_review"]');
    await waitForText(panel, '[data-pending-group="ready_for_review"]', "newsletter");
    await assertCleanScreen(panel, "Pending Abilities");
    await saveScreenshot(panel, "learn-pending");
  });

  it("shows History with outcomes and the receipts feed", async () => {
    await panel.locator("#learn-tab-history").click();
    await panel.waitForSelector("[data-outcome]");
    await waitForText(panel, ".receipts", "Recording started");
    await waitForText(panel, ".receipts", "Proposal drafted");
    await assertCleanScreen(panel, "History");
    await saveScreenshot(panel, "learn-history");
  });

  it("works in a wide tab too", async () => {
    const wide = await chromium.openSidePanel({ width: 1200, height: 900 });
    await waitForStatus(wide, "connected");
    await wide.locator("#learn-tab-active").click();
    await waitForSessionState(wide, ["ready_for_review"]);
    await wide.waitForFunction(() => document.querySelectorAll("[data-event-id]").length >= 4);
    await assertCleanScreen(wide, "wide active session");
    await saveScreenshot(wide, "learn-active-wide");
    await wide.close();
  });

  it("says 'real-time updates unavailable' when the agent goes away, then recovers on its own", async () => {
    await panel.locator("#learn-tab-active").click();
    await waitForSessionState(panel, ["ready_for_review"]);
    await panel.waitForSelector('[data-live="live"]', { timeout: 20_000 });
    const port = agent!.port;
    expect(await agent!.stop()).toBe(0);
    await panel.waitForSelector('[data-live="degraded"]', { timeout: 20_000 });
    await waitForText(panel, '[data-live="degraded"]', "Real-time updates unavailable");
    await waitForStatus(panel, "unreachable");
    await assertCleanScreen(panel, "degraded");
    await saveScreenshot(panel, "learn-degraded");
    agent = await startAgentProcess(root, { ELNOR_AGENT_PORT: String(port), OPENCLAW_WORKSPACE: workspace });
    // The panel checks again every 5 s on its own: no Retry needed.
    await panel.waitForSelector('[data-status="connected"]', { timeout: 15_000 });
    // The stream is back once the agent sends its first frame (a keepalive at the latest, 30 s).
    await panel.waitForSelector('[data-live="live"]', { timeout: 45_000 });
    expect(await panel.$eval("[data-session-state]", (element) => element.getAttribute("data-session-state"))).toBe("ready_for_review");
  }, 90_000);

  it("validates the proposal with test values: a rehearsal, its steps, and checkpoint progress from its receipts", async () => {
    await panel.locator("#learn-tab-pending").click();
    // Seen once in CI (not reproduced): this button never appeared. Say what the page showed instead.
    await panel.waitForSelector('[data-pending-group="ready_for_review"] button', { timeout: 20_000 }).catch(async (error: unknown) => {
      const shown = await panel.$eval("body", (body) => (body.textContent ?? "").replace(/\s+/g, " ").slice(0, 1500));
      throw new Error(`no proposal ready for review in Pending Abilities; the panel showed: ${shown}`, { cause: error });
    });
    await panel.locator('[data-pending-group="ready_for_review"] button::-p-text(Review)').click();
    // One real mouse click on Validate once it is shown: the drawer shows its decisions only once
    // everything above them is laid out, so nothing moves them after (e2e/learn/panel-validate-click).
    await openValidateForm(panel);
    // Test values, not the demonstration's: used for the run only, never stored.
    const inputs = await panel.$$eval('[data-proposal-drawer] input[name^="test-"]', (elements) =>
      elements.map((element) => ({ name: element.getAttribute("name") ?? "", type: element.getAttribute("type") ?? "text" })),
    );
    expect(inputs.map((input) => input.name)).toContain("test-email");
    for (const input of inputs) {
      const value = input.type === "email" ? "test@example.com" : input.type === "password" ? "Test-Passw0rd!" : "Test value";
      await panel.locator(`[data-proposal-drawer] input[name="${input.name}"]`).fill(value);
    }
    await drawerShot(panel, "learn-validate-form");
    await panel.locator('[data-proposal-drawer] button[name="run-validation"]').click();
    await panel.waitForSelector("[data-proposal-drawer] [data-validation-result]", { timeout: 150_000 });
    const result = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => element.getAttribute("data-validation-result"));
    const runText = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => (element as HTMLElement).innerText);
    expect(["passed", "partial"], runText).toContain(result);
    await panel.waitForSelector("[data-review-message]");
    expect(await panel.$$eval("[data-proposal-drawer] .steps li", (items) => items.length)).toBeGreaterThan(2);
    const statuses = await panel.$$eval("[data-checkpoint-status]", (elements) => elements.map((element) => element.getAttribute("data-checkpoint-status")));
    // The rehearsal checked the success condition in the page: its receipt shows here (§0C.9B).
    expect(statuses, runText).toContain("reached");
    await assertCleanScreen(panel, "validated proposal");
    await drawerShot(panel, "learn-validated", 2600);
  }, 180_000);

  it("installs it privately with the saga's progress, then approves it into Skills", async () => {
    await panel.locator('[data-proposal-drawer] button[name="install"]').click();
    await waitForText(panel, "[data-review-message]", "Installed for you only", 60_000);
    await waitForText(panel, '[data-proposal-drawer] [aria-label="Install progress"]', "Install finished");
    await drawerShot(panel, "learn-installed", 2600);
    await panel.locator('[data-proposal-drawer] button[name="approve"]').click();
    await panel.locator('[data-proposal-drawer] button[name="confirm-approve"]').click();
    await waitForText(panel, "[data-review-message]", "Approved", 60_000);
    await assertCleanScreen(panel, "approved proposal");
    await panel.keyboard.press("Escape");
    await panel.waitForSelector("[data-proposal-drawer]", { hidden: true });
  }, 120_000);

  it("R11.2-35: shows Skills from the agent's availability snapshot (never a made-up list) and follows a promotion made elsewhere", async () => {
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    await panel.waitForSelector('[data-skills-status="unavailable"], [data-skills-status="ready"]');
    expect(await panel.$eval("h1", (h1) => h1.textContent)).toBe("Skills");
    const status = await panel.$eval("[data-skills-status]", (element) => element.getAttribute("data-skills-status"));
    const availability = await agentApi<{ abilities: unknown[] } | { error: { code: string } }>("GET", "/api/abilities/availability");
    if (status === "unavailable") {
      expect(availability.status).toBe(404);
      await waitForText(panel, "[data-skills-status]", "not available yet");
    } else {
      expect(availability.status).toBe(200);
      const abilities = (availability.body as { abilities: Array<{ ability_id: string; title: string }> }).abilities;
      const listed = await panel.$$eval("[data-ability-id]", (elements) => elements.map((element) => element.getAttribute("data-ability-id")));
      expect(listed).toEqual(abilities.map((ability) => ability.ability_id));
      // The ability just approved is there, under Learned, with its controls.
      expect(abilities.some((ability) => ability.title.toLowerCase().includes("newsletter"))).toBe(true);
      await waitForText(panel, "[data-ability-id]", "Usable now");
      await panel.locator(".filters button::-p-text(Learned)").click();
      expect(await panel.$$eval("[data-ability-id]", (elements) => elements.length)).toBe(abilities.length);
      // R11.2-35: another client promotes it; the open page shows the new lane by itself.
      const learned = abilities.find((ability) => ability.title.toLowerCase().includes("newsletter")) as { ability_id: string };
      expect((await agentApi("POST", `/api/abilities/${learned.ability_id}/promote-shared`)).status).toBe(200);
      await waitForText(panel, `[data-ability-id="${learned.ability_id}"] .head`, "· shared", 15_000);
    }
    await assertCleanScreen(panel, "Skills");
    await saveScreenshot(panel, "learn-skills");
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Learn)').click();
  });
});
