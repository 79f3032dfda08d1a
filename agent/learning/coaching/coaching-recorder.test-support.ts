import type { Page } from "puppeteer-core";
import type { CaptureConfig } from "../../../extension/observation/capture-messages";
import { bundleCaptureRuntime, captureConfig } from "../../../e2e/support/content-harness";

/**
 * The extension's recorder in a page the tests lend the Coaching Agent: the very content-capture
 * module the content script runs (bundled with vite), in an isolated world as a content script is,
 * started on every document of the page with a capturing config for `origins`. What it would send
 * to the background is dropped: these tests are about what the agent reads, which goes through the
 * recorder's privacy boundary (extension/observation/coaching-scrub.ts).
 */
let bundle: Promise<string> | undefined;

export async function recordLikeTheExtension(page: Page, origins: string[], overrides: Partial<CaptureConfig> = {}): Promise<void> {
  bundle ??= bundleCaptureRuntime();
  const config = captureConfig(origins, overrides);
  const source = `${await bundle}
;(() => {
  if (window.top !== window) return;
  const capture = ElnorContentCapture.createContentCapture({ send() {} });
  const start = () => capture.setConfig(${JSON.stringify(config)});
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
})();`;
  const cdp = await page.createCDPSession();
  await cdp.send("Page.enable");
  await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source, worldName: "elnor-capture" });
}
