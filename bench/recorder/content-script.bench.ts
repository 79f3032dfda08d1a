import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, CDPSession, Page } from "puppeteer-core";
import { build, type Rollup } from "vite";
import { z } from "zod";
import { projectRoot } from "../../agent/test-support/agent-process";
import { bundleCaptureRuntime, captureConfig, startContentHarness } from "../../e2e/support/content-harness";
import type { BenchResult } from "../bench-result";
import { assertNever } from "../../shared/common/assert-never";

/**
 * Main-thread time our content script adds per user interaction, against rrweb's `record()` with
 * `maskAllInputs: true` on the same page and the same interactions (issue #4, "Benchmarks").
 * BENCHMARKS.md explains the method; in short:
 * - One generated page (a 20-field order form, a catalogue of 500 rows with an "Add" button each,
 *   a few buttons; the page's own script updates a cart), served from 127.0.0.1 and opened in a
 *   fresh tab for every run in Debian's Chromium.
 * - A fixed sequence of 240 interactions (row and button clicks, typing into fields, select changes
 *   by keyboard, checkbox/radio toggles) as real input: CDP `Input.dispatchMouseEvent`/`KeyEvent`
 *   through puppeteer's mouse and keyboard, so the page sees trusted events from Chromium's own
 *   input pipeline and our listeners (which drop untrusted events) and rrweb's run as for a person.
 * - Three recorders: none; ours (the bundle the content-capture e2e tests run, in an isolated world
 *   as a content script is); rrweb (bundled by vite, in the page's world as it is deployed). Both
 *   sinks JSON-serialise what they are handed: the least any transport does. A fourth run, "event
 *   sources only", is reported beside them: our capture's listeners and MutationObserver, in the
 *   same world, with handlers that do nothing — what observing at all costs under this
 *   instrument, below which no work of ours can go.
 * - A Chromium trace per run. A step's window runs from a `performance.mark` just before its input
 *   to the next step's mark; its cost is the main thread's CPU time (`tdur`) in JavaScript
 *   (`SCRIPT_ROOTS`). Runs are interleaved (none, ours, rrweb) `REPEATS` times; per step the median
 *   over repeats is taken, and a recorder's added cost is its median minus the no-recorder median.
 * - Our capture's timers are shortened (snapshot debounce 300 → 20 ms, batch delay 500 → 20 ms) so
 *   each step's deferred work lands in its own window. That never removes work: the debounce can
 *   only merge snapshots (here every interaction gets its own, as for a person who pauses between
 *   actions) and a shorter batch delay only means more, smaller messages.
 */

// rrweb is a devDependency only for this file: the baseline the issue names. It never ships.

const REPEATS = 3;
export const SETTLE_AFTER_STEP_MS = 80;
export const SETTLE_BEFORE_START_MS = 800;
export const SETTLE_AT_END_MS = 1200;
export const OUR_TIMERS = { snapshotDelayMs: 20, batchDelayMs: 20 };
/** The isolated world our capture runs in, and the global `bundleCaptureRuntime()` defines. */
export const CAPTURE_WORLD = "elnor-capture";
export const CAPTURE_GLOBAL = "ElnorContentCapture";
const MARK_PREFIX = "elnor-bench-step-";
const END_MARK = "elnor-bench-end";
/** Issue 17's targets: half of rrweb's cost at p50 and on average, no more than rrweb's at p95. */
const TARGET_RATIO = 0.5;
const TARGET_P95_RATIO = 1.0;

export type Recorder = "none" | "ours" | "rrweb" | "sources" | "floor";
/** `ELNOR_BENCH_FLOOR=1` adds the "floor" recorder (a minimal event record per action; see `MINIMAL_RECORD`). */
const RECORDERS: readonly Recorder[] = process.env.ELNOR_BENCH_FLOOR ? ["none", "ours", "rrweb", "sources", "floor"] : ["none", "ours", "rrweb", "sources"];

// --- the fixture page ---

interface FieldSpec {
  id: string;
  label: string;
  /** An <input type>, or "select" / "textarea". */
  type: string;
  autocomplete?: string;
  options?: string[];
}

const FIELDS: readonly FieldSpec[] = [
  { id: "first-name", label: "First name", type: "text", autocomplete: "given-name" },
  { id: "last-name", label: "Last name", type: "text", autocomplete: "family-name" },
  { id: "email", label: "Email", type: "email", autocomplete: "email" },
  { id: "phone", label: "Phone", type: "tel", autocomplete: "tel" },
  { id: "company", label: "Company", type: "text", autocomplete: "organization" },
  { id: "address-1", label: "Address", type: "text", autocomplete: "address-line1" },
  { id: "address-2", label: "Address line 2", type: "text", autocomplete: "address-line2" },
  { id: "city", label: "City", type: "text", autocomplete: "address-level2" },
  { id: "postcode", label: "Postcode", type: "text", autocomplete: "postal-code" },
  { id: "country", label: "Country", type: "select", options: ["France", "Germany", "Italy", "Netherlands", "Norway", "Portugal", "Spain", "Sweden"] },
  { id: "region", label: "Region", type: "select", options: ["North", "East", "South", "West", "Central", "Islands"] },
  { id: "delivery", label: "Delivery", type: "select", options: ["Standard", "Express", "Next day", "Pick-up point", "In store"] },
  { id: "delivery-date", label: "Delivery date", type: "date" },
  { id: "quantity", label: "Quantity", type: "number" },
  { id: "coupon", label: "Coupon code", type: "text" },
  { id: "account-password", label: "Account password", type: "password", autocomplete: "new-password" },
  { id: "notes", label: "Delivery notes", type: "textarea" },
  { id: "newsletter", label: "Send me the newsletter", type: "checkbox" },
  { id: "gift-wrap", label: "Gift wrap", type: "checkbox" },
  { id: "invoice", label: "Paper invoice", type: "checkbox" },
];
const CONTACT_OPTIONS = ["Email", "Phone", "Post"] as const;
const ROWS = 500;
const PRODUCTS = [
  "Blue widget",
  "Steel bracket",
  "Oak shelf",
  "Wool blanket",
  "Desk lamp",
  "Ceramic mug",
  "Garden hose",
  "Wall clock",
  "Linen towel",
  "Glass jar",
];

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function fieldHtml(field: FieldSpec): string {
  const autocomplete = field.autocomplete ? ` autocomplete="${field.autocomplete}"` : "";
  const name = ` name="${field.id}" id="${field.id}"`;
  if (field.type === "checkbox") return `<div class="check"><input type="checkbox"${name}><label for="${field.id}">${escapeHtml(field.label)}</label></div>`;
  const control =
    field.type === "select"
      ? `<select${name}>${(field.options ?? []).map((option) => `<option>${escapeHtml(option)}</option>`).join("")}</select>`
      : field.type === "textarea"
        ? `<textarea${name} rows="2"></textarea>`
        : `<input type="${field.type}"${name}${autocomplete}>`;
  return `<div class="field"><label for="${field.id}">${escapeHtml(field.label)}</label>${control}</div>`;
}

/** A realistic shop back-office page: the page's own script reacts to clicks, edits and choices. */
export function fixturePage(): string {
  const rows = Array.from({ length: ROWS }, (_, index) => {
    const number = String(index + 1).padStart(3, "0");
    const product = PRODUCTS[index % PRODUCTS.length]!;
    const price = (4 + ((index * 37) % 200) / 4).toFixed(2);
    return `<li id="row-${index}" class="row"><span class="name">${product} ${number}</span><span class="sku">SKU-${number}</span><span class="price">€${price}</span><button type="button" class="add" data-row="${index}">Add</button></li>`;
  }).join("\n");
  const contact = CONTACT_OPTIONS.map(
    (option) => `<label><input type="radio" name="contact" id="contact-${option.toLowerCase()}" value="${option.toLowerCase()}"> ${option}</label>`,
  ).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Order desk</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; }
  header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; background: #234; color: white; }
  header a { color: white; }
  main { display: grid; grid-template-columns: 440px 1fr 220px; gap: 16px; padding: 16px; }
  .field { display: grid; grid-template-columns: 140px 1fr; gap: 6px; margin: 4px 0; }
  #catalogue { height: 640px; overflow: auto; margin: 0; padding: 0; list-style: none; border: 1px solid #ccc; }
  .row { display: grid; grid-template-columns: 1fr 90px 70px 80px; padding: 4px 8px; border-bottom: 1px solid #eee; }
  .row.in-cart { background: #eef8ee; }
  [aria-invalid="true"] { outline: 2px solid #c33; }
</style>
</head>
<body>
<header><strong>Order desk</strong><nav aria-label="Sections"><a href="#orders">Orders</a> <a href="#customers">Customers</a> <a href="#reports">Reports</a></nav></header>
<main>
  <section aria-labelledby="order-heading">
    <h2 id="order-heading">New order</h2>
    <form id="order">
      ${FIELDS.map(fieldHtml).join("\n      ")}
      <fieldset><legend>Contact me by</legend>${contact}</fieldset>
      <p><button type="submit" id="save">Save order</button> <button type="button" id="apply-coupon">Apply coupon</button> <button type="reset" id="reset">Reset</button></p>
      <p role="status" id="form-status"></p>
    </form>
  </section>
  <section aria-labelledby="catalogue-heading">
    <h2 id="catalogue-heading">Catalogue</h2>
    <ul id="catalogue">
${rows}
    </ul>
  </section>
  <aside aria-labelledby="cart-heading">
    <h2 id="cart-heading">Cart</h2>
    <p role="status" id="cart-status">The cart is empty.</p>
    <ol id="cart-lines"></ol>
    <p><button type="button" id="clear-cart">Clear cart</button> <button type="button" id="checkout">Checkout</button></p>
  </aside>
</main>
<script>
  const cart = new Map();
  const status = document.getElementById("cart-status");
  const lines = document.getElementById("cart-lines");
  const render = () => {
    status.textContent = cart.size === 0 ? "The cart is empty." : cart.size + (cart.size === 1 ? " item" : " items") + " in the cart.";
    lines.replaceChildren(...[...cart.values()].slice(-8).map((name) => Object.assign(document.createElement("li"), { textContent: name })));
  };
  document.getElementById("catalogue").addEventListener("click", (event) => {
    const button = event.target.closest("button.add");
    if (!button) return;
    const row = button.closest("li");
    const name = row.querySelector(".name").textContent;
    if (cart.has(row.id)) cart.delete(row.id); else cart.set(row.id, name);
    row.classList.toggle("in-cart", cart.has(row.id));
    button.textContent = cart.has(row.id) ? "Remove" : "Add";
    render();
  });
  document.getElementById("clear-cart").addEventListener("click", () => {
    for (const id of cart.keys()) {
      const row = document.getElementById(id);
      row.classList.remove("in-cart");
      row.querySelector("button").textContent = "Add";
    }
    cart.clear();
    render();
  });
  document.getElementById("checkout").addEventListener("click", () => { status.textContent = "Checkout needs a saved order."; });
  const form = document.getElementById("order");
  const formStatus = document.getElementById("form-status");
  form.addEventListener("change", (event) => {
    const field = event.target;
    if (field.type === "email") field.setAttribute("aria-invalid", String(!field.value.includes("@")));
    if (field.id === "country") formStatus.textContent = "Shipping to " + field.value + ".";
  });
  document.getElementById("apply-coupon").addEventListener("click", () => {
    const code = document.getElementById("coupon").value;
    formStatus.textContent = code ? "Coupon applied." : "Enter a coupon code first.";
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    formStatus.textContent = "Order saved at " + new Date().toLocaleTimeString() + ".";
  });
</script>
</body>
</html>`;
}

// --- the scripted interactions ---

/** One thing a person does; each is driven through CDP Input, so the page sees trusted events. */
export type Step =
  | { kind: "click"; selector: string }
  /** Click into the field, then type (the edit is reported when focus leaves it, in the next step). */
  | { kind: "type"; selector: string; text: string }
  /** Click the select's label (focuses it without opening the popup), then ArrowDown/ArrowUp. */
  | { kind: "choose"; labelSelector: string; key: "ArrowDown" | "ArrowUp" };

const WORDS = [
  "Ada",
  "Lovelace",
  "ada@example.org",
  "+44 20 7946 0018",
  "Analytical Engines Ltd",
  "12 Marylebone Road",
  "Flat 3",
  "London",
  "NW1 5LR",
  "WELCOME10",
  "Leave at the door",
  "s3cret-Passw0rd",
];
const TEXT_FIELDS = [
  "first-name",
  "last-name",
  "email",
  "phone",
  "company",
  "address-1",
  "address-2",
  "city",
  "postcode",
  "coupon",
  "notes",
  "account-password",
];
const SELECTS = ["country", "region", "delivery"];
const TOGGLES = ["#newsletter", "#gift-wrap", "#invoice", "#contact-email", "#contact-phone", "#contact-post"];
const BUTTONS = ["#apply-coupon", "#save", "#checkout", "#clear-cart"];

/** 240 steps in a fixed order: 90 row clicks, 60 field edits, 30 select changes, 30 toggles, 30 buttons. */
export function scriptedSteps(): Step[] {
  const steps: Step[] = [];
  for (let index = 0; index < 240; index += 1) {
    const round = Math.floor(index / 8);
    switch (index % 8) {
      case 0:
      case 2:
      case 4: {
        const row = (index * 211 + 17) % ROWS;
        steps.push({ kind: "click", selector: `#row-${row} button` });
        break;
      }
      case 1:
      case 5: {
        const which = (round * 2 + (index % 8 === 5 ? 1 : 0)) % TEXT_FIELDS.length;
        // Each visit types something new, so every edit is a real change.
        steps.push({ kind: "type", selector: `#${TEXT_FIELDS[which]!}`, text: `${WORDS[which]!} ${round}` });
        break;
      }
      case 3:
        steps.push({ kind: "choose", labelSelector: `label[for="${SELECTS[round % SELECTS.length]!}"]`, key: round % 4 === 3 ? "ArrowUp" : "ArrowDown" });
        break;
      case 6:
        steps.push({ kind: "click", selector: TOGGLES[round % TOGGLES.length]! });
        break;
      case 7:
        steps.push({ kind: "click", selector: BUTTONS[round % BUTTONS.length]! });
        break;
      default:
        throw new Error("unreachable: index % 8");
    }
  }
  return steps;
}

/**
 * Marks the step's start in the trace, brings its target into view (as a person scrolls to it) and
 * returns the point to press, in one evaluation: puppeteer's `page.click` takes several round trips
 * and waits a frame per click, which would triple the bench's running time for nothing measured.
 */
function markAndLocate(page: Page, index: number, selector: string): Promise<{ x: number; y: number }> {
  return page.evaluate(
    (mark, target) => {
      performance.mark(mark);
      const element = document.querySelector(target);
      if (element === null) throw new Error(`no element matches ${target}`);
      element.scrollIntoView({ block: "nearest" });
      const box = element.getBoundingClientRect();
      return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
    },
    `${MARK_PREFIX}${index}`,
    selector,
  );
}

/** Real input through CDP: mouse presses and key strokes, the page sees trusted events. */
export async function perform(page: Page, index: number, step: Step): Promise<void> {
  const { x, y } = await markAndLocate(page, index, step.kind === "choose" ? step.labelSelector : step.selector);
  switch (step.kind) {
    case "click":
      await page.mouse.click(x, y);
      return;
    case "type":
      await page.mouse.click(x, y, { count: 3 }); // a triple click selects what is there: typing replaces it
      await page.keyboard.type(step.text);
      return;
    case "choose":
      await page.mouse.click(x, y);
      await page.keyboard.press(step.key);
      return;
    default:
      assertNever(step);
  }
}

// --- recorders ---

/** rrweb's `record` as a page would ship it: bundled by vite into one IIFE that defines `rrweb`. */
export async function bundleRrwebRecord(): Promise<string> {
  const entry = fileURLToPath(import.meta.resolve("rrweb"));
  const result = await build({
    configFile: false,
    root: projectRoot,
    logLevel: "silent",
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    build: { write: false, minify: false, target: "es2022", lib: { entry, formats: ["iife"], name: "rrweb", fileName: () => "rrweb.js" } },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
  const chunk = outputs.flatMap((output) => output.output).find((item): item is Rollup.OutputChunk => item.type === "chunk");
  if (!chunk) throw new Error("vite produced no chunk for rrweb");
  return chunk.code;
}

export interface Bundles {
  capture: string;
  rrweb: string;
}

/** What a recorder handed its sink: messages, interaction events among them, serialised characters. */
const SinkTallySchema = z.object({ messages: z.number(), items: z.number(), chars: z.number() });
type SinkTally = z.infer<typeof SinkTallySchema>;

/**
 * The event sources our capture listens to (extension/observation/dom-observer.ts and page-index.ts:
 * capture-phase listeners on the document and the window, one MutationObserver over the document),
 * each with a handler that does nothing.
 */
const EVENT_SOURCES_ONLY = `(() => {
  if (window.top !== window) return;
  const nothing = () => {};
  const options = { capture: true, passive: true };
  const start = () => {
    for (const type of ["click", "change", "focusin", "focusout", "submit", "keydown", "toggle"]) document.addEventListener(type, nothing, options);
    for (const type of ["popstate", "hashchange", "resize"]) window.addEventListener(type, nothing, options);
    if (window.navigation) window.navigation.addEventListener("currententrychange", nothing, options);
    new MutationObserver(nothing).observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
})();`;

/**
 * The least a recorder of actions does per action, without any snapshot: the same listeners as
 * ours (`EVENT_SOURCES_ONLY`), and for a click, a committed change or Enter/Escape an event record —
 * a random id, the time, the page's URL and title, the target's tag, role, a name (aria-label or
 * its first 100 characters of text) and one selector (its id, or its tag) — serialised as a sink
 * does. No uniqueness check, no masking, no typed-value scrubbing: a floor, not a capture.
 */
const MINIMAL_RECORD = `(() => {
  if (window.top !== window) return;
  const tally = { messages: 0, items: 0, chars: 0 };
  globalThis.__benchTally = tally;
  const nothing = () => {};
  const options = { capture: true, passive: true };
  const record = (kind, event) => {
    if (!event.isTrusted) return;
    const target = event.target;
    if (!(target instanceof Element)) return;
    const name = (target.getAttribute("aria-label") || target.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 100);
    const message = {
      event_id: crypto.randomUUID(),
      kind,
      created_at: new Date().toISOString(),
      page_url: location.href,
      page_title: document.title,
      target_tag: target.localName,
      target_role: target.getAttribute("role") || target.localName,
      target_name: name,
      selectors: [[target.id ? "#" + CSS.escape(target.id) : target.localName]],
    };
    tally.messages += 1;
    tally.items += 1;
    tally.chars += JSON.stringify(message).length;
  };
  const start = () => {
    document.addEventListener("click", (event) => record("click", event), options);
    document.addEventListener("change", (event) => record("change", event), options);
    document.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === "Escape") record("keydown", event); }, options);
    for (const type of ["focusin", "focusout", "submit", "toggle"]) document.addEventListener(type, nothing, options);
    for (const type of ["popstate", "hashchange", "resize"]) window.addEventListener(type, nothing, options);
    if (window.navigation) window.navigation.addEventListener("currententrychange", nothing, options);
    new MutationObserver(nothing).observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
})();`;

export function recorderScript(recorder: Exclude<Recorder, "none">, bundles: Bundles, origin: string): string {
  switch (recorder) {
    case "sources":
      return EVENT_SOURCES_ONLY;
    case "floor":
      return MINIMAL_RECORD;
    case "ours":
      return `${bundles.capture}
;(() => {
  if (window.top !== window) return;
  const tally = { messages: 0, items: 0, chars: 0 };
  globalThis.__benchTally = tally;
  const capture = ${CAPTURE_GLOBAL}.createContentCapture({
    snapshotDelayMs: ${OUR_TIMERS.snapshotDelayMs},
    batchDelayMs: ${OUR_TIMERS.batchDelayMs},
    send(message) {
      tally.messages += 1;
      tally.items += message.type === "capture/events" ? message.events.filter((event) => event.adapter_kind === "browser_dom").length : 0;
      tally.chars += JSON.stringify(message).length;
    },
  });
  globalThis.__benchCapture = capture;
  const start = () => capture.setConfig(${JSON.stringify(captureConfig([origin]))});
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
})();`;
    case "rrweb":
      return `${bundles.rrweb}
;(() => {
  if (window.top !== window) return;
  const tally = { messages: 0, items: 0, chars: 0 };
  globalThis.__benchTally = tally;
  rrweb.record({
    maskAllInputs: true,
    emit(event) {
      tally.messages += 1;
      tally.items += event.type === 3 ? 1 : 0; // EventType.IncrementalSnapshot
      tally.chars += JSON.stringify(event).length;
    },
  });
})();`;
    default:
      return assertNever(recorder);
  }
}

// --- one run: a fresh page, the whole sequence, a trace ---

interface RunResult {
  /** Main-thread script CPU time per step window, ms. */
  stepScriptMs: number[];
  /** The part of it in event listeners (calls from event dispatch: ours and the page's), ms. */
  stepListenerMs: number[];
  tally: SinkTally | undefined;
  /** A V8 CPU profile of the run (only when asked for: sampling slows the page down). */
  cpuProfile?: unknown;
}

export async function runSequence(
  browser: Browser,
  url: string,
  recorder: Recorder,
  bundles: Bundles,
  steps: readonly Step[],
  { profile = false }: { profile?: boolean } = {},
): Promise<RunResult> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: 1280, height: 900 });
    const cdp: CDPSession = await page.createCDPSession();
    let captureContextId: number | undefined;
    cdp.on("Runtime.executionContextCreated", ({ context }) => {
      if (context.name === CAPTURE_WORLD) captureContextId = context.id;
    });
    await cdp.send("Runtime.enable");
    await cdp.send("Page.enable");
    const origin = new URL(url).origin;
    if (recorder === "ours" || recorder === "sources" || recorder === "floor") {
      await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source: recorderScript(recorder, bundles, origin), worldName: CAPTURE_WORLD });
    } else if (recorder === "rrweb") {
      await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source: recorderScript("rrweb", bundles, origin) });
    }
    await page.goto(url, { waitUntil: "load" });
    // Start-up (rrweb's full snapshot, our first snapshot and "Open") is not an interaction.
    await sleep(SETTLE_BEFORE_START_MS);

    if (profile) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
      await cdp.send("Profiler.start");
    }
    await page.tracing.start({ categories: ["devtools.timeline", "blink.user_timing"] });
    for (const [index, step] of steps.entries()) {
      await perform(page, index, step);
      await sleep(SETTLE_AFTER_STEP_MS);
    }
    // Everything deferred (our last snapshot and batch, rrweb's buffered mouse moves) settles.
    await sleep(SETTLE_AT_END_MS);
    await page.evaluate((name) => void performance.mark(name), END_MARK);
    const trace = await page.tracing.stop();
    if (trace === undefined) throw new Error("Chromium returned no trace");
    const cpuProfile = profile ? (await cdp.send("Profiler.stop")).profile : undefined;

    let tally: SinkTally | undefined;
    if (recorder === "ours") {
      if (captureContextId === undefined) throw new Error("the capture's isolated world was not created");
      const result = await cdp.send("Runtime.evaluate", {
        expression: "globalThis.__benchCapture.flush().then(() => JSON.stringify(globalThis.__benchTally))",
        contextId: captureContextId,
        awaitPromise: true,
      });
      tally = SinkTallySchema.parse(JSON.parse(String(result.result.value)));
    } else if (recorder === "rrweb") {
      tally = SinkTallySchema.parse(await page.evaluate("globalThis.__benchTally"));
    } else if (recorder === "floor") {
      if (captureContextId === undefined) throw new Error("the floor recorder's isolated world was not created");
      const result = await cdp.send("Runtime.evaluate", { expression: "JSON.stringify(globalThis.__benchTally)", contextId: captureContextId });
      tally = SinkTallySchema.parse(JSON.parse(String(result.result.value)));
    }
    return { ...stepScriptTimes(trace, steps.length), tally, cpuProfile };
  } finally {
    await page.close();
  }
}

/** The part of Chromium's trace format read here (complete events carry `dur`, and `tdur` when thread time is known). */
const TraceSchema = z.object({
  traceEvents: z.array(
    z.object({
      name: z.string(),
      ph: z.string(),
      pid: z.number(),
      tid: z.number(),
      ts: z.number(),
      dur: z.number().optional(),
      tdur: z.number().optional(),
      args: z.object({ data: z.object({ url: z.string().optional() }).optional() }).optional(),
    }),
  ),
});

/**
 * JavaScript on the renderer's main thread: every call from the browser into script (an event
 * listener, ours, rrweb's or the page's; a timer; a mutation observer), the microtasks and idle
 * callbacks around them, and garbage collection outside them. Style and layout a script forces by
 * reading the DOM, and GC during it, happen inside these calls and count. Event dispatch itself
 * and its default actions (inserting a typed character, focusing) are the browser's work for the
 * page, the same with or without a recorder, and by far the noisiest part: they are left out,
 * as is rendering.
 */
const SCRIPT_ROOTS = new Set(["FunctionCall", "TimerFire", "RunMicrotasks", "FireIdleCallback", "FireAnimationFrame", "MinorGC", "MajorGC"]);

/**
 * Script CPU time of the renderer main thread per step window: the thread that recorded our marks;
 * outermost script events only (nested ones are inside their parent's time), each counted in the
 * window it starts in. The driver's own evaluations (puppeteer's `pptr:` scripts) are left out.
 */
function stepScriptTimes(trace: Uint8Array, stepCount: number): { stepScriptMs: number[]; stepListenerMs: number[] } {
  const { traceEvents: events } = TraceSchema.parse(JSON.parse(Buffer.from(trace).toString("utf8")));
  const marks = new Map<string, (typeof events)[number]>();
  for (const event of events) if (event.name.startsWith(MARK_PREFIX) || event.name === END_MARK) marks.set(event.name, event);
  const first = marks.get(`${MARK_PREFIX}0`);
  const end = marks.get(END_MARK);
  if (first === undefined || end === undefined) throw new Error("the trace holds no step marks");
  const starts = Array.from({ length: stepCount }, (_, index) => {
    const mark = marks.get(`${MARK_PREFIX}${index}`);
    if (mark === undefined) throw new Error(`the trace lacks the mark of step ${index}`);
    return mark.ts;
  });
  const scripts = events
    .filter((event) => event.ph === "X" && SCRIPT_ROOTS.has(event.name) && event.pid === first.pid && event.tid === first.tid)
    // Parents first: earlier start, then longer.
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const cpu = new Array<number>(stepCount).fill(0);
  const listeners = new Array<number>(stepCount).fill(0);
  let coveredUntil = -Infinity;
  let step = 0;
  for (const event of scripts) {
    if (event.ts < coveredUntil) continue; // nested in an event already counted (or left out)
    coveredUntil = event.ts + (event.dur ?? 0);
    if (event.ts < starts[0]! || event.ts > end.ts || event.args?.data?.url?.startsWith("pptr:") === true) continue;
    while (step + 1 < stepCount && event.ts >= starts[step + 1]!) step += 1;
    cpu[step]! += (event.tdur ?? event.dur ?? 0) / 1000;
    // An outermost FunctionCall is a call from event dispatch (timers, microtasks, idle callbacks and observers have their own roots).
    if (event.name === "FunctionCall") listeners[step]! += (event.tdur ?? event.dur ?? 0) / 1000;
  }
  return { stepScriptMs: cpu, stepListenerMs: listeners };
}

// --- statistics ---

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Per step: the median over repeats. */
function medianPerStep(runs: readonly RunResult[], key: "stepScriptMs" | "stepListenerMs" = "stepScriptMs"): number[] {
  return runs[0]![key].map((_, step) => median(runs.map((run) => run[key][step]!)));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function serve(html: string): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    if (new URL(request.url ?? "/", "http://bench").pathname !== "/") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/**
 * `ELNOR_BENCH_PROFILE=<dir>`: after the measured runs, one more run of each recorder with V8's
 * sampling profiler on (not counted), saved as `<dir>/content-script-<recorder>.cpuprofile` for
 * DevTools' Performance panel: where the time goes.
 */
export async function benchContentScript(): Promise<BenchResult[]> {
  const bundles: Bundles = { capture: await bundleCaptureRuntime(), rrweb: await bundleRrwebRecord() };
  const server = await serve(fixturePage());
  // The harness launches Debian's Chromium with the flags the e2e tests use; its fixture server stays idle.
  const harness = await startContentHarness();
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const steps = scriptedSteps();
    const runs: Record<Recorder, RunResult[]> = { none: [], ours: [], rrweb: [], sources: [], floor: [] };
    // Interleaved, so a slow spell of the machine hits every recorder alike.
    for (let repeat = 0; repeat < REPEATS; repeat += 1) {
      for (const recorder of RECORDERS) runs[recorder].push(await runSequence(harness.browser, url, recorder, bundles, steps));
    }
    const profileDir = process.env.ELNOR_BENCH_PROFILE;
    if (profileDir) {
      await mkdir(profileDir, { recursive: true });
      for (const recorder of ["ours", "rrweb"] as const) {
        const { cpuProfile } = await runSequence(harness.browser, url, recorder, bundles, steps, { profile: true });
        await writeFile(path.join(profileDir, `content-script-${recorder}.cpuprofile`), JSON.stringify(cpuProfile));
      }
    }
    return summarise(runs, steps);
  } finally {
    await harness.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function summarise(runs: Record<Recorder, RunResult[]>, steps: readonly Step[]): BenchResult[] {
  // A benchmark that would pass with a recorder switched off is worthless: both must have seen the steps.
  for (const recorder of ["ours", "rrweb"] as const) {
    for (const run of runs[recorder]) {
      if (run.tally === undefined || run.tally.items < steps.length * 0.9) {
        throw new Error(`${recorder} recorded ${run.tally?.items ?? 0} interaction events for ${steps.length} steps: it did not observe the page`);
      }
    }
  }
  const none = medianPerStep(runs.none);
  const added = (recorder: Exclude<Recorder, "none">): number[] => medianPerStep(runs[recorder]).map((value, step) => value - none[step]!);
  const ours = added("ours");
  const rrweb = added("rrweb");
  const sources = added("sources");
  const noneListeners = medianPerStep(runs.none, "stepListenerMs");
  const addedInListeners = (recorder: Exclude<Recorder, "none">): number[] =>
    medianPerStep(runs[recorder], "stepListenerMs").map((value, step) => value - noneListeners[step]!);
  const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const figures = {
    p50: { ours: percentile(ours, 50), rrweb: percentile(rrweb, 50) },
    p95: { ours: percentile(ours, 95), rrweb: percentile(rrweb, 95) },
    mean: { ours: mean(ours), rrweb: mean(rrweb) },
  };
  // How far one no-recorder run of a step strays from the median of its runs: what this instrument cannot resolve.
  const noise = percentile(
    runs.none.flatMap((run) => run.stepScriptMs.map((value, step) => Math.abs(value - none[step]!))),
    95,
  );
  const withinRatio = (figure: { ours: number; rrweb: number }, ratio = TARGET_RATIO) => figure.rrweb > 0 && figure.ours <= ratio * figure.rrweb;
  const baselineName = "rrweb record(), maskAllInputs: true";
  const label = `${steps.length} steps`;
  return [
    {
      name: `content script: main-thread time added per interaction, p50 (${label})`,
      value: figures.p50.ours,
      unit: "ms",
      baselineName,
      baseline: figures.p50.rrweb,
      target: `≤ ${TARGET_RATIO}× rrweb`,
      pass: withinRatio(figures.p50),
    },
    {
      name: `content script: main-thread time added per interaction, p95 (${label})`,
      value: figures.p95.ours,
      unit: "ms",
      baselineName,
      baseline: figures.p95.rrweb,
      target: `≤ ${TARGET_P95_RATIO}× rrweb`,
      pass: withinRatio(figures.p95, TARGET_P95_RATIO),
    },
    {
      name: `content script: main-thread time added per interaction, mean (${label})`,
      value: figures.mean.ours,
      unit: "ms",
      baselineName,
      baseline: figures.mean.rrweb,
      target: `≤ ${TARGET_RATIO}× rrweb`,
      pass: withinRatio(figures.mean),
    },
    {
      name: `content script bench: our event sources alone, handlers doing nothing, p50 (${label})`,
      value: percentile(sources, 50),
      unit: "ms",
      target: "reported (the floor under our p50)",
      pass: true,
    },
    {
      name: `content script bench: our event sources alone, handlers doing nothing, p95 (${label})`,
      value: percentile(sources, 95),
      unit: "ms",
      target: "reported (the floor under our p95)",
      pass: true,
    },
    ...(["ours", "rrweb"] as const).map((recorder) => ({
      name: `content script bench: ${recorder === "ours" ? "our" : "rrweb's"} event listeners alone (calls from event dispatch), p50 / mean (${label})`,
      value: percentile(addedInListeners(recorder), 50),
      unit: "ms",
      target: `reported (mean ${mean(addedInListeners(recorder)).toFixed(3)} ms; the rest of the recorder's time is timers, microtasks and observers)`,
      pass: true,
    })),
    ...(runs.floor.length === 0
      ? []
      : [
          {
            name: `content script bench: a minimal event record per action, no snapshot (ELNOR_BENCH_FLOOR), p50 (${label})`,
            value: percentile(added("floor"), 50),
            unit: "ms",
            target: `reported (p95 ${percentile(added("floor"), 95).toFixed(3)} ms, mean ${mean(added("floor")).toFixed(3)} ms: the least a recorded action costs)`,
            pass: true,
          },
        ]),
    {
      name: "content script bench: noise floor (p95 of a no-recorder run’s distance from the median, per step)",
      value: noise,
      unit: "ms",
      target: "reported (what this instrument cannot resolve)",
      pass: true,
    },
  ];
}
