import type { Page } from "puppeteer-core";
import type * as IndexKindsModule from "../../extension/observation/page-index/index-kinds";
import type * as PageIndexModule from "../../extension/observation/page-index/page-index";
import type * as SnapshotModule from "../../extension/observation/snapshot/snapshot-observer";
import type * as SnapshotSourceModule from "../../extension/observation/snapshot/snapshot-source";
import type * as SelectorsModule from "../../extension/observation/selectors/selectors";
import type * as NamesModule from "../../extension/observation/names/accessible-name";
import type * as SubtreeTextModule from "../../extension/observation/names/subtree-text";
import type * as StateStylesModule from "../../extension/observation/snapshot/state-styles";
import { bundleObservationModules, servePageInChromium } from "./observation-test-page";

/**
 * For the page index's tests (extension/observation/page-index/*.test.ts): the observation modules they use,
 * bundled into the page as the global `Observation`, a test page, and pages opened on it with one page index
 * (`globalThis.index`) already reading it, as the observer keeps one.
 */

/** What the bundle defines in the page as `Observation`; a test file declares `declare const Observation: PageIndexObservation`. */
export type PageIndexObservation = typeof PageIndexModule &
  typeof IndexKindsModule &
  typeof SnapshotModule &
  typeof SnapshotSourceModule &
  typeof SelectorsModule &
  typeof NamesModule &
  typeof SubtreeTextModule &
  typeof StateStylesModule;
declare const Observation: PageIndexObservation;

/** What `openPage` leaves on the page's `globalThis`: the index, and a node the index treats as ours (ignored). */
export interface PageIndexState {
  index: PageIndexModule.PageIndex;
  own: Element;
}

const MODULES = [
  "page-index/page-index",
  "page-index/index-kinds",
  "snapshot/snapshot-observer",
  "snapshot/snapshot-source",
  "selectors/selectors",
  "names/accessible-name",
  "names/subtree-text",
  "snapshot/state-styles",
];

/** A page with a bit of everything a snapshot lists: a form with labels, buttons, links, headings, landmarks, status, an editable region. */
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Index test</title><style id="page-style"></style></head><body>
<header><nav aria-label="Main"><a href="/a">Home</a> <a href="/b" id="orders-link">Orders</a> <a>No href</a></nav></header>
<main id="main">
  <h1>Orders</h1>
  <section aria-labelledby="form-heading"><h2 id="form-heading">New order</h2>
    <form id="order" aria-label="Order form">
      <label for="name">Name</label><input id="name" name="name" required>
      <label>Email <input type="email" id="email"></label>
      <label for="country">Country</label><select id="country"><option>France</option><option>Spain</option></select>
      <textarea id="notes" aria-label="Notes"></textarea>
      <input type="checkbox" id="agree"><label for="agree">I agree</label>
      <input type="submit" value="Save order"> <button type="button" id="apply">Apply</button>
    </form>
  </section>
  <section id="list"><h2>Catalogue</h2><ul id="rows">${Array.from({ length: 30 }, (_, index) => `<li id="row-${index}"><span>Item ${index % 7}</span> <button class="add">Add</button></li>`).join("")}</ul></section>
  <p role="status" id="status">Ready</p>
  <div contenteditable="true" id="editor" aria-label="Editor"><p>Typed <b>text</b></p></div>
  <input id="loose" placeholder="Search"> <div role="button" tabindex="0" id="fake">Open menu</div>
</main>
<footer><a href="#top">Top</a></footer>
</body></html>`;

export interface PageIndexWorld {
  /** A new tab on the test page, with `Observation` defined and one index over the document (`globalThis.index`). */
  openPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Bundles the modules, serves the test page and launches Chromium: call in `beforeAll`, `close` in `afterAll`. */
export async function startPageIndexWorld(): Promise<PageIndexWorld> {
  const bundle = await bundleObservationModules(MODULES, "Observation");
  const served = await servePageInChromium(PAGE);
  const { browser, origin } = served;
  return {
    close: () => served.close(),
    openPage: async () => {
      const page = await browser.newPage();
      await page.evaluateOnNewDocument(bundle);
      await page.goto(`${origin}/`, { waitUntil: "load" });
      // One index per page, as the observer keeps it; shadow roots that arrive are indexed too.
      await page.evaluate(() => {
        const state = globalThis as unknown as PageIndexState;
        state.own = document.createElement("elnor-own");
        state.index = Observation.createPageIndex({
          onFrame: () => undefined,
          onShadowRoot: (root) => state.index.addRoot(root),
          isOwnNode: (node) => node === state.own,
          guard: { wrap: (callback) => callback },
        });
        state.index.addRoot(document);
      });
      return page;
    },
  };
}
