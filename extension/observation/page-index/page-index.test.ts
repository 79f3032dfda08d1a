import fc from "fast-check";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleObservationModules, servePageInChromium, type ServedPage } from "../../../e2e/test-support/observation-test-page";
import type * as IndexKindsModule from "./index-kinds";
import type * as PageIndexModule from "./page-index";
import type * as SnapshotModule from "../snapshot/snapshot-observer";
import type * as SnapshotSourceModule from "../snapshot/snapshot-source";
import type * as SelectorsModule from "../selectors/selectors";
import type * as NamesModule from "../names/accessible-name";
import type * as SubtreeTextModule from "../names/subtree-text";
import type * as StateStylesModule from "../snapshot/state-styles";

/**
 * The page index (page-index.ts) against a fresh read of the page, in real Chromium: through any
 * sequence of DOM changes its lists hold what the snapshot's selectors find, in tree order, its
 * remembered names are what a fresh computation gives, and a snapshot read from it equals one read
 * afresh. The selectors built from it each find exactly their element (resolved by Puppeteer's
 * own query handlers), and its change count moves with every change a snapshot could see.
 */

type Observation = typeof PageIndexModule &
  typeof IndexKindsModule &
  typeof SnapshotModule &
  typeof SnapshotSourceModule &
  typeof SelectorsModule &
  typeof NamesModule &
  typeof SubtreeTextModule &
  typeof StateStylesModule;
declare const Observation: Observation;

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

let browser: Browser;
let served: ServedPage;
let origin: string;
let bundle: string;

beforeAll(async () => {
  bundle = await bundleObservationModules(MODULES, "Observation");
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
  // One index per page, as the observer keeps it; shadow roots that arrive are indexed too.
  await page.evaluate(() => {
    const state = globalThis as unknown as { index: PageIndexModule.PageIndex; own: Element };
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
}

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
  "<p><span><strong>4</strong> items left</span></p>",
  "Plain text",
];
const ATTRIBUTES: [string, (string | null)[]][] = [
  ["role", ["button", "link", "heading", "status", "region", "Button", "button link", "list", "switch", "tab", "grid", null]],
  ["href", ["/y", null]],
  ["type", ["button", "SUBMIT", "text", "hidden", "CheckBox", "radio", null]],
  ["aria-expanded", ["true", null]],
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

  it("renames an element when what its name is read through changes elsewhere in the page", async () => {
    const page = await openPage();
    const names = await page.evaluate(() => {
      const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
      const nameOf = (id: string): string => {
        index.sync();
        return index.names.name(document.getElementById(id)!);
      };
      const seen: string[] = [];
      // A reference that does not exist yet, then arrives.
      document.getElementById("apply")!.setAttribute("aria-labelledby", "later");
      seen.push(nameOf("apply"));
      document.body.insertAdjacentHTML("beforeend", "<div><span id='later'>Apply the coupon</span></div>");
      seen.push(nameOf("apply"));
      // The reference's own text changes.
      document.getElementById("later")!.textContent = "Apply the code";
      seen.push(nameOf("apply"));
      // A label's text, a label that arrives for an unlabelled field, a label's `for` pointed elsewhere.
      seen.push(nameOf("name"));
      document.querySelector("label[for=name]")!.textContent = "Full name";
      seen.push(nameOf("name"));
      seen.push(nameOf("loose"));
      document.body.insertAdjacentHTML("beforeend", "<label for='loose'>Find</label>");
      seen.push(nameOf("loose"));
      document.querySelector("label[for=loose]")!.setAttribute("for", "name");
      seen.push(nameOf("loose"), nameOf("name"));
      return seen;
    });
    expect(names).toEqual(["Apply", "Apply the coupon", "Apply the code", "Name", "Full name", "Search", "Find", "Search", "Full name Find"]);
    await page.close();
  });

  it("drops an element that left the page unseen (taken out of a subtree after the subtree was removed)", async () => {
    const page = await openPage();
    const result = await page.evaluate(() => {
      const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
      index.sync();
      const rows = document.getElementById("rows")!;
      const firstButton = rows.querySelector("button")!;
      // In one task: the list goes, then a button inside it is taken out (no record names that button).
      rows.remove();
      firstButton.remove();
      document.getElementById("main")!.insertAdjacentHTML("afterbegin", "<button>First</button>");
      document.body.insertAdjacentHTML("beforeend", "<button>Last</button>");
      index.sync();
      const listed = index.elements(document, "buttons");
      const found = [...document.querySelectorAll(Observation.SNAPSHOT_KINDS.buttons)];
      return {
        same: listed.length === found.length && listed.every((button, position) => button === found[position]),
        names: listed.map((button) => index.names.name(button)),
      };
    });
    expect(result.same).toBe(true);
    expect(result.names[0]).toBe("First");
    expect(result.names.at(-1)).toBe("Last");
    await page.close();
  });

  it("counts every change a snapshot could see, and nothing else", async () => {
    const page = await openPage();
    const counts = await page.evaluate(() => {
      const { index, own } = globalThis as unknown as { index: PageIndexModule.PageIndex; own: Element };
      const count = (): number => index.changeCount;
      const result: Record<string, boolean> = {};
      let last = count();
      const moved = (label: string, change: () => void): void => {
        change();
        const now = count();
        result[label] = now !== last;
        last = now;
      };
      moved("nothing", () => undefined);
      moved("reading the page", () => void document.querySelectorAll("button").length);
      moved("a text", () => void (document.getElementById("status")!.textContent = "Saved"));
      moved("an attribute", () => document.querySelector("h1")!.setAttribute("hidden", ""));
      moved("a class", () => document.getElementById("rows")!.classList.add("compact"));
      moved("an added node", () => document.getElementById("main")!.append(document.createElement("hr")));
      moved("touch", () => index.touch());
      document.documentElement.append(own);
      last = count();
      moved("our own node", () => own.setAttribute("data-state", "paused"));
      return result;
    });
    expect(counts).toEqual({
      nothing: false,
      "reading the page": false,
      "a text": true,
      "an attribute": true,
      "a class": true,
      "an added node": true,
      touch: true,
      "our own node": false,
    });
    await page.close();
  });

  it("indexes a shadow root that arrives with added nodes, and lists its elements", async () => {
    const page = await openPage();
    const found = await page.evaluate(() => {
      const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
      const host = document.createElement("fancy-panel");
      host.attachShadow({ mode: "open" }).innerHTML = "<button>Inside the panel</button>";
      document.body.append(host);
      const roots = index.roots();
      const shadow = roots.find((root) => root !== document);
      return shadow ? index.elements(shadow, "buttons").map((button) => index.names.name(button)) : [];
    });
    expect(found).toEqual(["Inside the panel"]);
    await page.close();
  });
});

describe("selectors from the index", () => {
  it("offers at least two selectors for every control, each finding exactly that control", async () => {
    const page = await openPage();
    const targets = await page.evaluate(() => {
      const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
      index.sync();
      const context = {
        names: index.names,
        elements: (root: IndexKindsModule.Root, kind: IndexKindsModule.IndexKind) => (index.hasRoot(root) ? index.elements(root, kind) : undefined),
      };
      const controls = [...document.querySelectorAll("button, a[href], input, select, textarea, [role=button], [contenteditable], h1, h2")];
      return controls.map((element, position) => {
        element.setAttribute("data-target", String(position));
        return { position, selectors: Observation.selectorsFor(element, index.names.name(element), context) };
      });
    });
    expect(targets.length).toBeGreaterThan(40);
    const kinds = new Set<string>();
    for (const { position, selectors } of targets) {
      expect(selectors.length, `selectors of target ${position}`).toBeGreaterThanOrEqual(2);
      for (const parts of selectors) {
        expect(parts).toHaveLength(1);
        const selector = parts[0]!;
        kinds.add(/^(aria|text|xpath)\//.exec(selector)?.[1] ?? "css");
        const found = await page.$$(selector);
        const hits = await Promise.all(found.map((handle) => handle.evaluate((element) => element.getAttribute("data-target"))));
        expect(hits, `${selector} for target ${position}`).toEqual([String(position)]);
      }
    }
    // Every kind was offered somewhere, text selectors (checked without walking the whole page) included.
    expect([...kinds].sort()).toEqual(expect.arrayContaining(["aria", "css", "text", "xpath"]));
    await page.close();
  });

  it("offers a text selector only for a text that occurs once on the page, however far apart the copies are", async () => {
    const page = await openPage();
    const result = await page.evaluate(() => {
      const { index } = globalThis as unknown as { index: PageIndexModule.PageIndex };
      // Far more text nodes than the check walks before it counts occurrences instead.
      document.body.insertAdjacentHTML(
        "beforeend",
        `<div>${Array.from({ length: 400 }, (_, n) => `<span>filler ${n}</span>`).join("")}</div><p>Unique closing words</p><p><b>Apply</b> later</p>`,
      );
      index.sync();
      const context = {
        names: index.names,
        elements: (root: IndexKindsModule.Root, kind: IndexKindsModule.IndexKind) => (index.hasRoot(root) ? index.elements(root, kind) : undefined),
      };
      const textOf = (element: Element): string[] =>
        Observation.selectorsFor(element, index.names.name(element), context)
          .map((parts) => parts[0]!)
          .filter((selector) => selector.startsWith("text/"));
      const closing = [...document.querySelectorAll("p")].find((p) => p.textContent === "Unique closing words")!;
      return { apply: textOf(document.getElementById("apply")!), closing: textOf(closing) };
    });
    // "Apply" occurs again 400 text nodes later: no text selector. The closing words occur once.
    expect(result).toEqual({ apply: [], closing: ["text/Unique closing words"] });
    await page.close();
  });
});

describe("state styles", () => {
  it("tells pages whose CSS selects on a control's state from pages whose CSS does not", async () => {
    const page = await openPage();
    const answers = await page.evaluate(() => {
      const styles = Observation.createStateStyles();
      const answers: boolean[] = [styles.selectOnState([document])];
      document.head.insertAdjacentHTML("beforeend", "<style>.menu { display: none } a:hover { color: red }</style>");
      answers.push(styles.selectOnState([document]));
      document.head.insertAdjacentHTML("beforeend", "<style>@media (min-width: 1px) { #toggle:checked ~ .menu { display: block } }</style>");
      answers.push(styles.selectOnState([document]));
      const host = document.createElement("div");
      const shadow = host.attachShadow({ mode: "open" });
      const sheet = new CSSStyleSheet();
      sheet.replaceSync("input:invalid + .error { display: block }");
      shadow.adoptedStyleSheets = [sheet];
      answers.push(styles.selectOnState([shadow]));
      return answers;
    });
    expect(answers).toEqual([false, false, true, true]);
    await page.close();
  });
});
