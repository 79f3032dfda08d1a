import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { expect } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { httpAgentCall, readyProposal, type AgentCall } from "../../agent/test-support/ready-proposal";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { findForbiddenLabels } from "../../ui/forbidden-labels";
import { ARTIFACTS_DIR, launchExtensionBrowser, pairPanel, type ExtensionBrowser } from "./extension-browser";

/** Steps of the side panel that several journeys share (issue #16 e2e tests). */

/**
 * How the waits below re-check the panel: on a timer, never on animation frames. A panel behind
 * another tab paints nothing (here the panel is a tab; the assistant's tab comes to the front when
 * coaching starts), so a frame-polled wait that did not succeed at once never looks again, though
 * the panel's page is up to date: the seventh session's "no session state in 20 s" in e2e `coaching`.
 */
export const PANEL_POLLING = 200;

export async function waitForText(page: Page, selector: string, text: string, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    (sel, wanted) => [...document.querySelectorAll(sel)].some((element) => (element.textContent ?? "").includes(wanted)),
    { timeout, polling: PANEL_POLLING },
    selector,
    text,
  );
}

/**
 * Waits until a Learn New Ability card offers its button, enabled. The cards show once the agent's
 * description is read; a card missing from the page does not count as offered.
 */
export async function waitForCard(page: Page, title: string, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    (card) => (document.querySelector(`[data-card="${card}"] button`) as HTMLButtonElement | null)?.disabled === false,
    { polling: PANEL_POLLING, timeout },
    title,
  );
}

/** Waits until the shown session is in one of `states`; on a timeout, says what the panel showed instead. */
export async function waitForSessionState(page: Page, states: string[], timeout = 20_000): Promise<string> {
  await page
    .waitForFunction(
      (wanted) => wanted.includes(document.querySelector("[data-session-state]")?.getAttribute("data-session-state") ?? ""),
      { timeout, polling: PANEL_POLLING },
      states,
    )
    .catch(async (error: unknown) => {
      const shown = await page
        .evaluate(
          () =>
            `state ${document.querySelector("[data-session-state]")?.getAttribute("data-session-state") ?? "(no session shown)"}; ${document.body.innerText.slice(0, 2000)}`,
        )
        .catch(() => "(the panel did not answer)");
      throw new Error(`the session never became ${states.join(" or ")} in ${timeout} ms; the panel showed: ${shown}`, { cause: error });
    });
  return (await page.$eval("[data-session-state]", (element) => element.getAttribute("data-session-state")).catch(() => null)) ?? "";
}

/** Answers the panel's questions one at a time: required ones with `answer(question)`, optional ones skipped. */
export async function answerPanelQuestions(page: Page, answer: (question: string) => string): Promise<void> {
  await page.waitForSelector("[data-questions] textarea[name='answer']", { timeout: 30_000 });
  for (let guard = 0; guard < 10; guard += 1) {
    const question = await page.$eval("[data-questions] label", (label) => ({
      text: label.textContent ?? "",
      required: label.querySelector(".required") !== null,
    }));
    if (question.required) await page.locator("[data-questions] textarea[name='answer']").fill(answer(question.text));
    if (await page.$("button[name='send-answers']")) {
      await page.locator("button[name='send-answers']").click();
      return;
    }
    await page.locator("button[name='next-question']").click();
    await page.waitForFunction((previous) => document.querySelector("[data-questions] label")?.textContent !== previous, {}, question.text);
  }
  throw new Error("the questions never ended");
}

/** An AgentCall (agent/test-support) over HTTP to an agent process, with its token. */
export async function agentCallOf(agent: AgentProcess, root: string): Promise<AgentCall> {
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  return httpAgentCall(agent.url, token);
}

/**
 * Clicks the drawer's Validate once, as a person does, and waits for its form; says what the drawer
 * showed if it never opens. The drawer shows its decisions only once the proposal and every part of
 * its review are read, so the first click opens the form, with its test values
 * (e2e/learn/panel-validate-click).
 */
export async function openValidateForm(page: Page, { buttonTimeout }: { buttonTimeout?: number } = {}): Promise<void> {
  const validate = '[data-proposal-drawer] button[name="validate"]:not([disabled])';
  try {
    await (await page.waitForSelector(validate, buttonTimeout === undefined ? {} : { timeout: buttonTimeout }))!.click();
    await page.waitForSelector('[data-proposal-drawer] button[name="run-validation"]', { timeout: 5_000 });
  } catch (error) {
    const shown = await page
      .$eval("[data-proposal-drawer]", (drawer) => (drawer.textContent ?? "").replace(/\s+/g, " ").slice(0, 1500))
      .catch(() => "(no drawer)");
    throw new Error(`the Validate form did not open on the first click; the drawer showed: ${shown}`, { cause: error });
  }
}

/** The side panel of `chromium` paired with `agent`, at the panel's usual 400×900 (pages opened before it stay the person's tabs). */
export async function openPairedPanel(chromium: ExtensionBrowser, agent: AgentProcess, token: string): Promise<Page> {
  const panel = await chromium.openSidePanel();
  await pairPanel(panel, agent.url, token);
  await panel.setViewport({ width: 400, height: 900 });
  return panel;
}

export interface CleanPanelOptions {
  /** The journey's canary prefix, in lower case ("zq9"): no screen may hold it. */
  canary: string;
  /** The fields whose values count as what the panel holds; "input, textarea" by default. */
  fields?: string;
  /** Count the rendered text too, beside the markup and the field values. */
  withText?: boolean;
}

/** What every screen of a journey must pass: no canary in its markup or form values, no deprecated label in its text. */
export async function expectCleanPanel(page: Page, screen: string, { canary, fields = "input, textarea", withText = false }: CleanPanelOptions): Promise<void> {
  const dom = await page.evaluate(
    (selector, text) =>
      `${document.documentElement.outerHTML}\n${text ? `${document.body.innerText}\n` : ""}${[...document.querySelectorAll(selector)].map((field) => (field as HTMLInputElement).value).join("\n")}`,
    fields,
    withText,
  );
  expect(dom.toLowerCase(), `a canary on ${screen}`).not.toContain(canary);
  expect(findForbiddenLabels(await page.evaluate(() => document.body.innerText)), `forbidden label on ${screen}`).toEqual([]);
}

/** The drawer is fixed over the page: shot at the viewport (taller for the whole drawer), not full-page. */
export async function drawerShot(page: Page, name: string, height = 720): Promise<void> {
  const viewport = page.viewport() ?? { width: 360, height: 720 };
  if (height !== viewport.height) await page.setViewport({ ...viewport, height });
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`) as `${string}.png` });
  if (height !== viewport.height) await page.setViewport(viewport);
}

/** What a panel journey started, any of it possibly never started (a failed set-up). */
export interface JourneyParts {
  chromium?: ExtensionBrowser | undefined;
  agent?: AgentProcess | undefined;
  /** Fixture sites: node servers or our site handles. */
  sites?: ReadonlyArray<{ close(): unknown } | undefined>;
  /** Removes the temp ELNOR_MEMORY (makeTempMemoryRoot's cleanup). */
  cleanup?: (() => Promise<void>) | undefined;
  /** Temp folders of the journey's own (a workspace). */
  folders?: ReadonlyArray<string | undefined>;
}

/** Ends a journey in order: the browser, the agent, the sites, then the temp memory and folders. */
export async function endJourney({ chromium, agent, sites = [], cleanup, folders = [] }: JourneyParts): Promise<void> {
  await chromium?.close();
  await agent?.stop();
  for (const site of sites) await site?.close();
  await cleanup?.();
  for (const folder of folders) if (folder !== undefined) await rm(folder, { recursive: true, force: true });
}

/** What a panel journey starts from: a real agent on a fresh ELNOR_MEMORY, its token, and Chromium with the built extension. */
export interface PanelJourney {
  cleanup: () => Promise<void>;
  agent: AgentProcess;
  token: string;
  chromium: ExtensionBrowser;
}

/** Starts a journey's parts; `prepare` sets the agent up (through its HTTP API) before Chromium starts. End it with `endJourney`. */
export async function startPanelJourney(prefix: string, prepare?: (call: AgentCall) => Promise<unknown>): Promise<PanelJourney> {
  const { root, cleanup } = await makeTempMemoryRoot(prefix);
  let agent: AgentProcess | undefined;
  try {
    agent = await startAgentProcess(root);
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    await prepare?.(httpAgentCall(agent.url, token));
    return { cleanup, agent, token, chromium: await launchExtensionBrowser() };
  } catch (error) {
    await endJourney({ agent, cleanup });
    throw error;
  }
}

/** One learned skill, installed and approved (lifecycle controls and Improve This Skill in Skills): its proposal id. */
export async function installApprovedSkill(call: AgentCall): Promise<string> {
  const { proposalId } = await readyProposal(call);
  const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  expect(installed.status, JSON.stringify(installed.body)).toBe(200);
  const approved = await call("POST", `/api/learn/proposals/${proposalId}/approve`, { approval_scope: "approved_workspace", schema_version: 1 });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  return proposalId;
}
