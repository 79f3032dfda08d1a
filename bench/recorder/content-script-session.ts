import { readFile, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import type { Browser, CDPSession } from "puppeteer-core";
import { bundleCaptureRuntime, captureConfig, startContentHarness } from "../../e2e/test-support/content-harness";
import { fixturePage, serve, sleep } from "./content-page";
import { CAPTURE_GLOBAL, CAPTURE_WORLD, OUR_TIMERS } from "./content-recorders";
import { SETTLE_BEFORE_START_MS } from "./content-run";
import { perform, scriptedSteps } from "./content-steps";

/**
 * Does a change to the capture send the same session? Records what our capture sends over the
 * content-script bench's page and 240 steps (bench/recorder/content-script.bench.ts) with two bundles in the
 * same Chromium — one saved earlier, one bundled from the sources now — and compares them byte for
 * byte after normalising what differs between any two runs: ids (a counter here), times, the
 * page's port, the clock time the page itself prints, and snapshot hashes (numbered by first
 * appearance, so which event points at which snapshot still counts).
 *
 *   node --import tsx bench/recorder/content-script-session.ts --save <bundle.js>    saves the bundle of the sources now
 *   node --import tsx bench/recorder/content-script-session.ts --against <bundle.js> compares it with the sources now
 *   node --import tsx bench/recorder/content-script-session.ts --control <bundle.js> compares it with itself (is the page deterministic here?)
 *
 * Exit code 1 when the sessions differ; the first difference is printed.
 */

/**
 * Longer than the bench's pause after each step: each step's debounced snapshot must be taken
 * before the next step, even on a loaded machine, or two runs of one bundle already differ.
 */
const SETTLE_AFTER_STEP_MS = 300;

interface Session {
  events: unknown[];
  snapshots: unknown[];
  typedValues: unknown[];
}

async function recordSession(browser: Browser, url: string, bundle: string): Promise<Session> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: 1280, height: 900 });
    const cdp: CDPSession = await page.createCDPSession();
    let contextId: number | undefined;
    cdp.on("Runtime.executionContextCreated", ({ context }) => {
      if (context.name === CAPTURE_WORLD) contextId = context.id;
    });
    await cdp.send("Runtime.enable");
    await cdp.send("Page.enable");
    const source = `${bundle}
;(() => {
  if (window.top !== window) return;
  const messages = [];
  globalThis.__sessionMessages = messages;
  let next = 0;
  const capture = ${CAPTURE_GLOBAL}.createContentCapture({
    snapshotDelayMs: ${OUR_TIMERS.snapshotDelayMs},
    batchDelayMs: ${OUR_TIMERS.batchDelayMs},
    newId: () => "id-" + String(++next).padStart(6, "0"),
    send(message) { messages.push(JSON.stringify(message)); },
  });
  globalThis.__sessionCapture = capture;
  const start = () => capture.setConfig(${JSON.stringify(captureConfig([new URL(url).origin]))});
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
})();`;
    await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source, worldName: CAPTURE_WORLD });
    await page.goto(url, { waitUntil: "load" });
    await sleep(SETTLE_BEFORE_START_MS);
    for (const [index, step] of scriptedSteps().entries()) {
      await perform(page, index, step);
      await sleep(SETTLE_AFTER_STEP_MS);
    }
    if (contextId === undefined) throw new Error("the capture's isolated world was not created");
    const result = await cdp.send("Runtime.evaluate", {
      expression: "globalThis.__sessionCapture.flush().then(() => JSON.stringify(globalThis.__sessionMessages))",
      contextId,
      awaitPromise: true,
    });
    const messages = (JSON.parse(String(result.result.value)) as string[]).map(
      (text) => JSON.parse(text) as { type: string; events?: unknown[]; snapshots?: unknown[]; values?: unknown[] },
    );
    // Batches depend on timing; what is in them, in order, does not.
    return {
      events: messages.flatMap((message) => message.events ?? []),
      snapshots: messages.flatMap((message) => message.snapshots ?? []),
      typedValues: messages.flatMap((message) => message.values ?? []),
    };
  } finally {
    await page.close();
  }
}

function normalise(session: Session, port: string): string[] {
  const hashes = new Map<string, string>();
  const text = JSON.stringify(session)
    .replaceAll(port, "PORT")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "TIME")
    .replace(/Order saved at [^."]*\./g, "Order saved at CLOCK.")
    .replace(/\b[0-9a-f]{64}\b/g, (hash) => {
      if (!hashes.has(hash)) hashes.set(hash, `HASH-${hashes.size + 1}`);
      return hashes.get(hash)!;
    });
  const normalised = JSON.parse(text) as Session;
  return [
    ...normalised.events.map((event) => `event ${JSON.stringify(event)}`),
    ...normalised.snapshots.map((snapshot) => `snapshot ${JSON.stringify(snapshot)}`),
    ...normalised.typedValues.map((value) => `typed ${JSON.stringify(value)}`),
  ];
}

const [mode, file] = process.argv.slice(2);
if ((mode !== "--save" && mode !== "--against" && mode !== "--control") || file === undefined) {
  console.error("usage: bench/recorder/content-script-session.ts --save <bundle.js> | --against <bundle.js> | --control <bundle.js>");
  process.exit(2);
}
const current = await bundleCaptureRuntime();
if (mode === "--save") {
  await writeFile(file, current);
  console.log(`saved the capture bundle of the sources now to ${file}`);
  process.exit(0);
}
const earlier = await readFile(file, "utf8");
const server = await serve(fixturePage());
const harness = await startContentHarness();
try {
  const port = String((server.address() as AddressInfo).port);
  const url = `http://127.0.0.1:${port}/`;
  const before = normalise(await recordSession(harness.browser, url, earlier), port);
  const after = normalise(await recordSession(harness.browser, url, mode === "--control" ? earlier : current), port);
  const count = (lines: string[], kind: string) => lines.filter((line) => line.startsWith(kind)).length;
  console.log(`earlier bundle: ${count(before, "event ")} events, ${count(before, "snapshot ")} snapshots, ${count(before, "typed ")} typed values`);
  console.log(
    `${mode === "--control" ? "earlier again: " : "sources now:   "} ${count(after, "event ")} events, ${count(after, "snapshot ")} snapshots, ${count(after, "typed ")} typed values`,
  );
  const first = before.findIndex((line, index) => line !== after[index]);
  if (first < 0 && before.length === after.length) {
    console.log("identical, byte for byte after normalising ids, times, the port, the page's clock and hash names");
  } else {
    const at = first < 0 ? Math.min(before.length, after.length) : first;
    const differing = before.filter((line, index) => line !== after[index]).length + Math.abs(before.length - after.length);
    console.log(
      `DIFFERENT: ${differing} of ${Math.max(before.length, after.length)} items; the first at item ${at}:\n  earlier: ${before[at] ?? "(none)"}\n  now:     ${after[at] ?? "(none)"}`,
    );
    process.exitCode = 1;
  }
} finally {
  await harness.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
