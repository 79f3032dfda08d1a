import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleObservationModules, servePageInChromium, type ServedPage } from "./observation-test-page";
import type * as NamesModule from "./accessible-name";
import type * as PageIndexModule from "./page-index";
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
  bundle = await bundleObservationModules(["accessible-name", "page-index", "selectors"], "SelectorTest");
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
    state.index = SelectorTest.createPageIndex({ onFrame: () => undefined, onShadowRoot: () => undefined, isOwnNode: () => false, guard: { wrap: (callback) => callback } });
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
      const context = { names: index.names, elements: (root: PageIndexModule.Root, kind: PageIndexModule.IndexKind) => (index.hasRoot(root) ? index.elements(root, kind) : undefined) };
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

/**
 * The page index remembers, per root, how often a text occurs in the root's whole text (what a
 * text selector's uniqueness check asks at each click) until a text of that root changes. Here
 * every answer is asked first (filling the memory), then the page changes, then the remembered
 * answer must be the one a fresh read of the page gives — for counts and for the selectors built
 * from them — through text added, renamed, removed, moved and made to straddle two nodes, in the
 * document and in an open shadow root.
 */
const TEXT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Texts</title></head><body>
<main id="m"><p id="intro">Welcome to the shop</p>
<p><button id="save">Save order</button> <button id="remove">Remove</button> <button id="clear">Clear cart</button></p>
<ul id="list">${Array.from({ length: 40 }, (_, index) => `<li><span>Item ${index}</span> <button class="pick">Pick</button></li>`).join("")}</ul>
</main></body></html>`;

const TEXTS = ["Save order", "Remove", "Saved", "Keep", "Pick", "Clear cart", "Welcome to the shop", "Save", "Item 3"];

const TEXT_STEPS: readonly string[] = [
  "",
  // Added: a second "Save order".
  `document.getElementById("m").insertAdjacentHTML("beforeend", '<p id="extra">Save order</p>')`,
  // Renamed through its text node only.
  `document.getElementById("extra").firstChild.data = "Saved"`,
  // Removed.
  `document.getElementById("remove").remove()`,
  // Moved: same texts, another place.
  `document.getElementById("list").append(document.getElementById("save"))`,
  // Straddling two text nodes: "Clear" and " cart" in two spans make a second occurrence.
  `document.getElementById("intro").insertAdjacentHTML("afterend", '<p><span>Clear</span> <span>cart</span></p>')`,
  // A shadow root arrives with its host, holding "Remove" and "Keep".
  `const host = document.createElement("div"); host.id = "host"; host.attachShadow({ mode: "open" }).innerHTML = '<button id="inner">Remove</button> <b>Keep</b>'; document.getElementById("m").append(host)`,
  // Text inside the shadow root changes: "Keep" becomes "Remove", twice there.
  `document.getElementById("host").shadowRoot.querySelector("b").textContent = "Remove"`,
  // Removed from the shadow root.
  `document.getElementById("host").shadowRoot.getElementById("inner").remove()`,
  // The straddling pair joined into one text node, then the whole paragraph removed.
  `const pair = document.querySelector("#intro + p"); pair.textContent = "Clear cart"; pair.remove()`,
];

async function openTextPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.evaluateOnNewDocument(bundle);
  await page.goto(`${origin}/texts`, { waitUntil: "load" });
  await page.evaluate((html: string) => {
    document.documentElement.innerHTML = html.replace(/^<!doctype html>/, "");
    const state = globalThis as unknown as { index: PageIndexModule.PageIndex };
    state.index = SelectorTest.createPageIndex({
      onFrame: () => undefined,
      onShadowRoot: (root) => state.index.addRoot(root),
      isOwnNode: () => false,
      guard: { wrap: (callback) => callback },
    });
    state.index.addRoot(document);
  }, TEXT_PAGE);
  return page;
}

describe("text counts remembered by the page index", () => {
  it("equal a fresh count, and text selectors equal fresh ones, after every text change", async () => {
    const page = await openTextPage();
    const rounds = await page.evaluate(
      (steps: readonly string[], texts: readonly string[]) => {
        const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
        const context = {
          names: index.names,
          elements: (root: PageIndexModule.Root, kind: PageIndexModule.IndexKind) => (index.hasRoot(root) ? index.elements(root, kind) : undefined),
          textCount: index.textCount,
        };
        const rootName = (root: PageIndexModule.Root) => (root instanceof ShadowRoot ? `#${root.host.id}` : "document");
        const counts = (cached: boolean) =>
          index.roots().flatMap((root) =>
            texts.map((text) => {
              const count = (whole: string) => SelectorTest.countOccurrences(whole, text, 2);
              return `${rootName(root)} ${text}: ${cached ? index.textCount(root, text, count) : count(SelectorTest.wholeText(root))}`;
            }),
          );
        const buttons = () => index.roots().flatMap((root) => [...root.querySelectorAll("button, p, b")]);
        const selectors = (cached: boolean) =>
          buttons().map((element) => {
            const names = cached ? index.names : SelectorTest.UNCACHED_NAMES;
            return `${element.id || element.textContent}: ${JSON.stringify(SelectorTest.selectorsFor(element, names.name(element), cached ? context : { names }))}`;
          });
        return steps.map((step) => {
          // Asked before the change, so a count that outlived it would show below.
          counts(true);
          selectors(true);
          if (step) new Function(step)();
          return { step, cachedCounts: counts(true), freshCounts: counts(false), cachedSelectors: selectors(true), freshSelectors: selectors(false) };
        });
      },
      TEXT_STEPS,
      TEXTS,
    );
    for (const { step, cachedCounts, freshCounts, cachedSelectors, freshSelectors } of rounds) {
      expect(cachedCounts, step || "the page as loaded").toEqual(freshCounts);
      expect(cachedSelectors, step || "the page as loaded").toEqual(freshSelectors);
    }
    // The texts are past the first text nodes a selector looks at, so the counts decided: "Save order" and "Clear cart" were offered and withdrawn.
    const textSelectorOf = (id: string) => (round: (typeof rounds)[number]) => round.freshSelectors.find((line) => line.startsWith(`${id}: `))?.includes('"text/');
    expect(rounds.map(textSelectorOf("save"))).toEqual([true, false, true, true, true, true, true, true, true, true]);
    expect(rounds.map(textSelectorOf("clear"))).toEqual([true, true, true, true, true, false, false, false, false, true]);
    // The steps did move the counts the selectors depend on, in the document and in the shadow root.
    const countOf = (line: string) => (round: (typeof rounds)[number]) => round.freshCounts.find((entry) => entry === line || entry.startsWith(`${line}: `))?.split(": ")[1];
    expect(rounds.map(countOf("document Save order"))).toEqual(["1", "2", "1", "1", "1", "1", "1", "1", "1", "1"]);
    expect(rounds.map(countOf("document Clear cart"))).toEqual(["1", "1", "1", "1", "1", "2", "2", "2", "2", "1"]);
    expect(rounds.map(countOf("#host Remove"))).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, "1", "2", "1", "1"]);
    await page.close();
  });
});
