import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { CHROMIUM_ARGS } from "../../agent/execution/managed-browser";
import { projectRoot } from "../../agent/test-support/agent-process";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const EXTENSION_DIR = path.join(projectRoot, ".output", "chrome-mv3");
export const ARTIFACTS_DIR = path.join(projectRoot, "e2e", "artifacts");

export interface ExtensionBrowser {
  browser: Browser;
  extensionId: string;
  openSidePanel(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Debian's Chromium with the built extension loaded into a fresh profile. The flags keep
 * Chromium from reaching for Google's services, which this closed network refuses.
 */
export async function launchExtensionBrowser(extensionDir = EXTENSION_DIR): Promise<ExtensionBrowser> {
  if (!existsSync(path.join(extensionDir, "manifest.json"))) {
    throw new Error(`No built extension at ${extensionDir}: run \`npm run build\` first (npm test does).`);
  }
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (.ci/run does).`);
  }
  const profile = await mkdtemp(path.join(tmpdir(), "elnor-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    pipe: true,
    enableExtensions: [extensionDir],
    userDataDir: profile,
    args: [...CHROMIUM_ARGS],
  });
  const worker = await browser.waitForTarget((target) => target.type() === "service_worker" && target.url().endsWith("/background.js"), {
    timeout: 15_000,
  });
  const extensionId = new URL(worker.url()).host;
  return {
    browser,
    extensionId,
    async openSidePanel(viewport = { width: 360, height: 720 }) {
      const page = await browser.newPage();
      await page.setViewport(viewport);
      await page.goto(`chrome-extension://${extensionId}/sidepanel.html`);
      return page;
    },
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  // From the top: a sticky element (the observation banner) is drawn where the scroll left it.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file as `${string}.png`, fullPage: true });
  return file;
}

export async function waitForStatus(page: Page, status: string): Promise<void> {
  await page.waitForSelector(`[data-status="${status}"]`, { timeout: 10_000 });
}

/** Pairs an opened side panel with an agent as a person does on first run: the agent's address and token, then Connected. */
export async function pairPanel(panel: Page, agentUrl: string, token: string): Promise<void> {
  await waitForStatus(panel, "unpaired");
  await panel.locator('input[name="agent-url"]').fill(agentUrl);
  await panel.locator('input[name="token"]').fill(token);
  await panel.locator('button[type="submit"]').click();
  await waitForStatus(panel, "connected");
}
