import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "puppeteer-core";
import { firstLine } from "./checkpoints/checkpoint-check";
import { BrowserUnavailable, type BrowserLease, type BrowserProvider } from "./contract/executor-contract";
import { sleep } from "./contract/execution-util";

export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";
/** Folder-name prefix of the throw-away profiles under the OS temp dir. */
export const MANAGED_PROFILE_PREFIX = "elnor-rehearsal-";
const CLOSE_TIMEOUT_MS = 5_000;
export const MANAGED_BROWSER_LABEL = "Start a fresh headless Chromium profile";

/**
 * Flags that let Debian's Chromium run headless here without reaching for Google's services
 * (the e2e tests launch with the same list). No extension is loaded: the execution is the page alone.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface ManagedBrowserOptions {
  chromiumPath?: string;
  /** Where the throw-away profile folder is made (the OS temp dir by default); it is removed on release. */
  tempDir?: string;
}

/**
 * The default `BrowserProvider`: a fresh headless Chromium with a throw-away profile (none of the
 * person's logins), one new page, and on release the browser closed (killed if it hangs) and the
 * profile removed. Throws `BrowserUnavailable` with the reason a person reads.
 */
export function managedBrowser(options: ManagedBrowserOptions = {}): BrowserProvider {
  const chromiumPath = options.chromiumPath ?? DEFAULT_CHROMIUM_PATH;
  const provider: BrowserProvider = async ({ deadline }) => {
    if (!existsSync(chromiumPath))
      throw new BrowserUnavailable(`No Chromium at ${chromiumPath}: install Debian's chromium package (or set the agent's Chromium path).`);
    const profile = await mkdtemp(path.join(options.tempDir ?? tmpdir(), MANAGED_PROFILE_PREFIX));
    const removeProfile = () => rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    let browser: Browser;
    try {
      // puppeteer is loaded by the first run, not at agent start (about 0.2 s and 20 MB; issue 17).
      const { default: puppeteer } = await import("puppeteer-core");
      browser = await puppeteer.launch({
        executablePath: chromiumPath,
        headless: true,
        pipe: true,
        userDataDir: profile,
        args: [...CHROMIUM_ARGS],
        timeout: Math.max(1_000, Math.min(30_000, deadline - Date.now())),
        protocolTimeout: 30_000,
      });
    } catch (error) {
      await removeProfile();
      throw new BrowserUnavailable(`Chromium at ${chromiumPath} could not start (${firstLine(error)}).`);
    }
    const release = async () => {
      await closeBrowser(browser);
      await removeProfile();
    };
    try {
      const page = await browser.newPage();
      const lease: BrowserLease = { where: "managed", browser, page, release };
      return lease;
    } catch (error) {
      await release();
      throw new BrowserUnavailable(`Chromium started but no page could be opened (${firstLine(error)}).`);
    }
  };
  provider.label = MANAGED_BROWSER_LABEL;
  return provider;
}

async function closeBrowser(browser: Browser): Promise<void> {
  const closed = browser.close().then(
    () => true,
    () => false,
  );
  const inTime = await Promise.race([closed, sleep(CLOSE_TIMEOUT_MS).then(() => false)]);
  // A wedged browser is killed rather than left running after the execution.
  if (!inTime) browser.process()?.kill("SIGKILL");
}
