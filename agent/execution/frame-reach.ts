import type { Frame, Page } from "puppeteer-core";

/**
 * Which frames of a page an execution may act in or read (issue #30 "Lent tabs and iframes"):
 * the page's own document and frames of the same origin. A frame from another origin (an embedded
 * payment form, a partner's widget, an ad) belongs to someone else: a step never finds, clicks or
 * types there, and a checkpoint never takes evidence from it. A step whose target is inside one fails
 * with TEST_POLICY_VIOLATION instead of acting; a checkpoint says it did not look there.
 */

/** A frame's origin; `about:blank` and `about:srcdoc` frames have their parent's (they inherit it). */
export function frameOrigin(frame: Frame): string | undefined {
  for (let current: Frame | null = frame; current !== null; current = current.parentFrame()) {
    const url = current.url();
    if (url === "" || url.startsWith("about:")) continue;
    try {
      const origin = new URL(url).origin;
      return origin === "null" ? undefined : origin;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Undefined when the frame may be driven; otherwise the origin it is from (another than the page's). */
export function otherOriginOf(page: Page, frame: Frame): string | undefined {
  if (frame === page.mainFrame()) return undefined;
  const own = frameOrigin(page.mainFrame());
  const its = frameOrigin(frame);
  if (its === own) return undefined;
  return its ?? "an unknown origin";
}

/** The frames an execution may read, in the page's order, and the origins of those it left alone. */
export function reachableFrames(page: Page): { frames: Frame[]; skipped: string[] } {
  const frames: Frame[] = [];
  const skipped = new Set<string>();
  for (const frame of page.frames()) {
    const other = otherOriginOf(page, frame);
    if (other === undefined) frames.push(frame);
    else skipped.add(other);
  }
  return { frames, skipped: [...skipped] };
}

/** The reason a step gives for not acting inside a frame of another origin. */
export function crossOriginFrameReason(page: Page, other: string): string {
  return `the step's element is inside a frame from ${other}, another origin than the page's (${frameOrigin(page.mainFrame()) ?? "unknown"}): a run never drives a frame of another site`;
}
