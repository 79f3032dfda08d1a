import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicyWatch } from "../contract/policy-guard";
import { resolveTarget } from "./target-finder";
import { fingerprintOf, relocateBySimilarity, revealByHover, rowShows } from "./target-relocation";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

describe("a target's fingerprint from its selectors", () => {
  it("reads role and name, text, test id, id, attributes, classes, ancestors and position", () => {
    expect(
      fingerprintOf([
        ['aria/Save draft[role="button"]'],
        ["text/Save draft"],
        ['form#editor > div.actions > button.btn.save[name="save"]:nth-of-type(2)'],
        ["xpath//html/body/form/div/button[2]"],
      ]),
    ).toEqual({
      role: "button",
      name: "Save draft",
      text: "Save draft",
      tag: "button",
      attributes: [{ name: "name", value: "save" }],
      classes: ["btn", "save"],
      ancestors: ["#editor", ".actions"],
      position: 2,
    });
    expect(fingerprintOf([["html > body > main > ul > li:nth-of-type(2) > button"], ["xpath//html/body/main/ul/li[2]/button"]])).toMatchObject({
      tag: "button",
      rowPosition: 2,
    });
  });
});

describe("relocating a target whose selectors all miss", () => {
  let browser: Browser;
  let page: Page;
  let profile: string;
  beforeAll(async () => {
    profile = await mkdtemp(path.join(tmpdir(), "elnor-relocation-"));
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      pipe: true,
      userDataDir: profile,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
  });

  it("finds the most similar element after its classes and wrappers changed, and says what matched", async () => {
    await page.setContent(
      `<div class="x9"><form id="editor"><div class="k2"><button class="q1" name="save">Save as draft</button><button class="q1" name="send">Send</button></div></form></div>`,
    );
    const selectors = [['aria/Save draft[role="button"]'], ['form#editor > div.actions > button.save[name="save"]']];
    for (const [selector] of selectors)
      expect(await page.$(selector === undefined ? "none" : selector.startsWith("aria/") ? `::-p-aria(${selector.slice(5)})` : selector)).toBeNull();
    const found = await relocateBySimilarity(page.mainFrame(), selectors);
    expect(found).toBeDefined();
    expect(await found?.handle.evaluate((element) => element.getAttribute("name"))).toBe("save");
    expect(found?.matched.join(", ")).toMatch(/role button.*name=save/);
  });

  it("tells buttons of the same name apart by the row they sit in", async () => {
    await page.setContent(
      `<div class="shell"><ul><li>Rice <button>Remove</button></li><li>Lentils <button>Remove</button></li><li>Oil <button>Remove</button></li></ul></div>`,
    );
    const found = await relocateBySimilarity(page.mainFrame(), [["html > body > main > ul > li:nth-of-type(2) > button"]], { role: "button", name: "Remove" });
    expect(await found?.handle.evaluate((element) => element.parentElement?.firstChild?.textContent?.trim())).toBe("Lentils");
  });

  it("refuses to guess between two equally similar elements", async () => {
    await page.setContent(`<button class="a">One</button><button class="a">Two</button>`);
    expect(await relocateBySimilarity(page.mainFrame(), [["button.a.gone"]])).toBeUndefined();
  });

  // Issue #35: a list drawn anew and sorted (finished items last), rows inside a shadow root, checkboxes with no name.
  const SORTED_LIST = `<errand-board></errand-board><script>
    customElements.define("errand-board", class extends HTMLElement {
      constructor() { super(); this.attachShadow({ mode: "open" }).innerHTML = "<ul><li><input type=checkbox><label>Buy stamps</label></li><li><input type=checkbox><label>Post the parcel</label></li><li><input type=checkbox checked><label>Return library books</label></li></ul>"; }
    });
  </script>`;
  const findContext = () => ({
    watch: createPolicyWatch(),
    deadline: Date.now() + 1_500,
    stepTimeoutMs: 1_500,
    signal: new AbortController().signal,
    values: { errand: "post the PARCEL" },
  });

  it("tells whether a control sits in the row showing a text, through shadow roots", async () => {
    await page.setContent(SORTED_LIST);
    const first = (await page.$("errand-board >>> li:nth-of-type(1) > input"))!;
    expect(await rowShows(first, "Buy stamps")).toBe(true);
    expect(await rowShows(first, "Return library books")).toBe(false);
  });

  it("passes over a selector by position that finds another row's control, and finds the row by its text", async () => {
    await page.setContent(SORTED_LIST);
    // Recorded when "Return library books" was the first row; the list has since sorted it last.
    const step = {
      selectors: [["html > body > errand-board", "ul > li:nth-of-type(1) > input"]],
      hint: { role: "checkbox", row_text: "Return library books" },
    };
    const found = await resolveTarget(page, step, findContext(), true);
    expect(found.resolved).toBeUndefined();
    expect(await found.handle.evaluate((element) => element.nextElementSibling?.textContent)).toBe("Return library books");
    // The same by a parameter's value (a row added with a typed value), any case.
    const byValue = await resolveTarget(page, { selectors: step.selectors, hint: { role: "checkbox", row_parameter: "errand" } }, findContext(), true);
    expect(await byValue.handle.evaluate((element) => element.nextElementSibling?.textContent)).toBe("Post the parcel");
    // A row-bound step whose row is not there fails rather than acting on another row.
    await expect(
      resolveTarget(page, { selectors: step.selectors, hint: { role: "checkbox", row_text: "Water the plants" } }, findContext(), true),
    ).rejects.toThrow(/another row than the one the step acts on/);
  });

  it("shows a control revealed on hover by hovering over its row", async () => {
    await page.setContent(
      `<style>.row .remove { display: none } .row:hover .remove { display: inline }</style><ul><li class="row">Milk <button class="remove">Remove</button></li></ul>`,
    );
    const handle = (await page.$("button.remove"))!;
    expect(await handle.isVisible()).toBe(false);
    expect(await revealByHover(handle)).toBe(true);
  });
});
