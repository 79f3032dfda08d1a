import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleObservationModules, servePageInChromium, type ServedPage } from "../../../e2e/test-support/observation-test-page";
import type * as SnapshotModule from "./snapshot-observer";
import type * as SnapshotSourceModule from "./snapshot-source";

/**
 * Issue #35: a status or alert the page keeps hidden (a warning rendered with `display: none`, a
 * `hidden` error box) is not in the snapshot, so it can never become a checkpoint's evidence; one
 * shown only to screen readers (clipped, still laid out) is, as the browser announces it.
 */

declare const StatusTest: typeof SnapshotModule & typeof SnapshotSourceModule;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Saved</title>
<style>.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }</style></head><body>
<div role="alert" style="display: none">Your session will expire soon</div>
<div role="alert" hidden>Could not save the page</div>
<div role="status">Page saved</div>
<div role="status" class="sr-only">2 changes saved</div>
</body></html>`;

let served: ServedPage;
let browser: Browser;
let bundle: string;

beforeAll(async () => {
  bundle = await bundleObservationModules(["snapshot/snapshot-observer", "snapshot/snapshot-source"], "StatusTest");
  served = await servePageInChromium(PAGE);
  browser = served.browser;
});

afterAll(async () => {
  await served?.close();
});

describe("status messages in a snapshot", () => {
  it("leaves out the ones the page keeps hidden", async () => {
    const page = await browser.newPage();
    await page.evaluateOnNewDocument(bundle);
    await page.goto(`${served.origin}/`, { waitUntil: "load" });
    const statuses = await page.evaluate(
      () => StatusTest.readPageSnapshot({ window, source: StatusTest.querySource([document]), scrub: (text: string) => text }).snapshot.status_messages,
    );
    expect(statuses).toEqual(["Page saved", "2 changes saved"]);
    await page.close();
  });
});
