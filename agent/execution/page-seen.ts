import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import type { PageSeen } from "../../shared/execution/run-contract";
import { MIN_SCRUB_LENGTH } from "../../shared/observation/typed-value-scrubber";
import { clamp, within } from "./execution-util";

/**
 * What the page showed where an execution stopped short, so a person sees why: its address, title,
 * headings and the names of its buttons and links, every one scrubbed of the input values; and,
 * when asked for, a screenshot with those values covered.
 */

const HEADINGS_MAX = 20;
const BUTTONS_MAX = 40;
const READ_TIMEOUT_MS = 3_000;
const SCREENSHOT_TIMEOUT_MS = 5_000;
const OVERLAY_ID = "__elnor_page_seen_cover";

/** Runs in the page as source text (see checkpoint-check.ts); visible headings, buttons and links, in document order. */
const READ_SCRIPT = `(() => {
  const clean = (text) => (text || "").replace(/\\s+/g, " ").trim();
  const shown = (element) => typeof element.checkVisibility !== "function" || element.checkVisibility();
  const nameOf = (element) => clean(element.getAttribute("aria-label")) || clean(element.innerText) || clean(element.getAttribute("title")) || clean(element.value);
  const collect = (selector, max) => {
    const names = [];
    for (const element of document.querySelectorAll(selector)) {
      if (!shown(element)) continue;
      const name = nameOf(element);
      if (name !== "" && !names.includes(name)) names.push(name);
      if (names.length >= max) break;
    }
    return names;
  };
  return {
    headings: collect("h1, h2, h3, h4, h5, h6, [role=heading]", ${HEADINGS_MAX}),
    buttons: collect("button, [role=button], a[href], [role=link], input[type=submit], input[type=button]", ${BUTTONS_MAX}),
  };
})()`;

export interface PageSeenOptions {
  /** Scrubs input values from text (the executor's redactor). */
  redact: (text: string) => string;
  /** Values to cover in the screenshot. */
  values: readonly string[];
  screenshotPath?: string | undefined;
}

/** Never throws: a page that cannot be read gives what could be read. */
export async function readPageSeen(page: Page, options: PageSeenOptions): Promise<PageSeen> {
  const { redact } = options;
  const url = page.url();
  const title = await within(page.title(), READ_TIMEOUT_MS, "timeout").catch(() => "");
  const lists = (await within(page.evaluate(READ_SCRIPT), READ_TIMEOUT_MS, "timeout").catch(() => ({ headings: [], buttons: [] }))) as { headings: string[]; buttons: string[] };
  const seen: PageSeen = {
    url: clamp(redact(url), 2000),
    title: clamp(redact(title), 240),
    headings: lists.headings.slice(0, HEADINGS_MAX).map((text) => clamp(redact(text), 160)),
    buttons: lists.buttons.slice(0, BUTTONS_MAX).map((text) => clamp(redact(text), 160)),
  };
  if (options.screenshotPath !== undefined) {
    const written = await screenshotCovered(page, options.screenshotPath, options.values).then(
      () => true,
      () => false,
    );
    if (written) seen.screenshot_ref = clamp(path.basename(options.screenshotPath), 240);
  }
  return seen;
}

/**
 * Covers, for the time of the screenshot, every field and every text that holds an input value
 * (password fields always), then takes the screenshot and removes the covers again.
 */
async function screenshotCovered(page: Page, file: string, values: readonly string[]): Promise<void> {
  const needles = values.map((value) => value.replace(/\s+/g, " ").trim().toLowerCase()).filter((value) => value.length >= MIN_SCRUB_LENGTH);
  const cover = `((needles) => {
    const holds = (text) => { const t = (text || "").replace(/\\s+/g, " ").toLowerCase(); return needles.some((n) => t.includes(n)); };
    const rects = [];
    for (const field of document.querySelectorAll("input, textarea, select")) {
      if (field.type === "password" || holds(field.value)) rects.push(field.getBoundingClientRect());
    }
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!holds(node.textContent)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) rects.push(rect);
    }
    const layer = document.createElement("div");
    layer.id = ${JSON.stringify(OVERLAY_ID)};
    layer.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483647";
    for (const rect of rects) {
      const box = document.createElement("div");
      box.style.cssText = "position:fixed;background:#444;left:" + rect.left + "px;top:" + rect.top + "px;width:" + rect.width + "px;height:" + rect.height + "px";
      layer.appendChild(box);
    }
    document.documentElement.appendChild(layer);
  })(${JSON.stringify(needles)})`;
  const uncover = `document.getElementById(${JSON.stringify(OVERLAY_ID)})?.remove()`;
  await within(page.evaluate(cover), READ_TIMEOUT_MS, "the page could not be covered");
  try {
    const png = await within(page.screenshot({ type: "png" }), SCREENSHOT_TIMEOUT_MS, "the screenshot took too long");
    await writeFile(file, png);
  } finally {
    await page.evaluate(uncover).catch(() => undefined);
  }
}
