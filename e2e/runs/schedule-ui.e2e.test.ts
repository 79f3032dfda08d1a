import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { httpAgentCall } from "../../agent/test-support/ready-proposal";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { RunScheduleListResponseSchema } from "../../shared/execution/run-schedules";
import { findForbiddenLabels } from "../../ui/forbidden-labels";
import { agentApi, pair } from "../golden/demonstration";
import { launchExtensionBrowser, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";

/**
 * Skills → "Run on a schedule" (issue #33) in real Chromium with the built extension and a real
 * agent: a skill without a secret input gets a weekly schedule with its message, listed with its
 * next run, paused and resumed; a skill with a secret input shows the form disabled and says why.
 */
let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let chromium: ExtensionBrowser;
let site: RunFixtureSite;
let api: ReturnType<typeof agentApi>;
let panel: Page;
let plainId: string;
let secretId: string;

const item = (abilityId: string) => `[data-ability-id="${abilityId}"]`;
const schedules = async () => RunScheduleListResponseSchema.parse(await api("GET", "/api/schedules")).schedules;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-schedule-ui-"));
  site = await serveRunFixtureSite();
  agent = await startAgentProcess(root);
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  api = agentApi(agent, token);
  const call = httpAgentCall(agent.url, token);
  ({ abilityId: plainId } = await installContactAbility(call, site, { secret: false, goal: "Post a note to the shop" }));
  ({ abilityId: secretId } = await installContactAbility(call, site));
  chromium = await launchExtensionBrowser();
  panel = await pair(chromium, agent, token);
  await panel.setViewport({ width: 400, height: 900 });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await agent?.stop();
  await site?.close();
  await cleanup?.();
});

describe("Skills → Run on a schedule, in real Chromium (issue #33)", () => {
  it("creates a weekly schedule with the skill's input, lists it with its next run, and pauses and resumes it", async () => {
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    await panel.waitForSelector(`${item(plainId)} [data-run-entry="runnable"]`, { timeout: 20_000 });
    await panel.locator(`${item(plainId)} [data-skill-schedules] button::-p-text(Run on a schedule)`).click();
    const form = `${item(plainId)} [data-schedule-form]`;
    await panel.waitForSelector(form, { timeout: 10_000 });
    expect(await panel.$(`${form} [data-schedule-why]`)).toBeNull();
    await panel.select(`${form} select[aria-label="How often"]`, "weekly");
    await panel.waitForSelector(`${form} select[aria-label="Day"]`);
    await panel.select(`${form} select[aria-label="Day"]`, "friday");
    await panel.$eval(`${form} input[aria-label="Time"]`, (input) => {
      const element = input as HTMLInputElement;
      element.value = "08:15";
      element.dispatchEvent(new Event("input", { bubbles: true }));
      element.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await panel.locator(`${form} input[type="text"]`).fill("Weekly hello");
    expect(await panel.$eval(`${form} select[aria-label="Where it runs"]`, (select) => (select as HTMLSelectElement).value)).toBe("managed");
    await panel.locator(`${form} button[type=submit]`).click();

    await panel.waitForSelector(`${item(plainId)} [data-schedule-id][data-schedule-state="active"] [data-next-run]`, { timeout: 10_000 });
    const [created] = await schedules();
    const zone = await panel.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(created).toMatchObject({
      ability_id: plainId,
      rule: { kind: "weekly", weekday: "friday", time: "08:15" },
      time_zone: zone,
      inputs: { message: "Weekly hello" },
      where: "managed",
      state: "active",
    });
    const listed = await panel.$eval(`${item(plainId)} [data-schedule-id="${created?.schedule_id}"]`, (element) => (element as HTMLElement).innerText);
    expect(listed).toContain("Every Friday at 08:15");
    expect(listed).toContain("Next run:");
    expect(listed).toContain("Last run: not yet");
    expect(findForbiddenLabels(await panel.evaluate(() => document.body.innerText))).toEqual([]);
    await panel.$eval(item(plainId), (element) => element.scrollIntoView());
    await saveScreenshot(panel, "skills-schedule");

    await panel.locator(`${item(plainId)} [data-schedule-id] button::-p-text(Pause)`).click();
    await panel.waitForSelector(`${item(plainId)} [data-schedule-state="paused"] [data-paused]`, { timeout: 10_000 });
    expect((await schedules())[0]).toMatchObject({ state: "paused", pause: { code: "paused_by_person" } });
    await panel.locator(`${item(plainId)} [data-schedule-id] button::-p-text(Resume)`).click();
    await panel.waitForSelector(`${item(plainId)} [data-schedule-state="active"]`, { timeout: 10_000 });
    expect((await schedules())[0]?.state).toBe("active");
  }, 60_000);

  it("shows the form disabled, saying why, for a skill with a secret input", async () => {
    await panel.waitForSelector(`${item(secretId)} [data-run-entry="runnable"]`, { timeout: 20_000 });
    await panel.locator(`${item(secretId)} [data-skill-schedules] button::-p-text(Run on a schedule)`).click();
    const why = await panel.waitForSelector(`${item(secretId)} [data-schedule-why]`, { timeout: 10_000 });
    const text = await why?.evaluate((element) => element.textContent ?? "");
    expect(text).toContain("“Access code” is a secret input");
    expect(text).toContain("cannot run on a schedule");
    expect(await panel.$eval(`${item(secretId)} [data-schedule-form] button[type=submit]`, (button) => (button as HTMLButtonElement).disabled)).toBe(true);
    expect(await panel.$$eval(`${item(secretId)} [data-schedule-form] fieldset`, (sets) => sets.every((set) => (set as HTMLFieldSetElement).disabled))).toBe(
      true,
    );
    // No secret input is offered for a schedule at all.
    expect(await panel.$(`${item(secretId)} [data-schedule-form] input[type="password"]`)).toBeNull();
    expect((await schedules()).filter((schedule) => schedule.ability_id === secretId)).toEqual([]);
    await panel.$eval(item(secretId), (element) => element.scrollIntoView());
    await saveScreenshot(panel, "skills-schedule-secret");
  }, 60_000);
});
