import { fileURLToPath } from "node:url";
import { build, type Rollup } from "vite";
import { z } from "zod";
import { projectRoot } from "../../agent/test-support/agent-process";
import { captureConfig } from "../../e2e/test-support/content-harness";
import { assertNever } from "../../shared/common/assert-never";

// The recorders the content-script and heavy-page benches compare, as the scripts put in a page.

export const OUR_TIMERS = { snapshotDelayMs: 20, batchDelayMs: 20 };
/** The isolated world our capture runs in, and the global `bundleCaptureRuntime()` defines. */
export const CAPTURE_WORLD = "elnor-capture";
export const CAPTURE_GLOBAL = "ElnorContentCapture";

export type Recorder = "none" | "ours" | "rrweb" | "sources" | "floor";

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
export const SinkTallySchema = z.object({ messages: z.number(), items: z.number(), chars: z.number() });
export type SinkTally = z.infer<typeof SinkTallySchema>;

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

export function recorderScript(
  recorder: Exclude<Recorder, "none">,
  bundles: Bundles,
  origin: string,
  timers: { snapshotDelayMs: number; batchDelayMs: number } = OUR_TIMERS,
): string {
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
    snapshotDelayMs: ${timers.snapshotDelayMs},
    batchDelayMs: ${timers.batchDelayMs},
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
