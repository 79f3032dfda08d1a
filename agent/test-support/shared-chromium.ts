import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll } from "vitest";
import { CHROMIUM_ARGS } from "../execution/managed-browser";
import type { BrowserLease, BrowserProvider, ExecuteInput, ExecuteResult } from "../execution/contract/executor-contract";
import { execute } from "../execution/executor";
import { CHROMIUM } from "./executor-harness";

/**
 * One real headless Chromium for a test file's executions, as the managed browser starts it (same
 * flags, a throw-away profile), each lease a page in a context of its own (its own cookies, storage
 * and cache), closed on release. For tests of what the executor does in a page: starting Chromium
 * costs more CPU on this 2-core machine than most of those tests' steps. What the managed browser
 * itself does (a fresh profile per run, removed after, a browser that will not start) stays tested
 * with `managedBrowser`: the rehearsal tests that name a profile folder or a Chromium, the
 * executor's late-list test, and every test that runs through an agent.
 */
interface SharedChromium {
  provider: BrowserProvider;
  close(): Promise<void>;
}

/**
 * A shared Chromium for the calling test file: started before its tests, closed after them. The
 * provider it returns leases from it (a file's tests run one after another, and so do its leases).
 */
export function shareChromiumInFile(): BrowserProvider {
  let shared: SharedChromium | undefined;
  beforeAll(async () => {
    shared = await startSharedChromium();
  });
  afterAll(async () => {
    await shared?.close();
  });
  const provider: BrowserProvider = (options) => {
    if (shared === undefined) throw new Error("the file's shared Chromium is not started (call shareChromiumInFile at the top of the file)");
    return shared.provider(options);
  };
  provider.label = SHARED_LABEL;
  return provider;
}

const SHARED_LABEL = "A page in a fresh context of the test file's headless Chromium";

async function startSharedChromium(): Promise<SharedChromium> {
  const profile = await mkdtemp(path.join(tmpdir(), "elnor-shared-chromium-"));
  const browser: Browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, pipe: true, userDataDir: profile, args: [...CHROMIUM_ARGS] });
  const provider: BrowserProvider = async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const lease: BrowserLease = { where: "managed", browser, page, release: () => context.close().catch(() => undefined) };
    return lease;
  };
  provider.label = SHARED_LABEL;
  return {
    provider,
    async close() {
      await browser.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The agent's own executor (`agent-services.ts`), leasing from `provider` where it would start a managed Chromium: `startTestAgent({ execute: executorOn(provider) })`. */
export const executorOn =
  (provider: BrowserProvider) =>
  (input: ExecuteInput): Promise<ExecuteResult> =>
    execute({ ...input, browser: input.browser ?? provider });
