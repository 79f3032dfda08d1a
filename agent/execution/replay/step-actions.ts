import type { ElementHandle, HTTPRequest, KeyInput, Page } from "puppeteer-core";
import type { RunWhere } from "../../../shared/execution/run-contract";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import { maskUrl } from "../../../shared/observation/url-rule";
import type { RecorderStep } from "../../../shared/execution/recorder-flow";
import { firstLine } from "../checkpoints/checkpoint-check";
import { POLL_MS, StepFailure, sleep } from "../contract/execution-util";
import { hostAllowed, notAllowedMessage } from "../contract/policy-guard";
import { describeElement, resolveTarget, type FindContext } from "./target-finder";

/** Doing one Recorder step in the page: open, click, fill, press, wait. */

/**
 * A navigation a click starts shows up as a request by the time a task queued in the page after the
 * click has run (measured: 13–60 ms, the request always first); a little more is allowed after that,
 * and never longer than the old fixed wait.
 */
const NAVIGATION_GRACE_MS = 150;
const NAVIGATION_SETTLE_MS = 20;
const SETTLE_SCRIPT = "new Promise((resolve) => setTimeout(resolve, 0))";

export interface StepOutcome {
  details: string;
  resolved?: { index: number; selector: string[] } | undefined;
  relocated?: { from: string; to: string } | undefined;
}

export interface StepContext extends FindContext {
  policy: TestPolicy;
  where: RunWhere;
  /**
   * Before a click, with its element as a person names it: a click the plan did not ask about may
   * still have consequences (a target named only by CSS). Throws to leave the click undone; may
   * push `deadline` back by the time spent asking.
   */
  beforeClick?: (element: string, context: StepContext) => Promise<void>;
  /** Wording: a rehearsal speaks of test values. */
  purpose: "rehearsal" | "run";
}

export async function runStep(page: Page, step: RecorderStep, context: StepContext): Promise<StepOutcome> {
  switch (step.type) {
    case "setViewport":
      // The person's own tab keeps its size: emulating another would change the page they look at.
      if (context.where === "user_tab") return { details: `viewport left as the tab has it (recorded ${step.width}×${step.height})` };
      await page.setViewport({
        width: step.width,
        height: step.height,
        deviceScaleFactor: step.deviceScaleFactor,
        isMobile: step.isMobile,
        hasTouch: step.hasTouch,
        isLandscape: step.isLandscape,
      });
      return { details: `viewport ${step.width}×${step.height}` };
    case "navigate":
      return navigate(page, step.url, context);
    case "click": {
      const target = await resolveTarget(page, step, context, true);
      try {
        if (context.beforeClick !== undefined) await context.beforeClick(await describeElement(target.handle).catch(() => ""), context);
        await waitUntilEnabled(target.handle, context);
        notStopped(context);
        await whileWatchingNavigation(page, context, () => target.handle.click());
      } finally {
        await target.handle.dispose().catch(() => undefined);
      }
      return { details: `clicked; ${target.how}`, resolved: target.resolved, relocated: target.relocated };
    }
    case "change": {
      // The value first: with a test value missing nothing is looked up, nothing is typed.
      const value = fillPlaceholders(step.value, context.values, context.purpose);
      const target = await resolveTarget(page, step, context, true);
      try {
        notStopped(context);
        const how = await fill(page, target.handle, value.text, context.signal);
        return { details: `${how} ${value.described}; ${target.how}`, resolved: target.resolved, relocated: target.relocated };
      } finally {
        await target.handle.dispose().catch(() => undefined);
      }
    }
    case "keyDown": {
      const key = keyInput(step.key);
      notStopped(context);
      await whileWatchingNavigation(page, context, () => page.keyboard.down(key));
      return { details: `pressed ${step.key}` };
    }
    case "keyUp":
      notStopped(context);
      await page.keyboard.up(keyInput(step.key));
      return { details: `released ${step.key}` };
    case "waitForElement": {
      const target = await resolveTarget(page, step, context, false);
      await target.handle.dispose().catch(() => undefined);
      return { details: `present; ${target.how}`, resolved: target.resolved, relocated: target.relocated };
    }
    default: {
      const unreachable: never = step;
      throw new StepFailure(`unknown Recorder step ${JSON.stringify(unreachable)}`);
    }
  }
}

async function navigate(page: Page, recorded: string, context: StepContext): Promise<StepOutcome> {
  // A typed value the address carried is the run's input (issue #35): `?id={{page_name}}`, encoded as the address needs.
  const { text: url, described } = fillPlaceholders(recorded, context.values, context.purpose, encodeURIComponent);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new StepFailure(`"${recorded}" is not a URL`);
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new StepFailure(`only http and https pages are opened, not ${target.protocol}`);
  if (!hostAllowed(target, context.policy.allowed_domains)) {
    context.watch.breach(notAllowedMessage(target, context.policy.allowed_domains));
    throw new StepFailure(context.watch.violation as string);
  }
  notStopped(context);
  try {
    const response = await page.goto(url, { waitUntil: "load", timeout: Math.max(1, context.deadline - Date.now()) });
    // The address as reported keeps no secret the app put in it (the URL rule); values are the record's redactor's.
    const filled = recorded === url ? "" : ` with ${described}`;
    return { details: `opened ${maskUrl(page.url()) || "the page"}${filled}${response !== null ? ` (HTTP ${response.status()})` : ""}` };
  } catch (error) {
    if (context.watch.violation !== undefined) throw new StepFailure(context.watch.violation);
    throw new StepFailure(`could not open ${recorded}: ${firstLine(error)}`);
  }
}

/** Keys the Recorder writes for the presses it keeps; anything else is refused rather than guessed. */
const KEYS: ReadonlySet<string> = new Set([
  "Enter",
  "Escape",
  "Tab",
  "Backspace",
  "Delete",
  "Space",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "PageUp",
  "PageDown",
]);

function keyInput(key: string): KeyInput {
  if (!KEYS.has(key)) throw new StepFailure(`the key "${key}" is not one the executor presses`);
  return key as KeyInput;
}

/** Replaces each `{{name}}` by its value; a missing one fails the step before anything is typed. */
function fillPlaceholders(
  value: string,
  testValues: Readonly<Record<string, string>>,
  purpose: "rehearsal" | "run",
  encode: (value: string) => string = (same) => same,
): { text: string; described: string } {
  const names = [...value.matchAll(/\{\{\s*([^{}\s]+)\s*\}\}/g)].map((match) => match[1] as string);
  const missing = [...new Set(names.filter((name) => typeof testValues[name] !== "string"))];
  if (missing.length > 0) {
    const list = missing.map((name) => `{{${name}}}`).join(", ");
    const them = missing.length === 1 ? "one" : "them";
    throw new StepFailure(
      purpose === "rehearsal"
        ? `no test value for ${list}: give ${them} when starting the validation (values from the demonstration are never reused); nothing was typed`
        : `no value for ${list}: give ${them} when starting the run (values from the demonstration are never reused); nothing was typed`,
    );
  }
  const text = value.replace(/\{\{\s*([^{}\s]+)\s*\}\}/g, (_, name: string) => encode(testValues[name] as string));
  if (names.length === 0)
    return { text, described: value === "" ? "(no value was recorded for this field; left empty)" : `(a fixed value of ${value.length} characters)` };
  return {
    text,
    described: `the ${purpose === "rehearsal" ? "test " : ""}value for ${[...new Set(names)].map((name) => `{{${name}}}`).join(", ")} (${text.length} characters)`,
  };
}

/** Types into a field the way a person would; selects, dates and colours are set, as the Recorder does. */
async function fill(page: Page, handle: ElementHandle<Element>, value: string, signal: AbortSignal): Promise<string> {
  // Inline, unnamed callbacks only: tsx would wrap a named inner function in a `__name` helper the page lacks.
  const kind = await handle.evaluate((element) => {
    if (element instanceof HTMLSelectElement) return "select";
    if (element instanceof HTMLTextAreaElement) return "text";
    if (element instanceof HTMLInputElement) return ["text", "email", "password", "search", "tel", "url", "number"].includes(element.type) ? "text" : "other";
    if (element instanceof HTMLElement && element.isContentEditable) return "editable";
    // A widget that takes typed text without being a form field (a div role=textbox that renders keys itself).
    if (element instanceof HTMLElement && /^(textbox|searchbox|combobox)$/.test(element.getAttribute("role") ?? "")) return "keys";
    return "none";
  });
  switch (kind) {
    case "select": {
      let chosen = await handle.select(value);
      if (chosen.length === 0) {
        const byLabel = await handle.evaluate(
          (element, text) => [...(element as HTMLSelectElement).options].find((option) => option.label.trim() === text.trim())?.value,
          value,
        );
        if (byLabel !== undefined) chosen = await handle.select(byLabel);
      }
      if (chosen.length === 0) throw new StepFailure("the list has no option for the test value");
      return "selected the option for";
    }
    case "text":
      await handle.evaluate((element) => {
        (element as HTMLInputElement).focus();
        (element as HTMLInputElement).select();
      });
      if (await handle.evaluate((element) => (element as HTMLInputElement).value !== "")) await page.keyboard.press("Backspace");
      await typeText(page, handle, value, signal);
      return "typed";
    case "editable":
      await handle.evaluate((element) => {
        (element as HTMLElement).focus();
        const range = document.createRange();
        range.selectNodeContents(element);
        window.getSelection()?.removeAllRanges();
        window.getSelection()?.addRange(range);
      });
      await page.keyboard.press("Backspace");
      await typeText(page, handle, value, signal);
      return "typed";
    case "keys":
      await typeText(page, handle, value, signal);
      return "typed";
    case "other": {
      const took = await handle.evaluate((element, text) => {
        const input = element as HTMLInputElement;
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(input, text);
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.dispatchEvent(new Event("change", { bubbles: true }));
        return input.value === text;
      }, value);
      if (!took) throw new StepFailure("the field did not accept the test value (wrong format for its type?)");
      return "set";
    }
    case "none":
      throw new StepFailure("the element found is not a field that takes text");
    default: {
      const unreachable: never = kind;
      throw new StepFailure(`unknown field kind ${String(unreachable)}`);
    }
  }
}

/**
 * Right before anything is done in the page: a step left running after the execution was abandoned
 * (cancelled, or out of time) must not act any more.
 */
function notStopped(context: StepContext): void {
  if (context.signal.aborted) throw new StepFailure("the execution was stopped before this action");
}

/** Types one character at a time and stops as soon as the execution is abandoned (Stop means at once). */
async function typeText(page: Page, handle: ElementHandle<Element>, value: string, signal: AbortSignal): Promise<void> {
  if (value === "") return;
  await handle.focus();
  for (const character of value) {
    if (signal.aborted) throw new StepFailure("stopped while typing");
    await page.keyboard.type(character);
  }
}

async function waitUntilEnabled(handle: ElementHandle<Element>, context: StepContext): Promise<void> {
  for (;;) {
    const enabled = await handle.evaluate((element) => !(element as HTMLButtonElement).disabled && element.getAttribute("aria-disabled") !== "true");
    if (enabled) return;
    if (Date.now() + POLL_MS > context.deadline || context.signal.aborted) throw new StepFailure("the element stayed disabled");
    await sleep(POLL_MS);
  }
}

/** Runs an action that may start a navigation of the page, and waits for that page to load. */
async function whileWatchingNavigation(page: Page, context: StepContext, action: () => Promise<unknown>): Promise<void> {
  let started = false;
  const onRequest = (request: HTTPRequest) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) started = true;
  };
  page.on("request", onRequest);
  const loaded = page.waitForNavigation({ waitUntil: "load", timeout: Math.max(1, context.deadline - Date.now()) }).then(
    () => true,
    () => false,
  );
  try {
    await action();
    const settled = page.evaluate(SETTLE_SCRIPT).catch(() => undefined);
    await Promise.race([settled, sleep(NAVIGATION_GRACE_MS)]);
    if (!started) await sleep(NAVIGATION_SETTLE_MS);
    // A navigation the policy refused never loads: the refusal, not the step's whole wait, ends it.
    if (started && !(await Promise.race([loaded, untilBreached(context)]))) {
      if (context.watch.violation !== undefined) throw new StepFailure(context.watch.violation);
      context.watch.notes.push("the page it opened did not finish loading in time");
    }
  } finally {
    page.off("request", onRequest);
  }
}

/** Resolves false once the policy is breached; never resolves otherwise (raced against a wait that ends). */
async function untilBreached(context: StepContext): Promise<false> {
  while (context.watch.violation === undefined && !context.signal.aborted && Date.now() < context.deadline) await sleep(POLL_MS);
  if (context.watch.violation !== undefined) return false;
  return new Promise<false>(() => undefined);
}
