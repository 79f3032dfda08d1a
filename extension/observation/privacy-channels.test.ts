import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureConfig, startContentHarness, type ContentHarness } from "../../e2e/test-support/content-harness";

/**
 * The inventory of every channel between a page and the extension (docs/privacy-channels.md, issue
 * #30) against what the content script really does: a listener, observer, dispatch, `window`
 * message or attribute on the page's nodes that the inventory does not list fails here, found both
 * in the sources and in real Chromium while a demonstration is recorded.
 */
const ROOT = path.join(import.meta.dirname, "../..");
const INVENTORY = readFileSync(path.join(ROOT, "docs/privacy-channels.md"), "utf8");

/** The channel ids of the inventory's tables (the backticked ids of each row's first cell). */
function inventoryIds(): Set<string> {
  const ids = new Set<string>();
  for (const line of INVENTORY.split("\n")) {
    const first = /^\|([^|]+)\|/.exec(line)?.[1];
    if (first === undefined) continue;
    for (const match of first.matchAll(/`([a-z]+:[A-Za-z-]+)`/g)) ids.add(match[1]!);
  }
  return ids;
}

/** The content script's sources: its entry and everything under extension/observation, tests left out. */
function contentSources(): Array<{ file: string; text: string }> {
  const files: string[] = [path.join(ROOT, "extension/entrypoints/content.ts")];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const file = path.join(folder, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.includes("test-page") && !file.includes("test-support")) files.push(file);
    }
  };
  walk(path.join(ROOT, "extension/observation"));
  return files.map((file) => ({ file: path.relative(ROOT, file), text: readFileSync(file, "utf8") }));
}

describe("the page ↔ extension channel inventory (issue #30)", () => {
  it("lists every event type the content script's sources listen to", () => {
    const ids = inventoryIds();
    const unlisted: string[] = [];
    for (const { file, text } of contentSources()) {
      const types = [
        ...[...text.matchAll(/addEventListener\(\s*"([A-Za-z]+)"/g)].map((match) => match[1]!),
        ...[...text.matchAll(/\blisten\([^,()]+,\s*"([A-Za-z]+)"/g)].map((match) => match[1]!),
        // Lists of types handed to a loop of listeners (the pill's contained events).
        ...[...text.matchAll(/_EVENTS\s*=\s*\[([^\]]*)\]/g)].flatMap((match) => [...match[1]!.matchAll(/"([A-Za-z]+)"/g)].map((item) => item[1]!)),
      ];
      for (const type of types) if (!ids.has(`event:${type}`)) unlisted.push(`${file}: event:${type}`);
    }
    expect(unlisted).toEqual([]);
    expect(ids.has("event:click") && ids.has("runtime:onMessage")).toBe(true);
  });

  it("finds no dispatch, window message or custom event in the content script's sources: the recorder never answers a page", () => {
    const found = contentSources().flatMap(({ file, text }) =>
      [...text.matchAll(/\b(dispatchEvent|postMessage|CustomEvent|MessageChannel|BroadcastChannel)\b/g)].map((match) => `${file}: ${match[1]}`),
    );
    expect(found).toEqual([]);
  });
});

/**
 * Instruments of the capture's own world, run before its code: every listener it adds, observer it
 * makes, timer it repeats, event it dispatches, message it posts, and attribute it sets on a node it
 * did not make, by channel id.
 */
const PRELUDE = `(() => {
  const seen = new Set();
  const ours = new WeakSet();
  globalThis.__elnorChannels = seen;
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) { seen.add("event:" + type); return add.call(this, type, listener, options); };
  const dispatch = EventTarget.prototype.dispatchEvent;
  EventTarget.prototype.dispatchEvent = function (event) { seen.add("dispatch:" + event.type); return dispatch.call(this, event); };
  const post = window.postMessage;
  window.postMessage = function (...args) { seen.add("dispatch:postMessage"); return post.apply(this, args); };
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (...args) { const element = create.apply(this, args); ours.add(element); return element; };
  const set = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) { if (!ours.has(this)) seen.add("attribute:" + name); return set.call(this, name, value); };
  for (const name of ["MutationObserver", "ResizeObserver", "IntersectionObserver", "PerformanceObserver"]) {
    const Original = globalThis[name];
    if (typeof Original !== "function") continue;
    globalThis[name] = class extends Original { constructor(...args) { super(...args); seen.add("observer:" + name); } };
  }
  for (const name of ["setInterval", "requestIdleCallback"]) {
    const original = globalThis[name];
    if (typeof original !== "function") continue;
    globalThis[name] = function (...args) { seen.add("timer:" + name); return original.apply(this, args); };
  }
})();`;

let harness: ContentHarness;

describe("the content script in real Chromium, against the inventory", () => {
  beforeAll(async () => {
    harness = await startContentHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("uses no channel the inventory does not list while it records a demonstration, pauses, resumes and is read by the Coaching Agent", async () => {
    const config = captureConfig([harness.origin]);
    const capture = await harness.open("/signup.html", { config, prelude: PRELUDE });
    try {
      const canary = `zq8canary${randomUUID().slice(0, 8)}`;
      await capture.page.type("#full-name", canary);
      await capture.page.type("#email", `${canary}@example.com`);
      await capture.page.type("#notes", canary);
      await capture.page.select("#shipping", "exp");
      await capture.page.click("#terms");
      await capture.page.click("#counter");
      await capture.page.click("a.nav-link");
      await capture.page.keyboard.press("Enter");
      await capture.page.evaluate(() => (document.querySelector("#signup") as HTMLFormElement).requestSubmit());
      await capture.flush();
      await capture.setConfig({ ...config, state: "paused" });
      await capture.setConfig(config);
      const read = (await capture.valueOf("globalThis.__elnorHarness.coachingRead(null)")) as { controls: unknown[] } | null;
      expect(read?.controls.length).toBeGreaterThan(0);
      await capture.valueOf(`globalThis.__elnorHarness.coachingRead({ order: 0, name: "x", label: "About to: click" })`);
      await capture.flush();
      // The harness's own start (the content script itself starts at document_end, without it).
      const seen = ((await capture.valueOf("[...globalThis.__elnorChannels]")) as string[]).filter((id) => id !== "event:DOMContentLoaded");
      // The instruments saw the capture at work (the check below is not vacuous).
      expect(seen).toEqual(expect.arrayContaining(["event:click", "event:input", "observer:MutationObserver"]));
      const ids = inventoryIds();
      expect(seen.filter((id) => !ids.has(id))).toEqual([]);
      expect(seen.filter((id) => id.startsWith("dispatch:") || id.startsWith("attribute:"))).toEqual([]);
    } finally {
      await capture.close();
    }
  }, 60_000);
});
