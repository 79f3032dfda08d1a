import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchExtensionBrowser, saveScreenshot, waitForStatus, type ExtensionBrowser } from "../test-support/extension-browser";

let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess | undefined;
let chromium: ExtensionBrowser;
let token: string;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot());
  agent = await startAgentProcess(root);
  token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  chromium = await launchExtensionBrowser();
});

afterAll(async () => {
  await chromium?.close();
  await agent?.stop();
  await cleanup();
});

async function fillPairing(page: import("puppeteer-core").Page, url: string, pairingToken: string) {
  await page.locator('input[name="agent-url"]').fill(url);
  await page.locator('input[name="token"]').fill(pairingToken);
  await page.locator('button[type="submit"]').click();
}

describe("side panel pairing in real Chromium", () => {
  it("shows 'Not paired' with the pairing form on first run", async () => {
    const page = await chromium.openSidePanel();
    await waitForStatus(page, "unpaired");
    expect(await page.$eval("h1", (h1) => h1.textContent)).toBe("Ability Learning");
    await saveScreenshot(page, "pairing-first-run");
    await page.close();
  });

  it("says 'Token rejected' for a wrong token and stores nothing", async () => {
    const page = await chromium.openSidePanel();
    await waitForStatus(page, "unpaired");
    await fillPairing(page, agent!.url, "wrong-token-wrong-token-wrong-token-wrong");
    await waitForStatus(page, "token_rejected");
    expect(await page.$eval('[role="status"]', (el) => el.textContent)).toContain("Token rejected");
    await saveScreenshot(page, "pairing-token-rejected");
    await expect(readFile(path.join(root, "system/agent/pairing.json"))).rejects.toMatchObject({ code: "ENOENT" });
    await page.close();
  });

  it("pairs with the token the agent printed, and the agent learns the extension id", async () => {
    const page = await chromium.openSidePanel();
    await waitForStatus(page, "unpaired");
    await fillPairing(page, agent!.url, token);
    await waitForStatus(page, "connected");
    await saveScreenshot(page, "pairing-connected");
    const pairing = JSON.parse(await readFile(path.join(root, "system/agent/pairing.json"), "utf8")) as { extension_id: string };
    expect(pairing.extension_id).toBe(chromium.extensionId);
    // The token is a secret: it is never shown back on the page once paired.
    expect(await page.content()).not.toContain(token);
    await page.close();
  });

  it("stays connected after the panel is reopened (pairing kept in extension storage)", async () => {
    const page = await chromium.openSidePanel({ width: 1024, height: 700 });
    await waitForStatus(page, "connected");
    await saveScreenshot(page, "pairing-connected-wide");
    await page.close();
  });

  it("says 'Agent unreachable' with a Retry when the agent is down, and reconnects on Retry", async () => {
    const port = agent!.port;
    expect(await agent!.stop()).toBe(0);
    const page = await chromium.openSidePanel();
    await waitForStatus(page, "unreachable");
    await saveScreenshot(page, "pairing-unreachable");
    agent = await startAgentProcess(root, { ELNOR_AGENT_PORT: String(port) });
    await page.locator("button::-p-text(Retry)").click();
    await waitForStatus(page, "connected");
    await page.close();
  });
});
