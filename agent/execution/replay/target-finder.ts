import type { ElementHandle, Frame, Page } from "puppeteer-core";
import type { RelocationHint } from "../../../shared/execution/recorder-flow";
import { describeTarget } from "./flow-plan";
import { POLL_MS, StepFailure, showSelector, sleep } from "../contract/execution-util";
import type { PolicyWatch } from "../contract/policy-guard";
import { crossOriginFrameReason, hiddenChildOrigin, otherOriginOf } from "../pages/frame-reach";
import { relocateBySimilarity, revealByHover, rowShows, wantedRowText } from "./target-relocation";

/** Finding a step's element: ordered selector alternatives, the first that finds a visible element wins; then similarity. */

export interface FindContext {
  watch: PolicyWatch;
  /** When this step's wait for its element ends. */
  deadline: number;
  stepTimeoutMs: number;
  /** Set once the execution is over or abandoned: stops polling. */
  signal: AbortSignal;
  values: Readonly<Record<string, string>>;
}

export interface ResolvedTarget {
  handle: ElementHandle<Element>;
  /** Undefined when the target was relocated by similarity (no selector found it). */
  resolved: { index: number; selector: string[] } | undefined;
  how: string;
  /** A target found by similarity: what the flow recorded, and what was used instead. */
  relocated?: { from: string; to: string };
}

export interface TargetStep {
  selectors: string[][];
  frame?: number[];
  hint?: RelocationHint;
}

/**
 * Tries the step's alternatives in order, all within the one step deadline, so a stale first
 * alternative costs a poll, not a timeout. Says which one resolved: that is what tells a person the
 * flow is drifting from the page.
 */
export async function resolveTarget(page: Page, step: TargetStep, context: FindContext, visible: boolean): Promise<ResolvedTarget> {
  const alternatives = step.selectors;
  if (alternatives.length === 0) throw new StepFailure("the step has no selector to find its element with");
  let hiddenMatch: number | undefined;
  let otherRow: number | undefined;
  const wantedRow = wantedRowText(step.hint, context.values);
  for (;;) {
    if (context.watch.violation !== undefined) throw new StepFailure(context.watch.violation);
    const frame = frameAt(page, step.frame ?? []);
    if (frame !== undefined) await refuseOtherOrigin(page, frame, context);
    else await refuseHiddenFrame(page, step.frame ?? [], context);
    if (frame !== undefined) {
      for (const [index, parts] of alternatives.entries()) {
        const handle = await queryAlternative(frame, parts).catch(() => null);
        if (handle === null) continue;
        if (wantedRow !== undefined && !(await rowShows(handle, wantedRow).catch(() => true))) {
          // A selector by position in a list drawn anew or sorted: another row's control.
          otherRow ??= index;
          await handle.dispose().catch(() => undefined);
          continue;
        }
        let revealed = "";
        if (visible && !(await handle.isVisible().catch(() => false))) {
          // Shown only while the pointer is over its row (issue #14): hover there, as a person would.
          if (await revealByHover(handle)) {
            revealed = " (shown by hovering over its row)";
          } else {
            hiddenMatch ??= index;
            await handle.dispose().catch(() => undefined);
            continue;
          }
        }
        const skipped = alternatives.slice(0, index).map((earlier, earlierIndex) => `${earlierIndex + 1} ${showSelector(earlier)}`);
        const how = `resolved by selector alternative ${index + 1} of ${alternatives.length}: ${showSelector(parts)}${skipped.length > 0 ? ` (no match for ${skipped.join(", ")})` : ""}${revealed}`;
        return { handle, resolved: { index, selector: [...parts] }, how };
      }
    }
    if (Date.now() + POLL_MS > context.deadline || context.signal.aborted) break;
    await sleep(POLL_MS);
  }
  // Issue #14: every selector missed; the most similar element, if one clearly is (target-relocation.ts).
  const frame = frameAt(page, step.frame ?? []);
  if (frame !== undefined) await refuseOtherOrigin(page, frame, context);
  const relocated =
    frame === undefined || context.watch.violation !== undefined || context.signal.aborted
      ? undefined
      : await relocateBySimilarity(frame, alternatives, step.hint, context.values).catch(() => undefined);
  if (relocated !== undefined) {
    if (!visible || (await relocated.handle.isVisible().catch(() => false)) || (await revealByHover(relocated.handle))) {
      const how = `relocated by similarity (${relocated.matched.join(", ")}; score ${relocated.score}) after none of the ${alternatives.length} selector alternatives matched, first ${showSelector(alternatives[0] ?? [])}`;
      const to = await describeElement(relocated.handle).catch(() => "an element found by similarity");
      return { handle: relocated.handle, resolved: undefined, how, relocated: { from: describeTarget(alternatives), to } };
    }
    await relocated.handle.dispose().catch(() => undefined);
  }
  const frameNote = frame === undefined ? ` (frame ${JSON.stringify(step.frame)} not found)` : "";
  const hidden = hiddenMatch !== undefined ? `; alternative ${hiddenMatch + 1} matched an element that is not visible` : "";
  const wrongRow = otherRow !== undefined ? `; alternative ${otherRow + 1} matched a control in another row than the one the step acts on` : "";
  const tried = alternatives.map((parts, index) => `${index + 1} ${showSelector(parts)}`).join(", ");
  throw new StepFailure(
    `none of the ${alternatives.length} selector alternatives found the element within ${Math.round(context.stepTimeoutMs / 1000)} s${frameNote}: ${tried}${hidden}${wrongRow}`,
  );
}

/** An element as a person names it: `"Save draft" (button)`, the way `describeTarget` names a recorded one. */
export async function describeElement(handle: ElementHandle<Element>): Promise<string> {
  // Inline, unnamed callbacks only: tsx would wrap a named inner function in a `__name` helper the page lacks.
  const { name, role } = await handle.evaluate((element) => {
    const tag = element.tagName.toLowerCase();
    const implicit: Record<string, string> = {
      a: "link",
      button: "button",
      select: "combobox",
      textarea: "textbox",
      input: "textbox",
      h1: "heading",
      h2: "heading",
      h3: "heading",
    };
    const type = element instanceof HTMLInputElement ? element.type : "";
    const role =
      element.getAttribute("role") ??
      (type === "checkbox" || type === "radio" ? type : type === "submit" || type === "button" ? "button" : (implicit[tag] ?? tag));
    const labelled = element.getAttribute("aria-labelledby");
    const byId =
      labelled === null
        ? ""
        : labelled
            .split(/\s+/)
            .map((id) => document.getElementById(id)?.textContent ?? "")
            .join(" ");
    const label =
      element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement
        ? [...(element.labels ?? [])].map((node) => node.textContent ?? "").join(" ")
        : "";
    const text = element instanceof HTMLElement ? element.innerText : (element.textContent ?? "");
    const name = [
      element.getAttribute("aria-label"),
      byId,
      label,
      text,
      element.getAttribute("title"),
      element.getAttribute("placeholder"),
      element instanceof HTMLInputElement && (type === "submit" || type === "button") ? element.value : "",
    ]
      .map((candidate) => (candidate ?? "").replace(/\s+/g, " ").trim())
      .find((candidate) => candidate !== "");
    return { name: (name ?? "").slice(0, 120), role };
  });
  return name === "" ? `a ${role} without a name` : `"${name}" (${role})`;
}

/**
 * A frame of another origin is never driven (issue #30): nothing is looked up in it, and the step
 * fails with the policy's code instead of acting.
 */
async function refuseOtherOrigin(page: Page, frame: Frame, context: FindContext): Promise<void> {
  const other = await otherOriginOf(page, frame);
  if (other === undefined) return;
  context.watch.breach(crossOriginFrameReason(page, other));
  throw new StepFailure(context.watch.violation as string);
}

async function refuseHiddenFrame(page: Page, framePath: readonly number[], context: FindContext): Promise<void> {
  const other = await hiddenFrameOnPath(page, framePath).catch(() => undefined);
  if (other === undefined) return;
  context.watch.breach(crossOriginFrameReason(page, other));
  throw new StepFailure(context.watch.violation as string);
}

/** The Recorder's `frame`: child-frame indexes from the top document down. */
function frameAt(page: Page, framePath: readonly number[]): Frame | undefined {
  let frame: Frame | undefined = page.mainFrame();
  for (const index of framePath) frame = frame?.childFrames()[index];
  return frame;
}

/** Where the frame path cannot be followed because the page shows a frame of another site there: its origin. */
async function hiddenFrameOnPath(page: Page, framePath: readonly number[]): Promise<string | undefined> {
  let frame: Frame = page.mainFrame();
  for (const index of framePath) {
    const next = frame.childFrames()[index];
    if (next === undefined) return hiddenChildOrigin(frame, index);
    frame = next;
  }
  return undefined;
}

/** One alternative; several parts pierce shadow roots in order (the Recorder's shape). */
async function queryAlternative(frame: Frame, parts: readonly string[]): Promise<ElementHandle<Element> | null> {
  let scope: Frame | ElementHandle<Node> = frame;
  const owned: Array<{ dispose(): Promise<void> }> = [];
  try {
    for (const [index, part] of parts.entries()) {
      const found: ElementHandle<Element> | null = await scope.$(toPuppeteerSelector(part));
      if (found === null) return null;
      if (index === parts.length - 1) return found;
      owned.push(found);
      const root = (await found.evaluateHandle((element) => element.shadowRoot ?? element)).asElement();
      if (root === null) return null;
      owned.push(root);
      scope = root;
    }
    return null;
  } finally {
    for (const handle of owned) await handle.dispose().catch(() => undefined);
  }
}

/**
 * Recorder selector syntax to Puppeteer's: `aria/Name[role="x"]` → `::-p-aria(…)`, `text/…` →
 * `::-p-text(…)`, `xpath/…` → `::-p-xpath(…)`, each argument quoted so names with parentheses or
 * quotes survive; `pierce/…` is still Puppeteer's own prefix; anything else is CSS.
 */
export function toPuppeteerSelector(part: string): string {
  const match = /^(aria|text|xpath|pierce)\/([\s\S]*)$/.exec(part);
  if (match === null) return part;
  const kind = match[1] as "aria" | "text" | "xpath" | "pierce";
  const argument = `"${(match[2] as string).replace(/["\\]/g, "\\$&")}"`;
  switch (kind) {
    case "aria":
      return `::-p-aria(${argument})`;
    case "text":
      return `::-p-text(${argument})`;
    case "xpath":
      return `::-p-xpath(${argument})`;
    case "pierce":
      return part;
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown selector kind ${String(unreachable)}`);
    }
  }
}
