import { mkdir, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { bundleCaptureRuntime, startContentHarness } from "../../e2e/test-support/content-harness";
import type { BenchResult } from "../bench-result";
import { fixturePage, serve } from "./content-page";
import { bundleRrwebRecord, type Bundles, type Recorder } from "./content-recorders";
import { runSequence, type RunResult } from "./content-run";
import { scriptedSteps } from "./content-steps";
import { summarise } from "./content-summary";

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
/** `ELNOR_BENCH_FLOOR=1` adds the "floor" recorder (a minimal event record per action; see `MINIMAL_RECORD`). */
const RECORDERS: readonly Recorder[] = process.env.ELNOR_BENCH_FLOOR ? ["none", "ours", "rrweb", "sources", "floor"] : ["none", "ours", "rrweb", "sources"];

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
