import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRehearsalSite, type RehearsalSite } from "../../e2e/rehearsal-fixtures/server";
import { TestPolicySchema } from "../../shared/learning/sessions/test-policy";
import type { RecorderFlow } from "../../shared/execution/recorder-flow";
import { execute } from "./executor";
import { BrowserUnavailable, type BrowserProvider } from "./contract/executor-contract";
import { CHROMIUM_ARGS } from "./managed-browser";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * A provider other than the managed one, as the in-tab driver lends the person's tab: the executor
 * acts in `lease.page` only, guards that page's own requests, leaves its size alone, takes its
 * guards off again and gives the lease back without closing anything.
 */
describe("the executor in a page another provider lends", () => {
  let site: RehearsalSite;
  let other: RehearsalSite;
  let browser: Browser;
  let profile: string;

  beforeAll(async () => {
    other = await serveRehearsalSite();
    site = await serveRehearsalSite({ otherOrigin: other.origin });
    profile = await mkdtemp(path.join(tmpdir(), "elnor-executor-lease-"));
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, pipe: true, userDataDir: profile, args: [...CHROMIUM_ARGS] });
  });
  afterAll(async () => {
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
    await site.close();
    await other.close();
  });

  it("acts in the lent page under the policy, leaves its viewport, and gives it back as it was", async () => {
    const page: Page = await browser.newPage();
    await page.setViewport({ width: 900, height: 700 });
    let released = 0;
    const provider: BrowserProvider = async () => ({ where: "user_tab", browser, page, release: async () => void (released += 1) });
    const flow: RecorderFlow = {
      title: "Load my avatar",
      steps: [
        { type: "setViewport", width: 1280, height: 800, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: true },
        { type: "navigate", url: `${site.origin}/leaky.html` },
        { type: "click", selectors: [['aria/Load avatar[role="button"]']], offsetX: 1, offsetY: 1 },
      ],
      step_ids: [null, null, "s2"],
    };
    const otherBefore = other.requests.length;
    const result = await execute({
      flow,
      checkpoints: [],
      parameters: [],
      values: {},
      policy: TestPolicySchema.parse({
        policy_id: randomUUID(),
        mode: "controlled_live_test",
        allowed_domains: [`127.0.0.1:${site.port}`],
        forbid_external_send: true,
        schema_version: 1,
      }),
      browser: provider,
      stepTimeoutMs: 3_000,
    });

    expect(result.steps[0]).toMatchObject({ test_case_id: "step:setup-1", result: "passed", details: "viewport left as the tab has it (recorded 1280×800)" });
    expect(page.viewport()).toMatchObject({ width: 900, height: 700 });
    expect(result.policy_violation?.message).toContain(`request to ${other.origin} refused`);
    expect(other.requests.length).toBe(otherBefore);
    expect(released).toBe(1);
    expect(page.isClosed()).toBe(false);
    expect(page.url()).toBe(`${site.origin}/leaky.html`);

    // The guards are gone: the page's own requests go out again, and its dialogs are its own.
    expect(page.listenerCount("dialog")).toBe(0);
    await page.click("#load-avatar");
    await expect.poll(() => other.requests.length, { timeout: 5_000 }).toBeGreaterThan(otherBefore);
    await page.close();
  });

  it("says why when the provider has no browser to lend, and replays nothing", async () => {
    const provider: BrowserProvider = async () => {
      throw new BrowserUnavailable("The extension is not connected.");
    };
    const flow: RecorderFlow = { title: "Open", steps: [{ type: "navigate", url: `${site.origin}/leaky.html` }], step_ids: [null] };
    const before = site.requests.length;
    const result = await execute({
      flow,
      checkpoints: [],
      parameters: [],
      values: {},
      policy: TestPolicySchema.parse({ policy_id: randomUUID(), mode: "controlled_live_test", allowed_domains: ["127.0.0.1"], schema_version: 1 }),
      browser: provider,
    });

    expect(result.overall).toBe("partial");
    expect(result.steps).toEqual([
      {
        test_case_id: "step:browser",
        label: "Get the browser to act in",
        result: "skipped",
        details: "The extension is not connected. The flow was not replayed.",
      },
    ]);
    expect(site.requests.length).toBe(before);
  });
});
