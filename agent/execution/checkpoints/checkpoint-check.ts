import type { Page } from "puppeteer-core";
import { needsBaseline, parseSuccessCondition, type SuccessCheck } from "../../../shared/learning/checkpoints/success-conditions";
import { lookOnce, type CheckpointVerdict } from "./checkpoint-looks";
import { framesOfOtherSites } from "../pages/frame-reach";
import { readPageFacts, type PageFacts } from "../pages/page-facts";
import { waitForSettledPage } from "../pages/page-settle";

export type { SuccessCheck } from "../../../shared/learning/checkpoints/success-conditions";
export { parseSuccessCondition } from "../../../shared/learning/checkpoints/success-conditions";

export const BY_HAND_REASON = "not machine-checkable; confirm by hand";

export interface CheckOptions {
  /** How long the page may take to reach the state (a status set after a fetch, a dialog animating open). */
  timeoutMs: number;
  /** Polling interval; 150 ms by default. */
  intervalMs?: number;
  /** Stops waiting early, for instance when the rehearsal found a policy breach. */
  shouldStop?: () => boolean;
  /** The test values, by parameter name: what a row showing `{{parameter}}` shows in this run. */
  values?: Readonly<Record<string, string>>;
  /** The page as it was before the checkpoint's steps (`readBaseline`), for a count that changes. */
  baseline?: PageFacts | undefined;
}

/** The most a rehearsal waits for a page to settle before reading what a count compares against. */
export const BASELINE_SETTLE_MAX_MS = 5_000;

/**
 * Reads what a relative check compares against, before the checkpoint's steps run; undefined when
 * the check needs none. Read from a settled page (page-settle.ts): a list still loading or
 * re-rendering would give a count that is neither the one before nor the one after.
 */
export async function readBaseline(page: Page, condition: string, settleMaxMs = BASELINE_SETTLE_MAX_MS): Promise<PageFacts | undefined> {
  if (!needsBaseline(parseSuccessCondition(condition))) return undefined;
  await waitForSettledPage(page, { maxMs: settleMaxMs }).catch(() => false);
  return readPageFacts(page).catch(() => undefined);
}

/** A count that changes is only told on a settled page: half-way through a re-render it can match by chance. */
function needsSettledEvidence(check: SuccessCheck): boolean {
  return check.kind === "list_count" || check.kind === "counter";
}

/**
 * §0C.14 rehearsal: checks a checkpoint's success condition against the live page, waiting up to
 * `timeoutMs` for it to hold. Free-text conditions are skipped: only a person can confirm them.
 */
export async function checkSuccessCondition(page: Page, condition: string, options: CheckOptions): Promise<CheckpointVerdict> {
  const check = parseSuccessCondition(condition);
  if (check.kind === "by_hand") return { result: "skipped", details: `${BY_HAND_REASON}: "${check.text}"` };
  const deadline = Date.now() + options.timeoutMs;
  const interval = options.intervalMs ?? 150;
  let last: CheckpointVerdict = { result: "failed", details: "the page could not be read" };
  for (;;) {
    try {
      last = await lookOnce(page, check, options.values ?? {}, options.baseline);
      if (last.result === "passed" && needsSettledEvidence(check)) {
        // Confirmed once the page has settled (within the time left): a list re-rendered item by item passes through other counts.
        const settled = await waitForSettledPage(page, { maxMs: Math.max(0, deadline - Date.now()) }).catch(() => false);
        last = await lookOnce(page, check, options.values ?? {}, options.baseline);
        if (last.result === "passed") return last;
        if (!settled) last = { ...last, details: `${last.details} (the page was still changing when the time was up)` };
      } else if (last.result === "passed") {
        return last;
      }
    } catch (error) {
      // The page may be between documents (execution context destroyed): look again.
      last = { result: "failed", details: `the page could not be read: ${firstLine(error)}` };
    }
    if (Date.now() + interval > deadline || options.shouldStop?.() === true) return withFramesNotRead(page, last);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** A checkpoint that did not hold says which frames it did not look in: their evidence is not a run's to take. */
async function withFramesNotRead(page: Page, verdict: CheckpointVerdict): Promise<CheckpointVerdict> {
  if (verdict.result !== "failed") return verdict;
  const skipped = await framesOfOtherSites(page).catch(() => []);
  if (skipped.length === 0) return verdict;
  return {
    ...verdict,
    details: `${verdict.details}; not looked at: ${skipped.length === 1 ? "a frame" : `${skipped.length} frames`} from ${skipped.slice(0, 3).join(", ")} (a run never reads or drives a frame of another site)`,
  };
}

export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split("\n")[0] ?? "").slice(0, 300);
}
