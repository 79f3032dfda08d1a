import type { Page } from "puppeteer-core";
import { COACHING_HIGHLIGHT_TAG, CoachingReadSchema, type CoachingHighlight } from "../../../shared/observation/coaching-read";
import type { BrowserLease } from "../../execution/contract/executor-contract";
import { AppError } from "../../errors/app-error";
import type { PageControl } from "./coaching-matcher";

/**
 * What the Coaching Agent reads of the page in the person's tab (issue #16): the controls a person
 * can click, by role and accessible name, and a few facts that show whether a step changed the page.
 * Read by the recorder of the tab the extension lends (never by the agent in the page). Never a field's value: fields are
 * named by their label only, and the facts hold the address without its query, the title and headings.
 */

/** What shows that a step did something: compared before and after the agent's action. */
export interface PageFacts {
  /** Origin, path and hash, without the query (which may carry what was typed). */
  address: string;
  title: string;
  headings: string[];
  /** Visible controls as `role:name`, in page order. */
  controls: string[];
  /** Controls with a state (`aria-pressed`, `aria-expanded`, `aria-selected`, checked). */
  states: string[];
}

/**
 * Reads the page; with `highlight`, also frames the control at that place in the reading order.
 * The reading is done by the tab's recorder (the content script), which cuts every value typed on
 * the site out of what it hands back over the extension's own messaging (issue #30,
 * shared/observation/coaching-read.ts); the page is never asked. While no recorder of the page
 * answers (a page just opened, before its recording config arrived) it asks again for up to
 * `waitMs`, then fails with ADAPTER_UNAVAILABLE, having read nothing.
 */
export async function readPage(
  lease: Pick<BrowserLease, "readRecorded">,
  highlight?: CoachingHighlight,
  options: { waitMs?: number } = {},
): Promise<{ controls: PageControl[]; facts: PageFacts }> {
  if (lease.readRecorded === undefined) throw new AppError("ADAPTER_UNAVAILABLE", "This tab has no recorder to read it through, so nothing was read.");
  const until = Date.now() + (options.waitMs ?? 10_000);
  for (;;) {
    const answer = await lease.readRecorded(highlight ?? null);
    if (answer.read !== null) {
      const read = CoachingReadSchema.parse(answer.read);
      return {
        controls: read.controls.map((control, order) => ({ ...control, order })),
        facts: { ...read.facts, controls: read.controls.map((control) => `${control.role}:${control.name}`) },
      };
    }
    if (Date.now() >= until)
      throw new AppError(
        "ADAPTER_UNAVAILABLE",
        `The page's recorder is not ready (${answer.why ?? "no recorder answered"}): the assistant reads a page only through it, so nothing was read.`,
      );
    await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS));
  }
}

const READ_RETRY_MS = 250;

/** How the page changed between two reads, in words; `changed` false when nothing a step shows did. */
export function pageChange(before: PageFacts, after: PageFacts, expectNewPage: boolean): { changed: boolean; evidence: string } {
  const said: string[] = [];
  const newHeadings = after.headings.filter((heading) => heading !== "" && !before.headings.includes(heading));
  if (after.address !== before.address) said.push("the page's address changed");
  if (newHeadings.length > 0)
    said.push(
      `the heading${newHeadings.length > 1 ? "s" : ""} ${newHeadings
        .slice(0, 2)
        .map((heading) => `"${heading.slice(0, 60)}"`)
        .join(", ")} appeared`,
    );
  if (after.title !== before.title) said.push("the page's title changed");
  const pageMoved = said.length > 0;
  const appeared = after.controls.filter((control) => !before.controls.includes(control)).length;
  const gone = before.controls.filter((control) => !after.controls.includes(control)).length;
  if (appeared + gone > 0) said.push(`${appeared} control${appeared === 1 ? "" : "s"} appeared and ${gone} went`);
  const stateChanges = after.states.filter((state) => !before.states.includes(state)).length;
  if (stateChanges > 0) said.push(`${stateChanges} control state${stateChanges === 1 ? "" : "s"} changed`);
  // A link or tab is expected to bring another page or view; any other control, any visible change.
  const changed = expectNewPage ? pageMoved : said.length > 0;
  if (said.length === 0) return { changed: false, evidence: "nothing in the page changed" };
  return { changed, evidence: (changed ? said : [...said, "but no new page or view appeared"]).join("; ").slice(0, 400) };
}

/** Takes the highlight off the page. */
export async function clearHighlight(page: Page): Promise<void> {
  await page.evaluate((tag: string) => document.querySelectorAll(tag).forEach((node) => node.remove()), COACHING_HIGHLIGHT_TAG);
}
