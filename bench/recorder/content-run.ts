import type { Browser, CDPSession } from "puppeteer-core";
import { CAPTURE_WORLD, SinkTallySchema, recorderScript, type Bundles, type Recorder, type SinkTally } from "./content-recorders";
import { sleep } from "./content-page";
import { perform, type Step } from "./content-steps";
import { END_MARK, stepScriptTimes } from "./content-trace";

// One run of the content-script bench: a fresh tab, one recorder, every step, a trace.

export const SETTLE_AFTER_STEP_MS = 80;
export const SETTLE_BEFORE_START_MS = 800;
export const SETTLE_AT_END_MS = 1200;

export interface RunResult {
  /** Main-thread script CPU time per step window, ms. */
  stepScriptMs: number[];
  /**
   * The part of it not in idle callbacks (`requestIdleCallback`) run in idle time: what runs on the
   * path of the person's next action and the page's next frame. Such callbacks run only when the
   * main thread has nothing else to do (issue #32); one run because its timeout passed counts
   * here, as any task; the whole-session figure counts them all.
   */
  stepCriticalMs: number[];
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
