import fc from "fast-check";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageIndexWorld, type PageIndexObservation, type PageIndexWorld } from "../../../e2e/test-support/page-index-world";
import type * as IndexKindsModule from "./index-kinds";
import type * as PageIndexModule from "./page-index";

/**
 * The page index (page-index.ts) against a fresh read of the page, in real Chromium: through any
 * sequence of DOM changes its lists hold what the snapshot's selectors find, in tree order, its
 * remembered names and whole texts are what a fresh read gives, and a snapshot read from it equals
 * one read afresh, also when only CSS state changes. What it reads (names, removal, change counting,
 * shadow roots, selectors, state styles) is in page-index-reads.test.ts.
 */

declare const Observation: PageIndexObservation;

let world: PageIndexWorld;

beforeAll(async () => {
  world = await startPageIndexWorld();
});

afterAll(async () => {
  await world?.close();
});

const openPage = (): Promise<Page> => world.openPage();

/** DOM changes a page makes, applied in the page by `applyChanges`. Elements are picked by index among the body's elements. */
type Change =
  | { op: "append"; at: number; html: string }
  | { op: "remove"; at: number }
  | { op: "move"; at: number; to: number }
  | { op: "attribute"; at: number; name: string; value: string | null }
  | { op: "text"; at: number; text: string }
  | { op: "shadow"; at: number; html: string }
  /** A property no DOM record announces. */
  | { op: "check"; at: number }
  /** The page's style sheet replaced. */
  | { op: "sheet"; css: string };

const SNIPPETS = [
  "<button>Add</button>",
  "<button type=button>Remove</button>",
  "<a href='/x'>Orders</a>",
  "<h3>Details</h3>",
  "<section aria-label='Extra'><p>Hello</p></section>",
  "<label for='name'>Full name</label>",
  "<label>Phone <input type='tel'></label>",
  "<span id='form-heading'>Renamed</span>",
  "<span id='missing'>Found later</span>",
  "<div><label for='loose'>Loose field</label></div>",
  "<div role='heading' aria-level='4'>Aside</div>",
  "<output>42</output>",
  "<div aria-live='polite'>Saved</div>",
  "<input type='button' value='Go'>",
  "<dialog open aria-label='Confirm'><button>OK</button></dialog>",
  "<form aria-label='Search'><input placeholder='Query'></form>",
  "<div contenteditable>Draft</div>",
  "<li><span>Item 3</span> <button class='add'>Add</button></li>",
  "<img alt='Logo'>",
  "<ul><li><input type='checkbox' checked> Done 2</li><li>Open</li></ul>",
  "<div role='list'><div role='listitem' aria-selected='true'>One</div></div>",
  "<button aria-expanded='false'>Menu</button>",
  "<div role='tab' aria-selected='true'>Tab 1</div>",
  "<table><tr><th aria-sort='ascending'>Price</th></tr><tr><td>3 left</td></tr></table>",
  "<table><caption>Stock</caption><tr><td>2 left</td></tr></table>",
  "<button aria-expanded='false' aria-controls='more-menu'>More</button><ul id='more-menu'><li><a href='/m'>Settings</a></li></ul>",
  "<p><span><strong>4</strong> items left</span></p>",
  "Plain text",
];
const ATTRIBUTES: [string, (string | null)[]][] = [
  ["role", ["button", "link", "heading", "status", "region", "Button", "button link", "list", "switch", "tab", "grid", null]],
  ["href", ["/y", null]],
  ["type", ["button", "SUBMIT", "text", "hidden", "CheckBox", "radio", null]],
  ["aria-expanded", ["true", "false", null]],
  ["aria-controls", ["more-menu", "name more-menu", null]],
  ["aria-pressed", ["false", null]],
  ["aria-selected", ["true", null]],
  ["aria-sort", ["none", null]],
  ["contenteditable", ["true", "false", null]],
  ["aria-label", ["Labelled", "", null]],
  ["aria-labelledby", ["form-heading", "status missing", "missing", null]],
  ["aria-live", ["polite", "off", null]],
  ["id", ["name", "form-heading", "agree", "missing", "loose", null]],
  ["for", ["name", "email", "loose", null]],
  ["hidden", ["", null]],
  ["aria-hidden", ["true", null]],
  ["class", ["add", "row in-cart", "gone", "fold", null]],
  ["style", ["display: none", "display: contents", null]],
];

/**
 * Style sheets that hide elements in the ways a snapshot's memory must follow (snapshot-memo.ts):
 * by an element's own attributes or an ancestor's; by a sibling or position; looking down (`:has`).
 */
const SHEETS = [
  "",
  ".gone { display: none } .fold li:nth-of-type(n) { color: red } .fold > * { display: none }",
  ".gone + * { display: none } li:first-child { display: none }",
  "li:has(.gone) { display: none } section:has(> .fold) ul { display: none }",
];

const changeArbitrary: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ op: fc.constant("append" as const), at: fc.nat(), html: fc.constantFrom(...SNIPPETS) }),
  fc.record({ op: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("move" as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ at: fc.nat(), attribute: fc.nat({ max: ATTRIBUTES.length - 1 }), choice: fc.nat() }).map(({ at, attribute, choice }) => {
    const [name, values] = ATTRIBUTES[attribute]!;
    return { op: "attribute" as const, at, name, value: values[choice % values.length]! };
  }),
  fc.record({
    op: fc.constant("text" as const),
    at: fc.nat(),
    text: fc.constantFrom("Add", "Remove", "Orders", "New text", "Ready", "", "3 left", "Total 12"),
  }),
  fc.record({
    op: fc.constant("shadow" as const),
    at: fc.nat(),
    html: fc.constantFrom("<button>Inside</button>", "<h4>Shadow heading</h4><a href='/s'>Shadow link</a>"),
  }),
  fc.record({ op: fc.constant("check" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("sheet" as const), css: fc.constantFrom(...SHEETS) }),
);

/** Applies the changes, then compares the index with a fresh read: returns what differs (empty when nothing does). */
function applyAndCompare(changes: Change[]): string[] {
  const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
  const elements = (): Element[] => [...document.body.querySelectorAll("*")];
  const pick = (at: number): Element | undefined => {
    const all = elements();
    return all.length === 0 ? undefined : all[at % all.length];
  };
  for (const change of changes) {
    if (change.op === "sheet") {
      document.getElementById("page-style")!.textContent = change.css;
      continue;
    }
    const target = pick(change.at);
    if (target === undefined) continue;
    switch (change.op) {
      case "append":
        if (!["INPUT", "IMG", "TEXTAREA", "SELECT"].includes(target.tagName)) target.insertAdjacentHTML("beforeend", change.html);
        break;
      case "remove":
        if (target !== document.body) target.remove();
        break;
      case "move": {
        const destination = pick(change.to);
        if (destination && !target.contains(destination) && !["INPUT", "IMG", "TEXTAREA", "SELECT"].includes(destination.tagName)) destination.append(target);
        break;
      }
      case "attribute":
        if (change.value === null) target.removeAttribute(change.name);
        else target.setAttribute(change.name, change.value);
        break;
      case "text":
        if (target.children.length === 0) target.textContent = change.text;
        break;
      case "shadow": {
        // A host with its shadow root ready before it is added, as custom elements do.
        const host = document.createElement("div");
        host.attachShadow({ mode: "open" }).innerHTML = change.html;
        if (!["INPUT", "IMG", "TEXTAREA", "SELECT"].includes(target.tagName)) target.append(host);
        break;
      }
      case "check": {
        const boxes = [...document.querySelectorAll<HTMLInputElement>("input[type=checkbox], input[type=radio]")];
        const box = boxes[change.at % Math.max(1, boxes.length)];
        if (box) box.checked = !box.checked;
        break;
      }
    }
  }

  const problems: string[] = [];
  const describe = (element: Element): string => `${element.localName}${element.id ? `#${element.id}` : ""}`;
  const roots = index.roots();
  const kinds = { ...Observation.SNAPSHOT_KINDS, ...Observation.EXTRA_KINDS };
  for (const root of roots) {
    // The whole text a text selector's check searches (issue #32): remembered until a change, never stale.
    const text = (root.nodeType === Node.DOCUMENT_NODE ? (root as Document).documentElement.textContent : root.textContent) ?? "";
    if (index.wholeText(root) !== text) problems.push(`whole text of a root: remembered "${index.wholeText(root)}", now "${text}"`);
    for (const [kind, selector] of Object.entries(kinds)) {
      const listed = index.elements(root, kind as IndexKindsModule.IndexKind);
      const found = [...root.querySelectorAll(selector)];
      if (listed.length !== found.length || listed.some((element, position) => element !== found[position])) {
        problems.push(`${kind}: listed [${listed.map(describe).join(", ")}], found [${found.map(describe).join(", ")}]`);
      }
      for (const element of found) {
        const name = Observation.accessibleName(element);
        if (index.names.name(element) !== name) problems.push(`name of ${describe(element)}: remembered "${index.names.name(element)}", now "${name}"`);
        const text = Observation.subtreeText(element);
        if (index.names.text(element) !== text) problems.push(`text of ${describe(element)}: remembered "${index.names.text(element)}", now "${text}"`);
      }
    }
  }
  // The same scrubber every time, as while nothing new is typed: what the snapshot kept from the last read is reused then.
  const state = globalThis as unknown as { sameScrub?: (text: string) => string };
  const scrub = (state.sameScrub ??= (text: string): string => text);
  const fromIndex = Observation.readPageSnapshot({ window, source: index, scrub }).json;
  const fresh = Observation.readPageSnapshot({ window, source: Observation.querySource([document]), scrub }).json;
  if (fromIndex !== fresh) problems.push(`snapshot from the index ${fromIndex}\n differs from a fresh one ${fresh}`);
  return problems;
}

describe("page index", () => {
  it("keeps its lists, names and snapshot equal to a fresh read through any sequence of DOM changes", async () => {
    const page = await openPage();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...SHEETS),
          fc.array(fc.array(changeArbitrary, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
          async (css, batches) => {
            await page.reload({ waitUntil: "load" });
            await page.evaluate((sheet) => {
              document.getElementById("page-style")!.textContent = sheet;
              const state = globalThis as unknown as { index: PageIndexModule.PageIndex };
              state.index = Observation.createPageIndex({
                onFrame: () => undefined,
                onShadowRoot: (root) => state.index.addRoot(root),
                isOwnNode: () => false,
                guard: { wrap: (callback) => callback },
              });
              state.index.addRoot(document);
            }, css);
            // Warm every name first, so a stale one would show.
            expect(await page.evaluate(applyAndCompare, [])).toEqual([]);
            for (const batch of batches) expect(await page.evaluate(applyAndCompare, batch)).toEqual([]);
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await page.close();
    }
  }, 120_000);

  it("reads a part again when a new typed value occurs in its texts, and reuses it when the value occurs in none (issue #32)", async () => {
    const page = await openPage();
    try {
      const { problems, distinct } = await page.evaluate(() => {
        const state = globalThis as unknown as { index: PageIndexModule.PageIndex };
        state.index = Observation.createPageIndex({
          onFrame: () => undefined,
          onShadowRoot: (root) => state.index.addRoot(root),
          isOwnNode: () => false,
          guard: { wrap: (callback) => callback },
        });
        state.index.addRoot(document);
        const found: string[] = [];
        const snapshots = new Set<string>();
        // Each time a new scrubber (as when a value is typed), with no DOM change: the index's parts are all kept from the last read.
        for (const values of [[], ["Zq9"], ["Zq9", "Catalogue"], ["Zq9", "Catalogue"], ["Add"], ["Email"], ["Ready"], ["Main"], ["Orders"], []]) {
          const scrub = (text: string): string => values.reduce((cut, value) => cut.split(value).join("[typed]"), text);
          const fromIndex = Observation.readPageSnapshot({ window, source: state.index, scrub }).json;
          const fresh = Observation.readPageSnapshot({ window, source: Observation.querySource([document]), scrub }).json;
          if (fromIndex !== fresh) found.push(`with ${values.join(", ")}: from the index ${fromIndex}\n differs from a fresh one ${fresh}`);
          snapshots.add(fresh);
        }
        return { problems: found, distinct: snapshots.size };
      });
      expect(problems).toEqual([]);
      // The values did cut something out of the page's texts, in different parts.
      expect(distinct).toBeGreaterThanOrEqual(7);
    } finally {
      await page.close();
    }
  });

  it("follows what CSS shows or hides with no DOM change there (pointer, viewport, a property set by script, a preference)", async () => {
    const page = await openPage();
    try {
      await page.evaluate(() => {
        document.getElementById("main")!.insertAdjacentHTML(
          "beforeend",
          `<div class="menu"><h3>Menu</h3><ul class="sub"><li><button>Sub action</button></li></ul></div>
           <button class="wide-only">Wide action</button>
           <div><input type="checkbox" id="gift"><span class="gift-note"><button>Add a note</button></span></div>
           <button class="light-only">Light action</button><p id="elsewhere">Ready</p>`,
        );
      });
      /** The page's only rule is `css`; the snapshot is read once with it before the state changes. */
      const useSheet = async (css: string): Promise<void> => {
        await page.evaluate((text) => void (document.getElementById("page-style")!.textContent = text), css);
        expect(await page.evaluate(applyAndCompare, [])).toEqual([]);
      };
      /** A DOM change far from what CSS changed (so a snapshot is read), then the snapshot from the index against a fresh one. */
      const compareAfterChangeElsewhere = async (): Promise<string[]> => {
        await page.evaluate(() => {
          const paragraph = document.getElementById("elsewhere")!;
          paragraph.textContent = `${paragraph.textContent}.`;
        });
        return page.evaluate(applyAndCompare, []);
      };
      /** The buttons a fresh read lists: what each step changed. */
      const freshButtons = (): Promise<string[]> =>
        page.evaluate(
          () => Observation.readPageSnapshot({ window, source: Observation.querySource([document]), scrub: (text: string) => text }).snapshot.buttons,
        );

      // The pointer over the menu shows its sub-list.
      await useSheet(".menu .sub { display: none } .menu:hover .sub { display: block }");
      expect(await freshButtons()).not.toContain("Sub action");
      await page.hover(".menu h3");
      expect(await compareAfterChangeElsewhere()).toEqual([]);
      expect(await freshButtons()).toContain("Sub action");
      // A narrower viewport hides the wide-only button.
      await useSheet("@media (max-width: 700px) { .wide-only { display: none } }");
      expect(await freshButtons()).toContain("Wide action");
      await page.setViewport({ width: 600, height: 800 });
      expect(await compareAfterChangeElsewhere()).toEqual([]);
      expect(await freshButtons()).not.toContain("Wide action");
      // A box ticked by script: no event, no record.
      await useSheet("#gift:checked ~ .gift-note { display: none }");
      expect(await freshButtons()).toContain("Add a note");
      await page.evaluate(() => void ((document.getElementById("gift") as HTMLInputElement).checked = true));
      expect(await compareAfterChangeElsewhere()).toEqual([]);
      expect(await freshButtons()).not.toContain("Add a note");
      // The system's colour scheme.
      await useSheet("@media (prefers-color-scheme: dark) { .light-only { display: none } }");
      expect(await freshButtons()).toContain("Light action");
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
      expect(await compareAfterChangeElsewhere()).toEqual([]);
      expect(await freshButtons()).not.toContain("Light action");
    } finally {
      await page.close();
    }
  });
});
