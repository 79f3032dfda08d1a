import { z } from "zod";

// Reading a Chromium trace of one content-script bench run: script CPU time per step window.

export const MARK_PREFIX = "elnor-bench-step-";
export const END_MARK = "elnor-bench-end";

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
      args: z.object({ data: z.object({ url: z.string().optional(), timedOut: z.boolean().optional() }).optional() }).optional(),
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
export function stepScriptTimes(trace: Uint8Array, stepCount: number): { stepScriptMs: number[]; stepCriticalMs: number[]; stepListenerMs: number[] } {
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
  const critical = new Array<number>(stepCount).fill(0);
  const listeners = new Array<number>(stepCount).fill(0);
  let coveredUntil = -Infinity;
  let step = 0;
  for (const event of scripts) {
    if (event.ts < coveredUntil) continue; // nested in an event already counted (or left out)
    coveredUntil = event.ts + (event.dur ?? 0);
    if (event.ts < starts[0]! || event.ts > end.ts || event.args?.data?.url?.startsWith("pptr:") === true) continue;
    while (step + 1 < stepCount && event.ts >= starts[step + 1]!) step += 1;
    cpu[step]! += (event.tdur ?? event.dur ?? 0) / 1000;
    // An idle callback run because its timeout passed (the page was never idle) is an ordinary task: on the critical path.
    if (event.name !== "FireIdleCallback" || event.args?.data?.timedOut !== false) critical[step]! += (event.tdur ?? event.dur ?? 0) / 1000;
    // An outermost FunctionCall is a call from event dispatch (timers, microtasks, idle callbacks and observers have their own roots).
    if (event.name === "FunctionCall") listeners[step]! += (event.tdur ?? event.dur ?? 0) / 1000;
  }
  return { stepScriptMs: cpu, stepCriticalMs: critical, stepListenerMs: listeners };
}
