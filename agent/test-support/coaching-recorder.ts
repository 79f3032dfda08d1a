import type { Page } from "puppeteer-core";
import type { CaptureConfig } from "../../extension/observation/common/capture-messages";
import type { BrowserLease } from "../execution/contract/executor-contract";
import { bundleCaptureRuntime, captureConfig } from "../../e2e/test-support/content-harness";

/**
 * The extension's recorder in a page the tests lend the Coaching Agent: the very content-capture
 * module the content script runs (bundled with vite), in an isolated world as a content script is,
 * started on every document of the page with a capturing config for `origins`. What it would send
 * to the background is dropped: these tests are about what the agent reads.
 *
 * Returns the lease's `readRecorded`: it asks the recorder in its isolated world (through CDP, as
 * the service worker asks the content script over the extension's messaging), never the page.
 */
let bundle: Promise<string> | undefined;
const WORLD = "elnor-capture";

export async function recordLikeTheExtension(
  page: Page,
  origins: string[],
  overrides: Partial<CaptureConfig> = {},
): Promise<NonNullable<BrowserLease["readRecorded"]>> {
  bundle ??= bundleCaptureRuntime();
  const config = captureConfig(origins, overrides);
  const source = `${await bundle}
;(() => {
  if (window.top !== window) return;
  const capture = ElnorContentCapture.createContentCapture({ send() {} });
  globalThis.__elnorCoachingCapture = capture;
  const start = () => capture.setConfig(${JSON.stringify(config)});
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
})();`;
  const cdp = await page.createCDPSession();
  await cdp.send("Page.enable");
  const { frameTree } = await cdp.send("Page.getFrameTree");
  let contextId: number | undefined;
  cdp.on("Runtime.executionContextCreated", ({ context }) => {
    const auxData = context.auxData as { frameId?: string } | undefined;
    if (context.name === WORLD && auxData?.frameId === frameTree.frame.id) contextId = context.id;
  });
  await cdp.send("Runtime.enable");
  await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source, worldName: WORLD });
  return async (highlight) => {
    if (contextId === undefined) return { read: null, why: "no recorder of the page answered" };
    const expression = `(globalThis.__elnorCoachingCapture?.coachingRead(${JSON.stringify(highlight)}) ?? null)`;
    const result = await cdp.send("Runtime.evaluate", { expression, contextId, returnByValue: true }).catch(() => undefined);
    const read = (result?.result.value ?? null) as Awaited<ReturnType<NonNullable<BrowserLease["readRecorded"]>>>["read"];
    return read === null ? { read: null, why: "no recorder of the page answered" } : { read };
  };
}
