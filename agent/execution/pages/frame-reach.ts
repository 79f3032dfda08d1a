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

/** How long the parent is asked whether it can see into a child frame. */
const OWNER_ASK_MS = 1_000;

/**
 * Undefined when the frame may be driven; otherwise the origin it is from (another than the page's),
 * as far as it is known. The frame's own address says so when it is known; when it is not (a frame
 * of another site runs in its own process, which a lent tab's session does not follow, so puppeteer
 * knows it only as a blank frame), its parent does: it cannot see into a frame of another origin.
 */
export async function otherOriginOf(page: Page, frame: Frame): Promise<string | undefined> {
  if (frame === page.mainFrame()) return undefined;
  const parent = frame.parentFrame();
  if (parent !== null && parent !== page.mainFrame()) {
    const above = await otherOriginOf(page, parent);
    if (above !== undefined) return above;
  }
  const own = frameOrigin(page.mainFrame());
  const its = frameOrigin(frame);
  if (its !== undefined && its !== own) return its;
  const hidden = await hiddenFrameAddress(frame);
  if (hidden === undefined) return undefined;
  return originOfAddress(hidden) ?? "another site";
}

/** The frame element's `src` when its parent cannot see into it (another origin); undefined when it can. */
async function hiddenFrameAddress(frame: Frame): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), OWNER_ASK_MS);
  });
  try {
    const element = await Promise.race([frame.frameElement().catch(() => null), late]);
    if (element === null) return undefined;
    try {
      const hidden = await Promise.race([element.evaluate((owner) => (owner.contentDocument === null ? owner.src || "" : null)).catch(() => null), late]);
      return hidden === null ? undefined : hidden;
    } finally {
      await element.dispose().catch(() => undefined);
    }
  } finally {
    clearTimeout(timer);
  }
}

function originOfAddress(address: string): string | undefined {
  try {
    const origin = new URL(address).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The frames an execution may read, in the page's order, and the origins of those it left alone. */
export async function reachableFrames(page: Page): Promise<{ frames: Frame[]; skipped: string[] }> {
  const frames: Frame[] = [];
  const skipped = new Set<string>();
  for (const frame of page.frames()) {
    const other = await otherOriginOf(page, frame).catch(() => "an unknown origin");
    if (other === undefined) frames.push(frame);
    else skipped.add(other);
  }
  return { frames, skipped: [...skipped] };
}

/**
 * Runs in a frame, as source text: the origins of its child frames it cannot see into (another
 * origin), by index in `window.frames` (the Recorder's frame path counts the same children), or
 * null for one it can. The address is the frame element's `src`, the only part the page may read.
 */
const BLOCKED_CHILDREN_SCRIPT = `(() => {
  const owners = [...document.querySelectorAll("iframe, frame")];
  const out = [];
  for (let index = 0; index < window.frames.length && index < 100; index += 1) {
    const child = window.frames[index];
    let blocked = false;
    try { void child.document.documentElement; } catch { blocked = true; }
    if (!blocked) { out.push(null); continue; }
    const owner = owners.find((element) => element.contentWindow === child);
    out.push(owner ? owner.src || "" : "");
  }
  return out;
})()`;

async function blockedChildren(frame: Frame): Promise<Array<string | null>> {
  const read = (await frame.evaluate(BLOCKED_CHILDREN_SCRIPT).catch(() => [])) as unknown;
  return Array.isArray(read) ? read.map((entry) => (typeof entry === "string" ? (originOfAddress(entry) ?? "another site") : null)) : [];
}

/**
 * The origin of the `index`-th child frame of `frame` when the page cannot see into it. A lent tab
 * does not follow a frame of another site into its process, so puppeteer may not know that frame at
 * all; the page still does, and says it is not its own.
 */
export async function hiddenChildOrigin(frame: Frame, index: number): Promise<string | undefined> {
  return (await blockedChildren(frame))[index] ?? undefined;
}

/** Every origin of a frame in the page that an execution does not read, whether puppeteer knows the frame or only the page does. */
export async function framesOfOtherSites(page: Page): Promise<string[]> {
  const { frames, skipped } = await reachableFrames(page);
  const origins = new Set(skipped);
  for (const frame of frames) for (const origin of await blockedChildren(frame)) if (origin !== null) origins.add(origin);
  return [...origins];
}

/** The reason a step gives for not acting inside a frame of another origin. */
export function crossOriginFrameReason(page: Page, other: string): string {
  return `the step's element is inside a frame from ${other}, another origin than the page's (${frameOrigin(page.mainFrame()) ?? "unknown"}): a run never drives a frame of another site`;
}
