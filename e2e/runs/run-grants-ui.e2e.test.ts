import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { installMailAbility, serveMailFixtureSite, type MailFixtureSite } from "../../agent/test-support/grant-fixture";
import { httpAgentCall } from "../../agent/test-support/ready-proposal";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { RunResponseSchema } from "../../shared/execution/run-contract";
import { RunGrantListResponseSchema } from "../../shared/execution/run-grants";
import { agentApi, pair } from "../golden/demonstration";
import { launchExtensionBrowser, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";

/**
 * Standing approvals in the side panel (issue #33), in real Chromium with the built extension and
 * a real agent: a run of "send a message" asks before sending; the person ticks "Always allow this
 * step for this skill" with its terms spelled out (skill and version, step, site, these exact
 * inputs); the next run with the same inputs sends without asking; Skills lists the grant under
 * the skill (terms, created, last used) and Revoke ends it at once. The screenshots in
 * docs/screenshots/ (runs/run-always-allow.png, skills/skills-grants.png) are these, copied from e2e/artifacts/.
 */
let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let chromium: ExtensionBrowser;
let site: MailFixtureSite;
let api: ReturnType<typeof agentApi>;
let panel: Page;
let abilityId: string;
let deleteId: string;
const RECIPIENT = "grant-ui-recipient-5d21";

const item = () => `[data-ability-id="${abilityId}"]`;
const runState = (state: string) => panel.waitForSelector(`[data-run-progress][data-run-state="${state}"]`, { timeout: 90_000 });
const grants = async () => RunGrantListResponseSchema.parse(await api("GET", `/api/abilities/${abilityId}/grants`)).grants;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-grants-ui-"));
  site = await serveMailFixtureSite();
  agent = await startAgentProcess(root);
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  api = agentApi(agent, token);
  abilityId = await installMailAbility(httpAgentCall(agent.url, token), site, "send");
  deleteId = await installMailAbility(httpAgentCall(agent.url, token), site, "delete");
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

describe("Always allow this step, then see and revoke it in Skills (issue #33)", () => {
  it("shows the terms before the person chooses, and keeps the grant they ticked", async () => {
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    await panel.waitForSelector(`${item()} [data-run-entry="runnable"]`, { timeout: 20_000 });
    await panel.locator(`${item()} [data-run-entry] button::-p-text(Run)`).click();
    await panel.waitForSelector("[data-run-form]", { timeout: 10_000 });
    await panel.locator('[data-run-form] [name="recipient"]').fill(RECIPIENT);
    await panel.locator("[data-run-form] button[type=submit]").click();
    await runState("needs_confirmation");
    expect(site.count("send")).toBe(0);

    await panel.locator("[data-always-allow-toggle]").click();
    await panel.waitForSelector("[data-grant-terms]");
    const terms = await panel.$eval("[data-always-allow]", (element) => (element as HTMLElement).innerText);
    expect(terms).toContain("Always allow this step for this skill");
    expect(terms).toContain("(version 0.1.0)");
    expect(terms).toContain("Send message");
    expect(terms).toContain(site.host);
    expect(terms).toContain("Only with these exact inputs (Recipient)");
    expect(terms).toContain("With any inputs");
    // A send is neither a delete nor a payment: no class to tick.
    expect(await panel.$$("[data-grant-class]")).toHaveLength(0);
    expect(await panel.$eval('[data-grant-inputs="exact"]', (element) => (element as HTMLInputElement).checked)).toBe(true);
    await saveScreenshot(panel, "run-always-allow");
    await panel.locator("[data-run-confirmation] button::-p-text(Do it, and always allow)").click();
    await runState("succeeded");
    expect(site.count("send")).toBe(1);
    const [grant] = await grants();
    expect(grant).toMatchObject({ inputs: "exact", input_names: ["recipient"], site_host: site.host, skill_version: "0.1.0", state: "active" });
    expect(grant?.expires_at).toBeUndefined();

    // The next run with the same inputs goes past "Send message" without asking.
    const started = RunResponseSchema.parse(
      await api("POST", "/api/runs", { ability_id: abilityId, inputs: { recipient: RECIPIENT }, caller: "api", schema_version: 1 }),
    ).run;
    for (let tries = 0; ; tries += 1) {
      const run = RunResponseSchema.parse(await api("GET", `/api/runs/${started.dispatch_id}`)).run;
      expect(run.state).not.toBe("needs_confirmation");
      if (run.completed_at !== undefined) {
        expect(run.state).toBe("succeeded");
        expect(run.steps.some((step) => step.standing_grant_id === grant?.grant_id)).toBe(true);
        break;
      }
      if (tries > 600) throw new Error("the granted run never ended");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(site.count("send")).toBe(2);
  }, 180_000);

  it("lists the grant under the skill in Skills, with its terms and last use, and Revoke ends it at once", async () => {
    await panel.locator("[data-run-panel] button::-p-text(Back to Skills)").click();
    await panel.waitForSelector(`${item()} [data-skill-grants] [data-grant-id]`, { timeout: 20_000 });
    const listed = await panel.$eval(`${item()} [data-skill-grants]`, (element) => (element as HTMLElement).innerText);
    expect(listed).toContain("Always allowed (1)");
    expect(listed).toContain("Version 0.1.0");
    expect(listed).toContain("Send message");
    expect(listed).toContain(site.host);
    expect(listed).toContain("these exact inputs (recipient)");
    expect(listed).toContain("last used");
    expect(listed).not.toContain(RECIPIENT);
    await panel.$eval(`${item()} [data-skill-grants]`, (element) => element.scrollIntoView());
    await saveScreenshot(panel, "skills-grants");

    await panel.locator(`${item()} [data-skill-grants] button::-p-text(Revoke)`).click();
    await panel.waitForFunction((selector) => document.querySelector(selector) === null, { timeout: 10_000 }, `${item()} [data-skill-grants]`);
    expect(await grants()).toEqual([]);
    // Revoked: the next run asks again.
    const started = RunResponseSchema.parse(
      await api("POST", "/api/runs", { ability_id: abilityId, inputs: { recipient: RECIPIENT }, caller: "api", schema_version: 1 }),
    ).run;
    for (let tries = 0; ; tries += 1) {
      const run = RunResponseSchema.parse(await api("GET", `/api/runs/${started.dispatch_id}`)).run;
      if (run.state === "needs_confirmation") break;
      expect(run.completed_at).toBeUndefined();
      if (tries > 600) throw new Error("the run never asked");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await api("POST", `/api/runs/${started.dispatch_id}/cancel`, { schema_version: 1 });
    expect(site.count("send")).toBe(2);
  }, 120_000);

  it("a step that deletes needs its own tick before Always allow can be chosen", async () => {
    const row = `[data-ability-id="${deleteId}"]`;
    await panel.waitForSelector(`${row} [data-run-entry="runnable"]`, { timeout: 20_000 });
    await panel.locator(`${row} [data-run-entry] button::-p-text(Run)`).click();
    await panel.waitForSelector("[data-run-form]", { timeout: 10_000 });
    await panel.locator('[data-run-form] [name="message_number"]').fill("grant-ui-number-77");
    await panel.locator("[data-run-form] button[type=submit]").click();
    await runState("needs_confirmation");
    await panel.locator("[data-always-allow-toggle]").click();
    await panel.waitForSelector('[data-grant-class="deletes"]');
    const doIt = "[data-run-confirmation] .row button:first-child";
    expect(await panel.$eval(doIt, (button) => (button as HTMLButtonElement).disabled)).toBe(true);
    expect(await panel.$eval("[data-always-allow]", (element) => (element as HTMLElement).innerText)).toContain(
      "I understand this step deletes something, and allow that too",
    );
    await panel.locator('[data-grant-class="deletes"]').click();
    expect(await panel.$eval(doIt, (button) => (button as HTMLButtonElement).disabled)).toBe(false);
    await panel.select("[data-grant-expiry]", "week");
    const chosenAt = Date.now();
    await saveScreenshot(panel, "run-always-allow-delete");
    await panel.locator("[data-run-confirmation] button::-p-text(Do it, and always allow)").click();
    await runState("succeeded");
    expect(site.count("delete")).toBe(1);
    const listed = RunGrantListResponseSchema.parse(await api("GET", `/api/abilities/${deleteId}/grants`)).grants;
    expect(listed).toEqual([expect.objectContaining({ consequence_classes: ["deletes"], inputs: "exact", state: "active" })]);
    // "For a week": the grant ends seven days after the person chose it.
    const weekMs = 7 * 24 * 60 * 60 * 1000;
    const expiresAt = Date.parse(listed[0]?.expires_at ?? "");
    expect(expiresAt).toBeGreaterThanOrEqual(chosenAt + weekMs - 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + weekMs);
  }, 120_000);
});
