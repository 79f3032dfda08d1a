import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageIndexWorld, type PageIndexObservation, type PageIndexWorld } from "../../../e2e/test-support/page-index-world";
import type * as IndexKindsModule from "./index-kinds";
import type * as PageIndexModule from "./page-index";

/**
 * What the page index (page-index.ts) reads, in real Chromium: names that follow what they are read
 * through, elements that leave unseen, its change count, shadow roots that arrive; the selectors built
 * from it (resolved by Puppeteer's own query handlers); the state styles check.
 * The comparison with a fresh read through any DOM changes is in page-index.test.ts.
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

describe("page index", () => {
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
