import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleObservationModules, servePageInChromium, type ServedPage } from "../../../e2e/test-support/observation-test-page";
import type * as NamesModule from "../names/name-cache";
import type * as IndexKindsModule from "../page-index/index-kinds";
import type * as PageIndexModule from "../page-index/page-index";
import type * as SelectorsModule from "./selectors";

/**
 * Selectors built with what the page index remembers (names, each label's text, the document's
 * labels) are the selectors built from the page as it is now, in real Chromium, after every change
 * that could make a remembered answer stale: a label added, renamed, re-targeted or removed.
 */

type Modules = typeof NamesModule & typeof PageIndexModule & typeof SelectorsModule;
declare const SelectorTest: Modules;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Selectors</title></head><body>
<form id="f">
  <div><label for="first">First name</label><input id="first"></div>
  <div><label for="last">Last name</label><input id="last"></div>
  <div><label>Email <input type="email" id="email"></label></div>
  <div><label for="city">City</label><select id="city"><option>Oslo</option></select></div>
</form></body></html>`;

let browser: Browser;
let served: ServedPage;
let origin: string;
let bundle: string;

beforeAll(async () => {
  bundle = await bundleObservationModules(["names/name-cache", "page-index/page-index", "selectors/selectors"], "SelectorTest");
  served = await servePageInChromium(PAGE);
  ({ browser, origin } = served);
});

afterAll(async () => {
  await served?.close();
});

async function openPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.evaluateOnNewDocument(bundle);
  await page.goto(`${origin}/`, { waitUntil: "load" });
  await page.evaluate(() => {
    const state = globalThis as unknown as { index: PageIndexModule.PageIndex };
    state.index = SelectorTest.createPageIndex({
      onFrame: () => undefined,
      onShadowRoot: () => undefined,
      isOwnNode: () => false,
      guard: { wrap: (callback) => callback },
    });
    state.index.addRoot(document);
  });
  return page;
}

/** Each step changes the page, then every field's selectors are built with the index (after the first build filled its caches) and afresh. */
const STEPS: readonly string[] = [
  "",
  // A second label with the same text: the label XPath of First name no longer finds one element.
  `document.getElementById("f").insertAdjacentHTML("beforeend", '<div><label for="other">First name</label><input id="other"></div>')`,
  // That label renamed: First name's XPath is unique again; the renamed one gets its own.
  `document.querySelector('label[for="other"]').textContent = "Nickname"`,
  // A label's text changed through its text node only.
  `document.querySelector('label[for="last"]').firstChild.data = "Family name"`,
  // A label re-targeted to another field.
  `document.querySelector('label[for="city"]').setAttribute("for", "first")`,
  // A label removed.
  `document.querySelector('label[for="first"]').remove()`,
  // The nested label's text changed around its field.
  `document.querySelector("#email").parentElement.firstChild.data = "E-mail "`,
];

describe("selectors built with the index's memory", () => {
  it("equal selectors built afresh after every label change", async () => {
    const page = await openPage();
    const rounds = await page.evaluate((steps: readonly string[]) => {
      const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
      const context = {
        names: index.names,
        elements: (root: IndexKindsModule.Root, kind: IndexKindsModule.IndexKind) => (index.hasRoot(root) ? index.elements(root, kind) : undefined),
      };
      const build = (cached: boolean) =>
        [...document.querySelectorAll("input, select")].map((field) => {
          const names = cached ? index.names : SelectorTest.UNCACHED_NAMES;
          return `${field.id}: ${JSON.stringify(SelectorTest.selectorsFor(field, names.name(field), cached ? context : { names }))}`;
        });
      return steps.map((step) => {
        if (step) new Function(step)();
        index.sync();
        build(true); // fills the caches
        index.sync();
        return { step, cached: build(true), fresh: build(false) };
      });
    }, STEPS);
    for (const { step, cached, fresh } of rounds) expect(cached, step || "the page as loaded").toEqual(fresh);
    // The label XPath was offered and withdrawn along the way (the steps did exercise it).
    const first = rounds.map((round) => round.fresh.find((line) => line.startsWith("first:"))!.includes("label[normalize-space()"));
    expect(first).toEqual([true, false, true, true, false, true, true]);
    await page.close();
  });
});
