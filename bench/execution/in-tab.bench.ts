import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { buildApp } from "../../agent/app/app";
import { execute } from "../../agent/execution/executor";
import { openMemoryStore } from "../../agent/memory/memory-store";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { serveRehearsalSite, type RehearsalSite } from "../../e2e/rehearsal-fixtures/server";
import { launchExtensionBrowser, pairPanel } from "../../e2e/test-support/extension-browser";
import { TestPolicySchema } from "../../shared/learning/sessions/test-policy";
import type { BenchResult } from "../bench-result";
import { CHECKPOINTS, ROUNDS, VALUES, firstRequestAfter, flowOf, median, replayFlowOf, timeReplay } from "./executor.bench";

/**
 * Issue #21, "in my browser": the executor acting in a tab of Chromium with the built extension,
 * the agent driving it over the extension's WebSocket (CDP relayed through chrome.debugger), on
 * the same flow and checkpoints as the managed figure, beside `@puppeteer/replay` replaying the
 * Recorder flow in a fresh page of that same Chromium over its own pipe. Time from "run" (asking
 * for the tab) to the first action (the site's first page request), and per step after it.
 * Median of ROUNDS alternating runs after one warm-up each. Needs `npm run build` first.
 */

async function timeInTab(lease: () => Promise<ReturnType<Awaited<ReturnType<typeof buildApp>>["userTab"]["lease"]>>, site: RehearsalSite) {
  const flow = flowOf(site.origin);
  const policy = TestPolicySchema.parse({ policy_id: randomUUID(), mode: "controlled_live_test", allowed_domains: ["127.0.0.1"], schema_version: 1 });
  const provider = await lease();
  // The tab is lent inside execute(): the time to the first action includes the attach and handshake.
  const start = performance.now();
  const first = firstRequestAfter(site, site.requests.length);
  let last = start;
  const result = await execute({
    flow,
    checkpoints: CHECKPOINTS,
    parameters: [{ name: "password", type_hint: "secret" }],
    values: VALUES,
    policy,
    browser: provider,
    onProgress: () => void (last = performance.now()),
  });
  if (result.overall !== "passed")
    throw new Error(`the in-tab executor did not pass the bench flow: ${JSON.stringify(result.steps.filter((step) => step.result !== "passed"))}`);
  const firstAt = await first;
  return { toFirst: firstAt - start, perStep: (last - firstAt) / (flow.steps.length - 1) };
}

export async function benchInTab(): Promise<BenchResult[]> {
  const { root, cleanup } = await makeTempMemoryRoot("elnor-bench-in-tab-");
  const memory = await openMemoryStore({ root });
  const app = await buildApp({ memory, port: 0 });
  const site = await serveRehearsalSite({ posts: { "/signup": "/welcome.html" } });
  const chromium = await launchExtensionBrowser();
  try {
    const agentUrl = await app.listen({ host: "127.0.0.1", port: 0 });
    const panel = await chromium.openSidePanel();
    await pairPanel(panel, agentUrl, (await readFile(path.join(root, "system/agent/token"), "utf8")).trim());
    const access = (await panel.evaluate(() => chrome.runtime.sendMessage({ type: "run/allow-in-tab", allowed: true }))) as { in_tab_allowed: boolean };
    if (!access.in_tab_allowed) throw new Error("in-tab runs could not be allowed in the bench browser");
    // The person's tab, already on the site (as a run from the side panel would find it).
    const tab: Page = await chromium.browser.newPage();
    await tab.goto(`${site.origin}/signup.html`);
    const tabId = await panel.evaluate(async (url) => (await chrome.tabs.query({})).find((candidate) => candidate.url === url)?.id, tab.url());
    if (tabId === undefined) throw new Error("the bench tab has no id");
    const lease = async () =>
      app.userTab.lease({ dispatch_id: `bench-${randomUUID()}`, allowed_domains: [new URL(site.origin).host], tab_id: tabId, label: "Bench" });

    const replayFlow = replayFlowOf(flowOf(site.origin), site.origin);
    await timeInTab(lease, site);
    await timeReplay(chromium.browser, site, replayFlow);
    const ours: Array<{ toFirst: number; perStep: number }> = [];
    const theirs: Array<{ toFirst: number; perStep: number }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      ours.push(await timeInTab(lease, site));
      theirs.push(await timeReplay(chromium.browser, site, replayFlow));
    }
    const perStep = median(ours.map((run) => run.perStep));
    const replayPerStep = median(theirs.map((run) => run.perStep));
    return [
      {
        name: "executor (in-tab, via extension): run → first action",
        value: median(ours.map((run) => run.toFirst)),
        unit: "ms",
        baselineName: "@puppeteer/replay, new page",
        baseline: median(theirs.map((run) => run.toFirst)),
        target: "reported",
        pass: true,
      },
      {
        name: "executor (in-tab, via extension): per step, proving 4 checkpoints",
        value: perStep,
        unit: "ms",
        baselineName: "@puppeteer/replay, no checkpoint",
        baseline: replayPerStep,
        target: "≤ 1.2× replay",
        pass: perStep <= 1.2 * replayPerStep,
      },
    ];
  } finally {
    await chromium.close().catch(() => undefined);
    await app.close().catch(() => undefined);
    await memory.close().catch(() => undefined);
    await site.close();
    await cleanup();
  }
}

/** Inside `page.evaluate` on an extension page, its own `chrome` global. */
declare const chrome: typeof import("wxt/browser").Browser;
