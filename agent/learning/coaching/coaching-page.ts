import type { Page } from "puppeteer-core";
import { z } from "zod";
import { COACHING_SCRUB_REPLY, COACHING_SCRUB_REQUEST } from "../../../shared/observation/coaching-scrub";
import { AppError } from "../../errors/app-error";
import type { PageControl } from "./coaching-matcher";

/**
 * What the Coaching Agent reads of the page in the person's tab (issue #16): the controls a person
 * can click, by role and accessible name, and a few facts that show whether a step changed the page.
 * Read through the tab the extension lends (CDP over its socket). Never a field's value: fields are
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

/** What the reader hands back: nothing at all when no recorder of the page answered. */
type InPageRead = { ready: false; why: string } | { ready: true; controls: Array<{ role: string; name: string }>; facts: { address: string; title: string; headings: string[]; states: string[] } };

/**
 * Runs in the page: the visible controls, in reading order, with the role and name a screen reader
 * would give them (explicit role, else the element's own; name from aria-label, aria-labelledby, a
 * label, the text, or the title). Hidden controls (not rendered, or shown only on hover) are left out:
 * those are the ones a person shows the agent.
 *
 * Nothing read leaves raw (DESIGN §8, issue #16): every string goes through the content script's
 * privacy boundary first (shared/observation/coaching-scrub.ts), which cuts out every value typed in
 * the session, so a page echoing one ("canary ×", "Results for canary", `#/search/canary`) gives
 * `•••`. No answer (the page is not recorded, or not yet): fail closed, nothing read is returned.
 */
function readInPage(highlight: { order: number; name: string; label: string; tag: string } | null, bridge: { request: string; reply: string }): InPageRead {
  const clean = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim().slice(0, 200);
  const roleOf = (element: Element): string => {
    const explicit = element.getAttribute("role");
    if (explicit !== null && explicit.trim() !== "") return explicit.trim().split(/\s+/)[0]!.toLowerCase();
    const tag = element.localName;
    if (tag === "a" && element.hasAttribute("href")) return "link";
    if (tag === "button" || tag === "summary") return "button";
    if (tag === "select") return "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "input") {
      const type = (element.getAttribute("type") ?? "text").toLowerCase();
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      if (type === "checkbox") return "checkbox";
      if (type === "radio") return "radio";
      return "textbox";
    }
    return "";
  };
  const nameOf = (element: Element, role: string): string => {
    const label = element.getAttribute("aria-label");
    if (label !== null && clean(label) !== "") return clean(label);
    const labelledBy = element.getAttribute("aria-labelledby");
    if (labelledBy !== null) {
      const text = labelledBy.split(/\s+/).map((id) => clean(document.getElementById(id)?.textContent)).join(" ").trim();
      if (text !== "") return text;
    }
    if (element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement) {
      const labels = element.labels === null ? "" : [...element.labels].map((entry) => clean(entry.textContent)).join(" ").trim();
      if (labels !== "") return labels;
      // A button input's caption is its value; any other field's value is what was typed, never read.
      if (element instanceof HTMLInputElement && role === "button") return clean(element.value || element.getAttribute("alt"));
      return clean(element.getAttribute("title") ?? element.getAttribute("placeholder"));
    }
    const text = clean((element as HTMLElement).innerText ?? element.textContent);
    if (text !== "") return text;
    const image = element.querySelector("img[alt]");
    return clean(image?.getAttribute("alt") ?? element.getAttribute("title"));
  };
  const visible = (element: Element) => {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return false;
    return typeof element.checkVisibility === "function" ? element.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true;
  };
  // The highlight (issue #16): a frame around the proposed control and what the agent is about to
  // do, in a closed shadow root under <html> that takes no clicks, as the in-page bar of in-tab runs.
  const drawHighlight = (element: Element, label: string, tag: string) => {
    document.querySelectorAll(tag).forEach((node) => node.remove());
    const box = element.getBoundingClientRect();
    const host = document.createElement(tag);
    const place = `all: initial !important; position: absolute !important; pointer-events: none !important; z-index: 2147483646 !important; display: block !important; left: ${Math.round(box.left + scrollX - 4)}px !important; top: ${Math.round(box.top + scrollY - 4)}px !important; width: ${Math.round(box.width + 8)}px !important; height: ${Math.round(box.height + 8)}px !important;`;
    host.setAttribute("style", place);
    const shadow = host.attachShadow({ mode: "closed" });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(`:host { all: initial; } @media print { :host { display: none !important; } }
.frame { position: absolute; inset: 0; border: 3px solid #1a73e8; border-radius: 6px; box-shadow: 0 0 0 4px rgb(26 115 232 / 0.25); }
.label { position: absolute; left: 0; top: calc(100% + 4px); white-space: nowrap; max-width: 360px; overflow: hidden; text-overflow: ellipsis;
  background: #0b3d91; color: #fff; font: 500 12px/1.3 system-ui, sans-serif; padding: 3px 8px; border-radius: 4px; box-shadow: 0 1px 4px rgb(0 0 0 / 0.3); }`);
    shadow.adoptedStyleSheets = [sheet];
    const frame = document.createElement("div");
    frame.className = "frame";
    const text = document.createElement("div");
    text.className = "label";
    text.textContent = label;
    shadow.append(frame, text);
    document.documentElement.append(host);
  };
  const selector = "a[href], button, summary, select, input, textarea, [role], h1, h2, h3";
  const elements: Element[] = [];
  const controls: Array<{ role: string; name: string }> = [];
  const headings: string[] = [];
  const states: string[] = [];
  for (const element of document.querySelectorAll(selector)) {
    if (!visible(element)) continue;
    if (/^h[1-3]$/.test(element.localName)) {
      headings.push(clean(element.textContent));
      continue;
    }
    const role = roleOf(element);
    if (role === "" || role === "presentation" || role === "none") continue;
    // A text field is named by its label only; a contenteditable's own text is what was typed.
    const name = role === "textbox" && !(element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) ? clean(element.getAttribute("aria-label")) : nameOf(element, role);
    elements.push(element);
    controls.push({ role, name });
    for (const attribute of ["aria-pressed", "aria-expanded", "aria-selected", "aria-current"]) {
      const value = element.getAttribute(attribute);
      if (value !== null) states.push(`${role}:${name}:${attribute}=${value}`);
    }
    if (element instanceof HTMLInputElement && (element.type === "checkbox" || element.type === "radio")) states.push(`${role}:${name}:checked=${element.checked}`);
  }
  // Through the content script's privacy boundary, synchronously (events cross worlds; strings do too).
  const texts = [...controls.map((control) => control.name), ...headings, clean(document.title), ...states];
  let answer: unknown = undefined;
  const onReply = (event: Event) => {
    answer = (event as CustomEvent<unknown>).detail;
  };
  document.addEventListener(bridge.reply, onReply);
  try {
    document.dispatchEvent(new CustomEvent(bridge.request, { detail: JSON.stringify({ texts, urls: [location.origin + location.pathname + location.hash] }) }));
  } finally {
    document.removeEventListener(bridge.reply, onReply);
  }
  if (typeof answer !== "string") return { ready: false, why: "no recorder answered" };
  let scrubbed: { texts?: unknown; urls?: unknown };
  try {
    scrubbed = JSON.parse(answer) as { texts?: unknown; urls?: unknown };
  } catch {
    return { ready: false, why: "the recorder's answer was not readable" };
  }
  const safeTexts = scrubbed.texts;
  const safeUrls = scrubbed.urls;
  if (!Array.isArray(safeTexts) || !Array.isArray(safeUrls) || safeTexts.length !== texts.length || safeUrls.length !== 1 || ![...safeTexts, ...safeUrls].every((item) => typeof item === "string")) {
    return { ready: false, why: "the recorder's answer did not fit the request" };
  }
  const names = safeTexts.slice(0, controls.length) as string[];
  const safeControls = controls.map((control, index) => ({ role: control.role, name: names[index]! }));
  // The highlight matches the agent's (scrubbed) name at that place in the reading order.
  if (highlight !== null && safeControls[highlight.order]?.name === highlight.name) drawHighlight(elements[highlight.order]!, highlight.label, highlight.tag);
  let at = controls.length;
  const safeHeadings = safeTexts.slice(at, (at += headings.length)) as string[];
  const title = safeTexts[at++] as string;
  return { ready: true, controls: safeControls, facts: { address: safeUrls[0] as string, title, headings: safeHeadings, states: safeTexts.slice(at) as string[] } };
}

/** The tag of the highlight's host element. */
export const HIGHLIGHT_TAG = "elnor-coaching-highlight";

const ReadSchema = z.object({
  controls: z.array(z.object({ role: z.string(), name: z.string() })),
  facts: z.object({ address: z.string(), title: z.string(), headings: z.array(z.string()), states: z.array(z.string()) }),
});
const READ_RETRY_MS = 250;

/**
 * Reads the page; with `highlight`, also frames the control at that place in the reading order.
 * Only what the content script's privacy boundary let through: while no recorder of the page
 * answers (a page just opened, before its recording config arrived) it reads again for up to
 * `waitMs`, then fails with ADAPTER_UNAVAILABLE, having returned nothing it read.
 */
export async function readPage(page: Page, highlight?: { order: number; name: string; label: string }, options: { waitMs?: number } = {}): Promise<{ controls: PageControl[]; facts: PageFacts }> {
  const argument = highlight === undefined ? null : { ...highlight, tag: HIGHLIGHT_TAG };
  const bridge = { request: COACHING_SCRUB_REQUEST, reply: COACHING_SCRUB_REPLY };
  // As source text, with a stand-in for the `__name` helper tsx wraps named inner functions in
  // (the agent runs under tsx; the page has no such helper).
  const source = `((__name) => (${readInPage.toString()})(${JSON.stringify(argument)}, ${JSON.stringify(bridge)}))((target) => target)`;
  const until = Date.now() + (options.waitMs ?? 10_000);
  for (;;) {
    const answer = (await page.evaluate(source)) as InPageRead;
    if (answer.ready) {
      const read = ReadSchema.parse(answer);
      return {
        controls: read.controls.map((control, order) => ({ ...control, order })),
        facts: { ...read.facts, controls: read.controls.map((control) => `${control.role}:${control.name}`) },
      };
    }
    if (Date.now() >= until) throw new AppError("ADAPTER_UNAVAILABLE", `The page's recorder is not ready (${answer.why}): the assistant reads a page only through it, so nothing was read.`);
    await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS));
  }
}

/** How the page changed between two reads, in words; `changed` false when nothing a step shows did. */
export function pageChange(before: PageFacts, after: PageFacts, expectNewPage: boolean): { changed: boolean; evidence: string } {
  const said: string[] = [];
  const newHeadings = after.headings.filter((heading) => heading !== "" && !before.headings.includes(heading));
  if (after.address !== before.address) said.push("the page's address changed");
  if (newHeadings.length > 0) said.push(`the heading${newHeadings.length > 1 ? "s" : ""} ${newHeadings.slice(0, 2).map((heading) => `"${heading.slice(0, 60)}"`).join(", ")} appeared`);
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
  await page.evaluate((tag: string) => document.querySelectorAll(tag).forEach((node) => node.remove()), HIGHLIGHT_TAG);
}
