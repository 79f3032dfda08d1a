import fc from "fast-check";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleObservationModules, servePageInChromium, type ServedPage } from "./observation-test-page";
import type * as PageIndexModule from "./page-index";
import type * as MemoModule from "./snapshot-memo";
import type * as SnapshotModule from "./snapshot-observer";

/**
 * What a snapshot remembers between reads (snapshot-memo.ts) against a fresh read of the page, in
 * real Chromium, through random DOM changes and reads that each look at only some of the page (as
 * the snapshot's readers do: a counter walk goes only where something changed): an answer kept
 * from a read several reads back must take in every change since, not only the last read's.
 * Checked per read: visibility, each child's visibility and subtree facts, what a reader kept about
 * a parent's children with the positions that changed since, facts read upward and below.
 */

type Modules = typeof PageIndexModule & typeof MemoModule & typeof SnapshotModule;
declare const Memo: Modules;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Memo test</title><style id="page-style"></style></head><body>
${Array.from({ length: 4 }, (_, block) => `<section id="s${block}"><ul>${Array.from({ length: 6 }, (_, row) => `<li><span>Row ${row}</span> <b>${block}</b></li>`).join("")}</ul><div><p>Text ${block}</p><p><i>more</i></p></div></section>`).join("\n")}
</body></html>`;

/** Sheets whose rules reach a changed element's subtree, its parent's subtree, or are none. */
const SHEETS = ["", ".gone { display: none }", ".gone + * { display: none } li:first-child.fold { display: none }", ".fold > * { display: none }"];

type Change =
  | { op: "attribute"; at: number; value: string | null }
  | { op: "text"; at: number; text: string }
  | { op: "append"; at: number }
  | { op: "remove"; at: number }
  | { op: "move"; at: number; to: number };

const changeArbitrary: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ op: fc.constant("attribute" as const), at: fc.nat(), value: fc.constantFrom("gone", "fold", "gone fold", null) }),
  fc.record({ op: fc.constant("text" as const), at: fc.nat(), text: fc.constantFrom("A", "B 2", "") }),
  fc.record({ op: fc.constant("append" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("move" as const), at: fc.nat(), to: fc.nat() }),
);

/** One read: the changes before it, and which parents and elements it looks at (by index among the body's elements). */
const readArbitrary = fc.record({
  changes: fc.array(changeArbitrary, { maxLength: 3 }),
  looks: fc.array(fc.nat(), { minLength: 0, maxLength: 6 }),
  /** Parents another reader brings up to date, keeping nothing of its own (the state above must still hear of what changed). */
  others: fc.array(fc.nat(), { maxLength: 6 }),
});

let browser: Browser;
let served: ServedPage;
let origin: string;
let bundle: string;

beforeAll(async () => {
  bundle = await bundleObservationModules(["page-index", "snapshot-memo", "snapshot-observer"], "Memo");
  served = await servePageInChromium(PAGE);
  ({ browser, origin } = served);
});

afterAll(async () => {
  await served?.close();
});

/** Applies the changes, then reads through the memo where `looks` says: returns what differs from a fresh read. */
function readAndCompare(changes: Change[], looks: number[], others: number[]): string[] {
  const state = globalThis as unknown as { index: PageIndexModule.PageIndex; memo: MemoModule.SnapshotMemo};
  const elements = (): Element[] => [...document.body.querySelectorAll("*")];
  const pick = (at: number): Element | undefined => {
    const all = elements();
    return all.length === 0 ? undefined : all[at % all.length];
  };
  for (const change of changes) {
    const target = pick(change.at);
    if (target === undefined) continue;
    switch (change.op) {
      case "attribute":
        if (change.value === null) target.removeAttribute("class");
        else target.setAttribute("class", change.value);
        break;
      case "text":
        if (target.children.length === 0) target.textContent = change.text;
        break;
      case "append":
        target.insertAdjacentHTML("beforeend", "<span>new 1</span>");
        break;
      case "remove":
        target.remove();
        break;
      case "move": {
        const destination = pick(change.to);
        if (destination && !target.contains(destination)) destination.append(target);
        break;
      }
    }
  }
  const problems: string[] = [];
  const describe = (element: Element): string => `${element.localName}:${elements().indexOf(element)}`;
  const visible = (element: Element): boolean => element.checkVisibility();
  /** What a child is, read afresh: its box and its subtree's text. */
  const childState = (element: Element): string => `${visible(element)}|${element.textContent}`;
  const path = (element: Element): string => {
    const names: string[] = [];
    for (let node: Element | null = element; node !== null; node = node.parentElement) names.push(`${node.localName}.${node.className}`);
    return names.join("<");
  };
  const { memo, index } = state;
  memo.begin(index.roots(), index.changes);
  for (const at of others) {
    const element = pick(at);
    if (element === undefined) continue;
    const view = memo.children(element);
    view.elements.forEach((_, position) => view.visible(position));
  }
  for (const at of looks) {
    const element = pick(at);
    if (element === undefined) continue;
    if (memo.isVisible(element) !== visible(element)) problems.push(`visibility of ${describe(element)}`);
    if (memo.upward(element, "path", path) !== path(element)) problems.push(`path of ${describe(element)}`);
    const below = memo.below<string>(element, "text");
    if (below !== undefined && below !== element.textContent) problems.push(`text below ${describe(element)}: remembered "${below}", now "${element.textContent}"`);
    memo.rememberBelow(element, "text", element.textContent);
    const view = memo.children(element);
    const now = [...element.children];
    if (view.elements.length !== now.length || view.elements.some((child, position) => child !== now[position])) problems.push(`children of ${describe(element)}`);
    // What this reader kept about the children: every position whose child differs now must be among those said to have changed.
    const kept = view.state<string[]>("children");
    if (kept !== undefined) {
      const changed = new Set(kept.changed);
      kept.value.forEach((before, position) => {
        if (!changed.has(position) && now[position] !== undefined && childState(now[position]!) !== before) problems.push(`child ${position} of ${describe(element)} changed unannounced`);
      });
    }
    view.setState("children", now.map(childState));
    now.forEach((child, position) => {
      if (view.visible(position) !== visible(child)) problems.push(`visibility of child ${position} of ${describe(element)}`);
      if (view.fact(position, "text", (item) => item.textContent) !== child.textContent) problems.push(`text of child ${position} of ${describe(element)}`);
    });
  }
  return problems;
}

/** After running `change` in the page, one part of the snapshot as the page index (held in `globalThis.index`) gives it and as a fresh read does. */
function indexAndFreshAfter(page: Page, change: string, part: "landmarks" | "lists"): Promise<{ fromIndex: unknown; fresh: unknown }> {
  return page.evaluate(
    (code, key) => {
      new Function(code)();
      const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
      const scrub = (text: string): string => text;
      return {
        fromIndex: Memo.readPageSnapshot({ window, source: index, scrub }).snapshot[key],
        fresh: Memo.readPageSnapshot({ window, source: Memo.querySource([document]), scrub }).snapshot[key],
      };
    },
    change,
    part,
  );
}

async function openPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.evaluateOnNewDocument(bundle);
  await page.goto(`${origin}/`, { waitUntil: "load" });
  return page;
}

describe("snapshot memo", () => {
  it("answers as a fresh read does through DOM changes, when reads look at only part of the page each time", async () => {
    const page = await openPage();
    try {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...SHEETS), fc.array(readArbitrary, { minLength: 2, maxLength: 12 }), async (css, reads) => {
          await page.reload({ waitUntil: "load" });
          await page.evaluate((sheet) => {
            document.getElementById("page-style")!.textContent = sheet;
            const state = globalThis as unknown as { index: PageIndexModule.PageIndex; memo: MemoModule.SnapshotMemo };
            state.index = Memo.createPageIndex({ onFrame: () => undefined, onShadowRoot: () => undefined, isOwnNode: () => false, guard: { wrap: (callback) => callback } });
            state.index.addRoot(document);
            state.memo = Memo.createSnapshotMemo();
          }, css);
          for (const { changes, looks, others } of reads) expect(await page.evaluate(readAndCompare, changes, looks, others)).toEqual([]);
        }),
        { numRuns: 80 },
      );
    } finally {
      await page.close();
    }
  }, 120_000);
});

/** Landmarks on the test page: named by attributes, through `aria-labelledby`, by nothing. */
const LANDMARKS = `<header id="banner"><p>Top</p></header>
<nav id="nav" aria-label="Main"><a href="/a">Home</a></nav>
<main id="main"><section id="region" aria-labelledby="region-heading"><h2 id="region-heading">Orders</h2><p id="inside">3 rows</p></section>
<aside id="aside" title="Side"><p>Side text</p></aside><div id="holder"></div></main>`;

describe("landmark names", () => {
  it("are kept through changes inside a landmark and read again when what names it changes", async () => {
    const page = await openPage();
    try {
      await page.evaluate((html) => {
        document.body.innerHTML = html;
        const state = globalThis as unknown as { index: PageIndexModule.PageIndex };
        state.index = Memo.createPageIndex({ onFrame: () => undefined, onShadowRoot: () => undefined, isOwnNode: () => false, guard: { wrap: (callback) => callback } });
        state.index.addRoot(document);
      }, LANDMARKS);
      /** The landmarks the index's snapshot lists after `change`, and a fresh read's. */
      const after = (change: string) => indexAndFreshAfter(page, change, "landmarks");
      const changes = [
        "",
        "document.getElementById('inside').textContent = '4 rows'",
        "document.getElementById('nav').setAttribute('aria-label', 'Primary')",
        "document.getElementById('inside').textContent = '5 rows'",
        "document.getElementById('aside').title = 'Cart'",
        "document.getElementById('region-heading').textContent = 'Orders today'",
        "document.getElementById('inside').append(' more')",
        "document.getElementById('holder').insertAdjacentHTML('afterbegin', '<span>x</span>')",
        // Another element takes the id first in tree order, then the first one loses it.
        "document.body.insertAdjacentHTML('afterbegin', '<b id=\"region-heading\">Early</b>')",
        "document.querySelector('b#region-heading').removeAttribute('id')",
        "document.getElementById('region').setAttribute('aria-labelledby', 'nav')",
        "document.getElementById('nav').querySelector('a').textContent = 'Start'",
        "document.getElementById('nav').setAttribute('aria-label', 'Links')",
        "document.getElementById('main').setAttribute('aria-label', 'Content')",
        "document.getElementById('inside').textContent = '6 rows'",
      ];
      const listed: unknown[] = [];
      for (const change of changes) {
        const { fromIndex, fresh } = await after(change);
        expect(fromIndex, change).toEqual(fresh);
        listed.push(fresh);
      }
      // The names did change along the way (the test sees renames, not one unchanged list).
      expect(new Set(listed.map((value) => JSON.stringify(value))).size).toBeGreaterThan(5);
    } finally {
      await page.close();
    }
  });
});

describe("list names", () => {
  it("find a list's caption as a fresh read does while rows and captions come and go", async () => {
    const page = await openPage();
    try {
      await page.evaluate(() => {
        document.body.innerHTML = `<h2>Before</h2><table id="table"><tr><td>1</td></tr><tr><td>2</td></tr></table><p>Between</p><ul id="list"><li>One</li><li>Two</li></ul>`;
        const state = globalThis as unknown as { index: PageIndexModule.PageIndex };
        state.index = Memo.createPageIndex({ onFrame: () => undefined, onShadowRoot: () => undefined, isOwnNode: () => false, guard: { wrap: (callback) => callback } });
        state.index.addRoot(document);
      });
      const after = (change: string) => indexAndFreshAfter(page, change, "lists");
      const changes = [
        "",
        "document.querySelector('#table td').textContent = '3'",
        "document.getElementById('table').createCaption().textContent = 'Prices'",
        "document.querySelector('#table td').textContent = '4'",
        "document.querySelector('#table caption').textContent = 'Prices today'",
        "document.getElementById('table').insertAdjacentHTML('afterbegin', '<caption>First</caption>')",
        "document.querySelector('#table caption').remove()",
        "document.querySelector('#table caption').remove()",
        "document.querySelector('#table tbody').insertAdjacentHTML('beforeend', '<tr><td>5</td></tr>')",
        // Only script puts a caption in a list (the parser would not): it names the list all the same.
        "document.getElementById('list').append(document.createElement('caption')); document.querySelector('#list caption').textContent = 'Steps'",
        "document.querySelector('#list li').textContent = 'First'",
        "document.getElementById('list').prepend(document.querySelector('#list caption'))",
        "document.querySelector('#list caption').textContent = 'Stages'",
        "document.querySelector('#list caption').remove()",
      ];
      const seen = new Set<string>();
      for (const change of changes) {
        const { fromIndex, fresh } = await after(change);
        expect(fromIndex, change).toEqual(fresh);
        seen.add(JSON.stringify(fresh));
      }
      expect(seen.size).toBeGreaterThan(5);
    } finally {
      await page.close();
    }
  });
});
