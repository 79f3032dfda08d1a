import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleObservationModules, servePageInChromium, type ServedPage } from "../../../e2e/test-support/observation-test-page";
import type * as NamesModule from "./accessible-name";
import type * as SelectorsModule from "../selectors/selectors";

/**
 * Issue #35 "Names": a data-entry grid's unlabelled fields are named by their column header, else
 * by their row's label, in real Chromium; a field named so gets no `aria/` selector, since the
 * browser does not know it by that name.
 */

declare const NameTest: typeof NamesModule & typeof SelectorsModule;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Insert</title></head><body>
<table id="grid">
  <thead><tr><th>Column</th><th>Type</th><th>Value</th></tr></thead>
  <tbody>
    <tr><td>name</td><td>varchar</td><td><input id="v1"></td></tr>
    <tr><td>email</td><td>varchar</td><td><input id="v2"></td></tr>
  </tbody>
</table>
<table id="people">
  <tr><th>Name</th><th colspan="2">Contact</th><th>Notes</th></tr>
  <tr><td><input id="p-name"></td><td>mail</td><td><input id="p-mail"></td><td><textarea id="p-notes"></textarea></td></tr>
</table>
<table><tr><th scope="row">Birthday</th><td><input id="birthday"></td></tr></table>
<table><tr><td><input id="labelled" aria-label="Own name"></td></tr></table>
<p><input id="loose"></p>
</body></html>`;

let served: ServedPage;
let browser: Browser;
let bundle: string;

beforeAll(async () => {
  bundle = await bundleObservationModules(["names/accessible-name", "selectors/selectors"], "NameTest");
  served = await servePageInChromium(PAGE);
  browser = served.browser;
});

afterAll(async () => {
  await served?.close();
});

describe("fields in tables (issue #35)", () => {
  it("takes the row's label in a grid of rows under one header, else the column header; keeps a field's own name; gives no aria selector for a header-only name", async () => {
    const page = await browser.newPage();
    await page.evaluateOnNewDocument(bundle);
    await page.goto(`${served.origin}/`, { waitUntil: "load" });
    const names = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll("input, textarea")].map((field) => [
          field.id,
          {
            name: NameTest.accessibleName(field),
            aria: NameTest.selectorsFor(field, NameTest.accessibleName(field)).some((parts) => parts[0]?.startsWith("aria/")),
          },
        ]),
      ),
    );
    expect(names).toEqual({
      v1: { name: "name", aria: false },
      v2: { name: "email", aria: false },
      "p-name": { name: "Name", aria: false },
      "p-mail": { name: "Contact", aria: false },
      "p-notes": { name: "Notes", aria: false },
      birthday: { name: "Birthday", aria: false },
      labelled: { name: "Own name", aria: true },
      loose: { name: "", aria: false },
    });
    await page.close();
  });
});
