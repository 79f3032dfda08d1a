import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import type { PageSeen } from "../../../shared/execution/run-contract";
import { clamp, within } from "../contract/execution-util";
import { maskUrl } from "../../../shared/observation/url-rule";

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
const NODES_KEY = "__elnorPageSeenNodes";
const NODES_MAX = 5_000;
const TEXT_MAX = 2_000;

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
  /** Whether a text holds an input value (the shared scrubbing rule): such texts are covered in the screenshot. */
  holdsValue: (text: string) => boolean;
  screenshotPath?: string | undefined;
}

/** Never throws: a page that cannot be read gives what could be read. */
export async function readPageSeen(page: Page, options: PageSeenOptions): Promise<PageSeen> {
  const { redact } = options;
  const url = page.url();
  const title = await within(page.title(), READ_TIMEOUT_MS, "timeout").catch(() => "");
  const lists = (await within(page.evaluate(READ_SCRIPT), READ_TIMEOUT_MS, "timeout").catch(() => ({ headings: [], buttons: [] }))) as {
    headings: string[];
    buttons: string[];
  };
  const seen: PageSeen = {
    // The address as the URL rule lets it be kept: a session id or token the app put in it is masked.
    url: clamp(redact(maskUrl(url) || url), 2000),
    title: clamp(redact(title), 240),
    headings: lists.headings.slice(0, HEADINGS_MAX).map((text) => clamp(redact(text), 160)),
    buttons: lists.buttons.slice(0, BUTTONS_MAX).map((text) => clamp(redact(text), 160)),
  };
  if (options.screenshotPath !== undefined) {
    const written = await screenshotCovered(page, options.screenshotPath, options.holdsValue).then(
      () => true,
      () => false,
    );
    if (written) seen.screenshot_ref = clamp(path.basename(options.screenshotPath), 240);
  }
  return seen;
}

/** Runs in the page: every visible text and field, kept by index for `COVER_SCRIPT`, and their texts. */
const COLLECT_SCRIPT = `(() => {
  const nodes = [];
  const texts = [];
  for (const field of document.querySelectorAll("input, textarea, select")) {
    nodes.push(field);
    texts.push(field.type === "password" ? null : String(field.value || "").slice(0, ${TEXT_MAX}));
  }
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node && nodes.length < ${NODES_MAX}; node = walker.nextNode()) {
    if (!node.textContent || !node.textContent.trim()) continue;
    nodes.push(node);
    texts.push(node.textContent.slice(0, ${TEXT_MAX}));
  }
  window[${JSON.stringify(NODES_KEY)}] = nodes;
  return texts;
})()`;

/** Runs in the page with the indexes to cover: a grey box over each, in one layer above the page. */
const COVER_SCRIPT = `((indexes) => {
  const nodes = window[${JSON.stringify(NODES_KEY)}] || [];
  const layer = document.createElement("div");
  layer.id = ${JSON.stringify(OVERLAY_ID)};
  layer.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483647";
  for (const index of indexes) {
    const node = nodes[index];
    if (!node) continue;
    let rects;
    if (node.nodeType === Node.TEXT_NODE) {
      const range = document.createRange();
      range.selectNodeContents(node);
      rects = [...range.getClientRects()];
    } else {
      rects = [node.getBoundingClientRect()];
    }
    for (const rect of rects) {
      const box = document.createElement("div");
      box.style.cssText = "position:fixed;background:#444;left:" + rect.left + "px;top:" + rect.top + "px;width:" + rect.width + "px;height:" + rect.height + "px";
      layer.appendChild(box);
    }
  }
  document.documentElement.appendChild(layer);
})`;

const UNCOVER_SCRIPT = `(() => { document.getElementById(${JSON.stringify(OVERLAY_ID)})?.remove(); delete window[${JSON.stringify(NODES_KEY)}]; })()`;

/**
 * Covers, for the time of the screenshot, every field and every text that holds an input value as
 * the shared scrubbing rule finds it (password fields always), then takes the screenshot and removes
 * the covers again. Nothing is written when the page cannot be covered.
 */
async function screenshotCovered(page: Page, file: string, holdsValue: (text: string) => boolean): Promise<void> {
  const texts = (await within(page.evaluate(COLLECT_SCRIPT), READ_TIMEOUT_MS, "the page could not be read")) as Array<string | null>;
  const indexes = texts.flatMap((text, index) => (text === null || holdsValue(text) ? [index] : []));
  try {
    await within(page.evaluate(`${COVER_SCRIPT}(${JSON.stringify(indexes)})`), READ_TIMEOUT_MS, "the page could not be covered");
    const png = await within(page.screenshot({ type: "png" }), SCREENSHOT_TIMEOUT_MS, "the screenshot took too long");
    await writeFile(file, png);
  } finally {
    await page.evaluate(UNCOVER_SCRIPT).catch(() => undefined);
  }
}
