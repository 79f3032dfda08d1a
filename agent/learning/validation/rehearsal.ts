import { createTypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse as parseRecorderFlow } from "@puppeteer/replay";
import puppeteer, { type Browser, type CDPSession, type ElementHandle, type Frame, type HTTPRequest, type KeyInput, type Page, type Protocol } from "puppeteer-core";
import type { ErrorCode } from "../../../shared/common/error-codes";
import type { TestPolicy } from "../../../shared/learning/test-policy";
import type { ValidationStepResult } from "../../../shared/learning/validation-run";
import type { RecorderFlow, RecorderStep, RelocationHint } from "../compiler/emit-recorder-flow";
import type { CheckpointPlan, SkillParameter } from "../compiler/interpret";
import { checkSuccessCondition, firstLine, readBaseline } from "./checkpoint-check";
import type { PageFacts } from "./page-facts";
import { relocateBySimilarity, revealByHover } from "./target-relocation";

export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";
export const DEFAULT_REHEARSAL_TIMEOUT_MS = 60_000;
export const DEFAULT_STEP_TIMEOUT_MS = 5_000;
/** Folder-name prefix of the throw-away profiles under the OS temp dir. */
export const REHEARSAL_PROFILE_PREFIX = "elnor-rehearsal-";

/**
 * Flags that let Debian's Chromium run headless here without reaching for Google's services
 * (the e2e tests launch with the same list). No extension is loaded: the rehearsal is the page alone.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export type RehearsalCheckpoint = Pick<CheckpointPlan, "checkpoint_id" | "goal" | "success_condition" | "step_ids">;
export type RehearsalParameter = Pick<SkillParameter, "name" | "type_hint">;

export interface RehearsalInput {
  /** The proposal's `flow.recorder.json` (compiler/emit-recorder-flow.ts). */
  flow: RecorderFlow;
  checkpoints: readonly RehearsalCheckpoint[];
  parameters: readonly RehearsalParameter[];
  /** Values the user gave for this validation, by parameter name; never values from the capture. */
  testValues: Readonly<Record<string, string>>;
  policy: TestPolicy;
  chromiumPath?: string;
  /** The whole rehearsal, browser start included. */
  timeoutMs?: number;
  /** How long one step may wait for its element, and a checkpoint for its state. */
  stepTimeoutMs?: number;
  /** Where the throw-away profile folder is made (the OS temp dir by default); it is removed after. */
  tempDir?: string;
  now?: () => Date;
}

/** One `ValidationStepResult` (§0C.10) without the run's ids and timestamps, which the run adds. */
export interface RehearsalStepResult extends Pick<ValidationStepResult, "test_case_id" | "label" | "result"> {
  /** At most 1000 characters; for a replayed element, which selector alternative resolved. */
  details: string;
  /** The alternative that found the element: `index` into the step's `selectors` (0-based) and its parts. */
  resolved_selector?: { index: number; selector: string[] };
}

export interface RehearsalPolicyViolation {
  code: Extract<ErrorCode, "TEST_POLICY_VIOLATION">;
  message: string;
}

export interface RehearsalResult {
  /** `passed` only when every step ran and every checkpoint was confirmed in the page. */
  overall: "passed" | "failed" | "partial";
  steps: RehearsalStepResult[];
  policy_violation?: RehearsalPolicyViolation;
  started_at: string;
  completed_at: string;
}

const DETAILS_MAX = 1000;
const LABEL_MAX = 240;
const SELECTOR_SHOWN_MAX = 160;
const POLL_MS = 100;
/** A navigation a click starts shows up as a request within this time. */
const NAVIGATION_GRACE_MS = 150;
const CLOSE_TIMEOUT_MS = 5_000;

/** A step that cannot go on, with the reason a person reads. */
class StepFailure extends Error {
  override name = "StepFailure";
}

/** Chromium started but could not be driven: like a missing browser, the rehearsal did not happen. */
class BrowserUnusable extends Error {
  override name = "BrowserUnusable";
}

/**
 * §0C.14 rehearsal: replays the recorded flow in a fresh headless Chromium profile under the
 * session's TestPolicy, fills parameters from test values, and checks each checkpoint in the page
 * after its last step. Never throws for anything the page or the browser does: a missing browser
 * gives `partial`, a breach gives `failed` with `TEST_POLICY_VIOLATION`.
 */
export async function runRehearsal(input: RehearsalInput): Promise<RehearsalResult> {
  const {
    flow,
    checkpoints,
    parameters,
    testValues,
    policy,
    chromiumPath = DEFAULT_CHROMIUM_PATH,
    timeoutMs = DEFAULT_REHEARSAL_TIMEOUT_MS,
    stepTimeoutMs = DEFAULT_STEP_TIMEOUT_MS,
    tempDir = tmpdir(),
    now = () => new Date(),
  } = input;
  const startedAt = now().toISOString();
  const runDeadline = Date.now() + timeoutMs;
  const redact = secretRedactor(parameters, testValues);
  const finish = (steps: RehearsalStepResult[], violation?: string): RehearsalResult => {
    const cleaned = steps.map((step) => ({ ...step, label: clamp(redact(step.label), LABEL_MAX), details: clamp(redact(step.details), DETAILS_MAX) }));
    const failed = violation !== undefined || cleaned.some((step) => step.result === "failed");
    const skipped = cleaned.some((step) => step.result === "skipped");
    return {
      overall: failed ? "failed" : skipped ? "partial" : "passed",
      steps: cleaned,
      ...(violation !== undefined ? { policy_violation: { code: "TEST_POLICY_VIOLATION" as const, message: clamp(redact(violation), DETAILS_MAX) } } : {}),
      started_at: startedAt,
      completed_at: now().toISOString(),
    };
  };

  const invalid = flowProblem(flow);
  if (invalid !== undefined) return finish([{ test_case_id: "rehearsal:flow", label: "Read the recorded flow", result: "failed", details: invalid }]);
  const plan = planRehearsal(flow, checkpoints, policy);

  if (!existsSync(chromiumPath)) {
    return finish([browserSkipped(`No Chromium at ${chromiumPath}: install Debian's chromium package (or set the agent's Chromium path). The flow was not replayed.`)]);
  }
  const profile = await mkdtemp(path.join(tempDir, REHEARSAL_PROFILE_PREFIX));
  let browser: Browser | undefined;
  try {
    try {
      browser = await puppeteer.launch({
        executablePath: chromiumPath,
        headless: true,
        pipe: true,
        userDataDir: profile,
        args: [...CHROMIUM_ARGS],
        timeout: Math.max(1_000, Math.min(30_000, runDeadline - Date.now())),
        protocolTimeout: 30_000,
      });
    } catch (error) {
      return finish([browserSkipped(`Chromium at ${chromiumPath} could not start (${firstLine(error)}). The flow was not replayed.`)]);
    }
    let outcome: ReplayOutcome;
    try {
      outcome = await replay(browser, plan, { flow, policy, testValues, stepTimeoutMs, timeoutMs, runDeadline });
    } catch (error) {
      if (error instanceof BrowserUnusable) return finish([browserSkipped(error.message)]);
      return finish([{ test_case_id: "rehearsal:error", label: "Replay the recorded flow", result: "failed", details: `the rehearsal stopped unexpectedly: ${firstLine(error)}` }]);
    }
    return finish(outcome.results, outcome.violation);
  } finally {
    await closeBrowser(browser);
    await rm(profile, { recursive: true, force: true, maxRetries: 3 });
  }
}

function browserSkipped(details: string): RehearsalStepResult {
  return { test_case_id: "rehearsal:browser", label: "Start a fresh headless Chromium profile", result: "skipped", details };
}

async function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (browser === undefined) return;
  const closed = browser.close().then(
    () => true,
    () => false,
  );
  const inTime = await Promise.race([closed, sleep(CLOSE_TIMEOUT_MS).then(() => false)]);
  // A wedged browser is killed rather than left running after the rehearsal.
  if (!inTime) browser.process()?.kill("SIGKILL");
}

/** The flow must be one @puppeteer/replay accepts, with a step id (or null) for every step. */
function flowProblem(flow: RecorderFlow): string | undefined {
  try {
    parseRecorderFlow(JSON.parse(JSON.stringify(flow)));
  } catch (error) {
    return `The recorded flow is not a valid Chrome DevTools Recorder flow: ${firstLine(error)}`;
  }
  if (!Array.isArray(flow.step_ids) || flow.step_ids.length !== flow.steps.length) {
    return `The recorded flow has ${flow.steps.length} steps but ${Array.isArray(flow.step_ids) ? flow.step_ids.length : "no"} step ids: it cannot be matched to its checkpoints.`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Plan: which Recorder steps make one result, where each checkpoint is checked, what a dry run skips.

interface StepGroup {
  testCaseId: string;
  label: string;
  /** Indexes into `flow.steps`: a key press is keyDown + keyUp under one normalized step. */
  indexes: number[];
  /** Checkpoints to check once this group has run. */
  checkpointsAfter: RehearsalCheckpoint[];
  /** Checkpoints whose first step this group runs: a count that changes is read before it. */
  checkpointsStarting: RehearsalCheckpoint[];
}

interface RehearsalPlan {
  groups: StepGroup[];
  /** Checkpoints to check before the first group (none of their steps is replayed, and nothing comes before). */
  checkpointsBefore: RehearsalCheckpoint[];
  /** `dry_run_only`: the group holding the final committing step, which is not performed. */
  committingGroup: number | undefined;
}

function planRehearsal(flow: RecorderFlow, checkpoints: readonly RehearsalCheckpoint[], policy: TestPolicy): RehearsalPlan {
  const groups: StepGroup[] = [];
  let setupCount = 0;
  flow.steps.forEach((step, index) => {
    const stepId = flow.step_ids[index] ?? null;
    const last = groups.at(-1);
    if (stepId !== null && last !== undefined && last.testCaseId === `rehearsal:${stepId}`) {
      last.indexes.push(index);
      return;
    }
    if (stepId === null) setupCount += 1;
    groups.push({ testCaseId: stepId === null ? `rehearsal:setup-${setupCount}` : `rehearsal:${stepId}`, label: stepLabel(step), indexes: [index], checkpointsAfter: [], checkpointsStarting: [] });
  });

  // A checkpoint is checked after the last group that replays one of its steps. One whose steps are
  // not in the flow (the opening navigation is a set-up step) is checked where the previous one was,
  // or after the leading set-up steps.
  const groupOfStep = new Map<string, number>();
  groups.forEach((group, groupIndex) => {
    for (const index of group.indexes) {
      const stepId = flow.step_ids[index];
      if (stepId !== null && stepId !== undefined) groupOfStep.set(stepId, groupIndex);
    }
  });
  const firstReplayed = groups.findIndex((group) => group.testCaseId.startsWith("rehearsal:setup-") === false);
  let previousAnchor = (firstReplayed === -1 ? groups.length : firstReplayed) - 1;
  const checkpointsBefore: RehearsalCheckpoint[] = [];
  for (const checkpoint of checkpoints) {
    const anchors = checkpoint.step_ids.map((stepId) => groupOfStep.get(stepId)).filter((anchor): anchor is number => anchor !== undefined);
    const anchor = anchors.length > 0 ? Math.max(...anchors) : previousAnchor;
    if (anchors.length > 0) groups[Math.min(...anchors)]?.checkpointsStarting.push(checkpoint);
    if (anchor < 0) checkpointsBefore.push(checkpoint);
    else groups[anchor]?.checkpointsAfter.push(checkpoint);
    previousAnchor = anchor;
  }

  let committingGroup: number | undefined;
  if (policy.mode === "dry_run_only") {
    groups.forEach((group, groupIndex) => {
      if (group.indexes.some((index) => isCommitting(flow.steps[index]))) committingGroup = groupIndex;
    });
  }
  return { groups, checkpointsBefore, committingGroup };
}

/** A click or Enter is what submits; the last one in the flow is its committing step. */
function isCommitting(step: RecorderStep | undefined): boolean {
  return step !== undefined && (step.type === "click" || (step.type === "keyDown" && step.key === "Enter"));
}

const PLACEHOLDERS_ONLY = /^(\s*\{\{\s*[^{}\s]+\s*\}\}\s*)+$/;

function stepLabel(step: RecorderStep): string {
  switch (step.type) {
    case "setViewport":
      return `Set the viewport to ${step.width}×${step.height}`;
    case "navigate":
      return `Open ${step.url}`;
    case "click":
      return `Click ${describeTarget(step.selectors)}`;
    case "change":
      // Only placeholders are shown: a literal value in a hand-edited flow could be something once typed.
      return `Fill ${describeTarget(step.selectors)}${step.value === "" ? "" : PLACEHOLDERS_ONLY.test(step.value) ? ` with ${step.value}` : " with a fixed value"}`;
    case "keyDown":
    case "keyUp":
      return `Press ${step.key}`;
    case "waitForElement":
      return `Wait for ${describeTarget(step.selectors)}`;
    default: {
      const unreachable: never = step;
      throw new Error(`unknown Recorder step ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The most readable alternative: an accessible name, then visible text, then the first selector. */
function describeTarget(selectors: readonly string[][]): string {
  const single = selectors.filter((parts) => parts.length === 1).map((parts) => parts[0] as string);
  const aria = single.map((selector) => /^aria\/(.*?)(?:\[role="([^"]*)"\])?$/.exec(selector)).find((match) => match !== null);
  if (aria?.[1]) return `"${aria[1]}"${aria[2] ? ` (${aria[2]})` : ""}`;
  const text = single.find((selector) => selector.startsWith("text/"));
  if (text !== undefined) return `"${text.slice("text/".length)}"`;
  return selectors[0] !== undefined ? showSelector(selectors[0]) : "an element";
}

// ---------------------------------------------------------------------------------------------
// Replay.

interface ReplayOptions {
  flow: RecorderFlow;
  policy: TestPolicy;
  testValues: Readonly<Record<string, string>>;
  stepTimeoutMs: number;
  timeoutMs: number;
  runDeadline: number;
}

interface ReplayOutcome {
  results: RehearsalStepResult[];
  violation: string | undefined;
}

/** What the test policy has seen so far: the first breach stops the rehearsal. */
interface PolicyWatch {
  violation: string | undefined;
  breach(message: string): void;
  /** Notes for the current step (a native dialog answered, a request refused). */
  notes: string[];
}

async function replay(browser: Browser, plan: RehearsalPlan, options: ReplayOptions): Promise<ReplayOutcome> {
  const { flow, policy, stepTimeoutMs, runDeadline } = options;
  const watch: PolicyWatch = {
    violation: undefined,
    notes: [],
    breach(message) {
      watch.notes.push(message);
      watch.violation ??= message;
    },
  };
  const results: RehearsalStepResult[] = [];
  let page: Page | undefined;
  let guard: { dispose(): Promise<void> };
  try {
    // Guard the network before any page exists, so not even the first request escapes it.
    guard = await within(guardNetwork(browser, policy, () => page, watch), runDeadline - Date.now(), "the rehearsal ran out of time");
    page = await within(browser.newPage(), runDeadline - Date.now(), "the rehearsal ran out of time");
    await within(preparePage(page, policy, watch), runDeadline - Date.now(), "the rehearsal ran out of time");
  } catch (error) {
    throw new BrowserUnusable(`Chromium started but the rehearsal page could not be prepared (${firstLine(error)}). The flow was not replayed.`);
  }
  // Ends polling left behind by a step that ran out of time, once the rehearsal is over.
  const over = new AbortController();
  let stop: string | undefined;
  let actions = 0;
  let violationReported = false;
  const remaining = () => runDeadline - Date.now();
  /** A breach not yet pinned on a result (a request the page made on its own after a step). */
  const unreportedViolation = (): string | undefined => {
    if (watch.violation === undefined || violationReported) return undefined;
    violationReported = true;
    stop = "the test policy was breached";
    return watch.violation;
  };

  const baselines = new Map<string, PageFacts | undefined>();
  const checkAll = async (list: readonly RehearsalCheckpoint[]) => {
    for (const checkpoint of list) {
      const base = { test_case_id: `checkpoint:${checkpoint.checkpoint_id}`, label: `Checkpoint ${checkpoint.checkpoint_id}: ${checkpoint.goal}` };
      if (stop !== undefined) {
        results.push({ ...base, result: "skipped", details: `not checked: ${stop}` });
        continue;
      }
      const verdict = await checkSuccessCondition(page as Page, checkpoint.success_condition, {
        timeoutMs: Math.max(0, Math.min(stepTimeoutMs, remaining())),
        shouldStop: () => watch.violation !== undefined,
        values: options.testValues,
        baseline: baselines.get(checkpoint.checkpoint_id),
      });
      const breach = unreportedViolation();
      results.push(breach === undefined ? { ...base, ...verdict } : { ...base, result: "failed", details: `test policy: ${breach} (while checking: ${verdict.details})` });
    }
  };

  const runGroup = async (group: StepGroup): Promise<StepOutcome[]> => {
    const done: StepOutcome[] = [];
    for (const index of group.indexes) {
      const step = flow.steps[index] as RecorderStep;
      if (countsAsAction(step)) {
        if (actions >= policy.max_actions) {
          watch.breach(`the test policy allows at most ${policy.max_actions} actions (max_actions); this step would be action ${actions + 1}`);
          throw new StepFailure(watch.violation as string);
        }
        actions += 1;
      }
      done.push(await runStep(page as Page, step, { ...options, watch, deadline: Date.now() + stepTimeoutMs, signal: over.signal }));
    }
    return done;
  };

  try {
    await checkAll(plan.checkpointsBefore);
    for (const [groupIndex, group] of plan.groups.entries()) {
      const base = { test_case_id: group.testCaseId, label: group.label };
      const earlierBreach = stop === undefined ? unreportedViolation() : undefined;
      if (earlierBreach !== undefined) {
        results.push({ ...base, result: "failed", details: `test policy: ${earlierBreach} (before this step was run)` });
      } else if (stop !== undefined) {
        results.push({ ...base, result: "skipped", details: `not run: ${stop}` });
      } else if (groupIndex === plan.committingGroup) {
        results.push({ ...base, result: "skipped", details: "dry run: final committing step not performed" });
        stop = "dry run: the final committing step was not performed";
      } else {
        watch.notes = [];
        for (const checkpoint of group.checkpointsStarting) baselines.set(checkpoint.checkpoint_id, await readBaseline(page as Page, checkpoint.success_condition));
        const needed = group.indexes.length * (stepTimeoutMs + 2_000);
        const budget = Math.min(needed, remaining());
        const limit = budget < needed ? `the rehearsal ran out of time (${Math.round(options.timeoutMs / 1000)} s limit)` : `the step did not finish within ${Math.round(budget / 1000)} s`;
        try {
          const done = await within(runGroup(group), budget, limit);
          const resolved = done.find((outcome) => outcome.resolved !== undefined)?.resolved;
          const breach = unreportedViolation();
          const details = [...done.map((outcome) => outcome.details), ...watch.notes.filter((note) => note !== breach)].join("; ");
          if (breach !== undefined) results.push({ ...base, result: "failed", details: `test policy: ${breach}${details ? ` (${details})` : ""}` });
          else results.push({ ...base, result: "passed", details, ...(resolved !== undefined ? { resolved_selector: resolved } : {}) });
        } catch (error) {
          const reason = error instanceof StepFailure ? error.message : `the step could not be performed: ${firstLine(error)}`;
          const breach = unreportedViolation();
          const lead = breach !== undefined && !reason.includes(breach) ? `test policy: ${breach}; ${reason}` : breach !== undefined ? `test policy: ${reason}` : reason;
          const notes = watch.notes.filter((note) => note !== watch.violation && !reason.includes(note));
          results.push({ ...base, result: "failed", details: [lead, ...notes].join("; ") });
          stop ??= `${group.testCaseId.slice("rehearsal:".length)} failed`;
        }
      }
      await checkAll(group.checkpointsAfter);
    }
  } finally {
    over.abort();
    await guard.dispose();
  }
  return { results, violation: watch.violation };
}

/** Navigation, clicks, typing and key presses count toward `max_actions`; viewport and waits do not. */
function countsAsAction(step: RecorderStep): boolean {
  return step.type === "navigate" || step.type === "click" || step.type === "change" || step.type === "keyDown";
}

interface StepOutcome {
  details: string;
  resolved?: { index: number; selector: string[] };
}

interface StepContext extends ReplayOptions {
  watch: PolicyWatch;
  deadline: number;
  signal: AbortSignal;
}

async function runStep(page: Page, step: RecorderStep, context: StepContext): Promise<StepOutcome> {
  switch (step.type) {
    case "setViewport":
      await page.setViewport({ width: step.width, height: step.height, deviceScaleFactor: step.deviceScaleFactor, isMobile: step.isMobile, hasTouch: step.hasTouch, isLandscape: step.isLandscape });
      return { details: `viewport ${step.width}×${step.height}` };
    case "navigate":
      return navigate(page, step.url, context);
    case "click": {
      const target = await resolveTarget(page, step, context, true);
      try {
        await waitUntilEnabled(target.handle, context);
        await whileWatchingNavigation(page, context, () => target.handle.click());
      } finally {
        await target.handle.dispose().catch(() => undefined);
      }
      return { details: `clicked; ${target.how}`, resolved: target.resolved };
    }
    case "change": {
      // The value first: with a test value missing nothing is looked up, nothing is typed.
      const value = fillPlaceholders(step.value, context.testValues);
      const target = await resolveTarget(page, step, context, true);
      try {
        const how = await fill(page, target.handle, value.text);
        return { details: `${how} ${value.described}; ${target.how}`, resolved: target.resolved };
      } finally {
        await target.handle.dispose().catch(() => undefined);
      }
    }
    case "keyDown": {
      const key = keyInput(step.key);
      await whileWatchingNavigation(page, context, () => page.keyboard.down(key));
      return { details: `pressed ${step.key}` };
    }
    case "keyUp":
      await page.keyboard.up(keyInput(step.key));
      return { details: `released ${step.key}` };
    case "waitForElement": {
      const target = await resolveTarget(page, step, context, false);
      await target.handle.dispose().catch(() => undefined);
      return { details: `present; ${target.how}`, resolved: target.resolved };
    }
    default: {
      const unreachable: never = step;
      throw new StepFailure(`unknown Recorder step ${JSON.stringify(unreachable)}`);
    }
  }
}

async function navigate(page: Page, url: string, context: StepContext): Promise<StepOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new StepFailure(`"${url}" is not a URL`);
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new StepFailure(`only http and https pages are rehearsed, not ${target.protocol}`);
  if (!hostAllowed(target, context.policy.allowed_domains)) {
    context.watch.breach(notAllowedMessage(target, context.policy.allowed_domains));
    throw new StepFailure(context.watch.violation as string);
  }
  try {
    const response = await page.goto(url, { waitUntil: "load", timeout: Math.max(1, context.deadline - Date.now()) });
    return { details: `opened ${page.url()}${response !== null ? ` (HTTP ${response.status()})` : ""}` };
  } catch (error) {
    if (context.watch.violation !== undefined) throw new StepFailure(context.watch.violation);
    throw new StepFailure(`could not open ${url}: ${firstLine(error)}`);
  }
}

/** Keys the Recorder writes for the presses it keeps; anything else is refused rather than guessed. */
const KEYS: ReadonlySet<string> = new Set(["Enter", "Escape", "Tab", "Backspace", "Delete", "Space", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"]);

function keyInput(key: string): KeyInput {
  if (!KEYS.has(key)) throw new StepFailure(`the key "${key}" is not one a rehearsal presses`);
  return key as KeyInput;
}

/** Replaces each `{{name}}` by its test value; a missing one fails the step before anything is typed. */
function fillPlaceholders(value: string, testValues: Readonly<Record<string, string>>): { text: string; described: string } {
  const names = [...value.matchAll(/\{\{\s*([^{}\s]+)\s*\}\}/g)].map((match) => match[1] as string);
  const missing = [...new Set(names.filter((name) => typeof testValues[name] !== "string"))];
  if (missing.length > 0) {
    throw new StepFailure(
      `no test value for ${missing.map((name) => `{{${name}}}`).join(", ")}: give ${missing.length === 1 ? "one" : "them"} when starting the validation (values from the demonstration are never reused); nothing was typed`,
    );
  }
  const text = value.replace(/\{\{\s*([^{}\s]+)\s*\}\}/g, (_, name: string) => testValues[name] as string);
  if (names.length === 0) return { text, described: value === "" ? "(no value was recorded for this field; left empty)" : `(a fixed value of ${value.length} characters)` };
  return { text, described: `the test value for ${[...new Set(names)].map((name) => `{{${name}}}`).join(", ")} (${text.length} characters)` };
}

/** Types into a field the way a person would; selects, dates and colours are set, as the Recorder does. */
async function fill(page: Page, handle: ElementHandle<Element>, value: string): Promise<string> {
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
        const byLabel = await handle.evaluate((element, text) => [...(element as HTMLSelectElement).options].find((option) => option.label.trim() === text.trim())?.value, value);
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
      if (value !== "") await handle.type(value);
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
      if (value !== "") await handle.type(value);
      return "typed";
    case "keys":
      await handle.evaluate((element) => (element as HTMLElement).focus());
      if (value !== "") await page.keyboard.type(value);
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
    await sleep(NAVIGATION_GRACE_MS);
    if (started && !(await loaded)) {
      if (context.watch.violation !== undefined) throw new StepFailure(context.watch.violation);
      context.watch.notes.push("the page it opened did not finish loading in time");
    }
  } finally {
    page.off("request", onRequest);
  }
}

// ---------------------------------------------------------------------------------------------
// Selectors: ordered alternatives, the first that finds a visible element wins.

interface ResolvedTarget {
  handle: ElementHandle<Element>;
  /** Undefined when the target was relocated by similarity (no selector found it). */
  resolved: { index: number; selector: string[] } | undefined;
  how: string;
}

/**
 * Tries the step's alternatives in order, all within the one step deadline, so a stale first
 * alternative costs a poll, not a timeout. Says which one resolved: that is what tells a person the
 * flow is drifting from the page.
 */
async function resolveTarget(page: Page, step: { selectors: string[][]; frame?: number[]; hint?: RelocationHint }, context: StepContext, visible: boolean): Promise<ResolvedTarget> {
  const alternatives = step.selectors;
  if (alternatives.length === 0) throw new StepFailure("the step has no selector to find its element with");
  let hiddenMatch: number | undefined;
  for (;;) {
    if (context.watch.violation !== undefined) throw new StepFailure(context.watch.violation);
    const frame = frameAt(page, step.frame ?? []);
    if (frame !== undefined) {
      for (const [index, parts] of alternatives.entries()) {
        const handle = await queryAlternative(frame, parts).catch(() => null);
        if (handle === null) continue;
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
  const relocated = frame === undefined || context.watch.violation !== undefined ? undefined : await relocateBySimilarity(frame, alternatives, step.hint, context.testValues).catch(() => undefined);
  if (relocated !== undefined) {
    if (!visible || (await relocated.handle.isVisible().catch(() => false)) || (await revealByHover(relocated.handle))) {
      const how = `relocated by similarity (${relocated.matched.join(", ")}; score ${relocated.score}) after none of the ${alternatives.length} selector alternatives matched, first ${showSelector(alternatives[0] ?? [])}`;
      return { handle: relocated.handle, resolved: undefined, how };
    }
    await relocated.handle.dispose().catch(() => undefined);
  }
  const frameNote = frame === undefined ? ` (frame ${JSON.stringify(step.frame)} not found)` : "";
  const hidden = hiddenMatch !== undefined ? `; alternative ${hiddenMatch + 1} matched an element that is not visible` : "";
  const tried = alternatives.map((parts, index) => `${index + 1} ${showSelector(parts)}`).join(", ");
  throw new StepFailure(`none of the ${alternatives.length} selector alternatives found the element within ${Math.round(context.stepTimeoutMs / 1000)} s${frameNote}: ${tried}${hidden}`);
}

/** The Recorder's `frame`: child-frame indexes from the top document down. */
function frameAt(page: Page, framePath: readonly number[]): Frame | undefined {
  let frame: Frame | undefined = page.mainFrame();
  for (const index of framePath) frame = frame?.childFrames()[index];
  return frame;
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

function showSelector(parts: readonly string[]): string {
  const shown = parts.length === 1 ? (parts[0] as string) : parts.join(" >>> ");
  return shown.length > SELECTOR_SHOWN_MAX ? `${shown.slice(0, SELECTOR_SHOWN_MAX - 1)}…` : shown;
}

// ---------------------------------------------------------------------------------------------
// Test policy (§0C.14) in the browser.

/** `example.com` allows it and its subdomains on any port; `127.0.0.1:8123` allows that port only. */
export function hostAllowed(url: URL, allowedDomains: readonly string[]): boolean {
  const port = url.port || (url.protocol === "https:" || url.protocol === "wss:" ? "443" : "80");
  const hostname = url.hostname.toLowerCase();
  return allowedDomains.some((entry) => {
    let allowed: URL;
    try {
      const bare = entry.trim().replace(/^\*?\./, "");
      allowed = new URL(bare.includes("://") ? bare : `http://${bare}`);
    } catch {
      return false;
    }
    const allowedHost = allowed.hostname.toLowerCase();
    const hostMatches = hostname === allowedHost || hostname.endsWith(`.${allowedHost}`);
    return hostMatches && (allowed.port === "" || allowed.port === port);
  });
}

function notAllowedMessage(url: URL, allowedDomains: readonly string[]): string {
  const list = allowedDomains.length === 0 ? "it is empty" : allowedDomains.join(", ");
  return `request to ${url.origin} refused: ${url.host} is not in the test policy's allowed_domains (${list})`;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Why the policy refuses a request, or undefined when it may go. */
function refusal(url: URL, method: string, pageOrigin: string | undefined, policy: TestPolicy): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (!hostAllowed(url, policy.allowed_domains)) return notAllowedMessage(url, policy.allowed_domains);
  if (SAFE_METHODS.has(method)) return undefined;
  if (policy.mode === "read_only") return `${method} ${url.origin}${url.pathname} refused: the read_only test policy allows no writes`;
  if (policy.forbid_destructive_writes && method === "DELETE") return `DELETE ${url.origin}${url.pathname} refused: the test policy forbids destructive writes`;
  if (policy.forbid_external_send && url.origin !== pageOrigin) {
    return `${method} to ${url.origin} refused: the test policy forbids sending to another origin than the page's (${pageOrigin ?? "none"})`;
  }
  return undefined;
}

/**
 * Every request of the browser, from every page, frame and worker, passes here first (CDP Fetch on
 * the browser target): refused ones fail as blocked by the client and breach the policy.
 */
async function guardNetwork(browser: Browser, policy: TestPolicy, page: () => Page | undefined, watch: PolicyWatch): Promise<{ dispose(): Promise<void> }> {
  const session: CDPSession = await browser.target().createCDPSession();
  const pageOrigin = () => {
    const url = page()?.url();
    const origin = url === undefined ? undefined : safeOrigin(url);
    return origin === "null" ? undefined : origin;
  };
  const onPaused = (event: Protocol.Fetch.RequestPausedEvent) => {
    let url: URL | undefined;
    try {
      url = new URL(event.request.url);
    } catch {
      url = undefined;
    }
    const reason = url === undefined ? undefined : refusal(url, event.request.method.toUpperCase(), pageOrigin(), policy);
    if (reason !== undefined) watch.breach(reason);
    const answer =
      reason === undefined
        ? session.send("Fetch.continueRequest", { requestId: event.requestId })
        : session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
    // Only fails when the browser is closing, and then the paused request goes with it.
    answer.catch(() => undefined);
  };
  session.on("Fetch.requestPaused", onPaused);
  await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  return {
    async dispose() {
      session.off("Fetch.requestPaused", onPaused);
      await session.detach().catch(() => undefined);
    },
  };
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

const SUBMIT_BINDING = "__elnorRehearsalRefusedSubmit";

/**
 * Runs in every document before its own scripts, as source text (see checkpoint-check.ts): a form
 * submitted to another origin is stopped before it leaves, GET forms included, which the network
 * guard cannot tell from a link.
 */
const SUBMIT_GUARD_SCRIPT = `(() => {
  window.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || location.origin === "null") return;
    const submitter = event.submitter;
    const action = submitter && submitter.hasAttribute("formaction") ? submitter.formAction : form.action;
    let target;
    try { target = new URL(action || location.href, location.href); } catch { return; }
    if (target.protocol !== "http:" && target.protocol !== "https:") return;
    if (target.origin === location.origin) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    window[${JSON.stringify(SUBMIT_BINDING)}](target.origin, location.origin);
  }, true);
})();`;

async function preparePage(page: Page, policy: TestPolicy, watch: PolicyWatch): Promise<void> {
  if (policy.forbid_external_send) {
    await page.exposeFunction(SUBMIT_BINDING, (target: unknown, from: unknown) => {
      watch.breach(`form submission to ${String(target)} refused: the test policy forbids sending to another origin than the page's (${String(from)})`);
    });
    await page.evaluateOnNewDocument(SUBMIT_GUARD_SCRIPT);
  }
  // A native dialog would block the page; answer it so the flow goes on, and say so.
  page.on("dialog", (dialog) => {
    const refuse = (dialog.type() === "confirm" || dialog.type() === "prompt") && (policy.forbid_destructive_writes || policy.mode === "read_only" || policy.mode === "dry_run_only");
    watch.notes.push(`the page asked (${dialog.type()}) "${clamp(dialog.message(), 120)}": ${refuse ? "dismissed under the test policy" : "accepted"}`);
    (refuse ? dialog.dismiss() : dialog.accept()).catch(() => undefined);
  });
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

/**
 * Secret test values (type hint `secret`) never appear in a result, even where the page echoed
 * them (in any case, spacing or encoding): the shared rule of the extension's privacy boundary.
 */
function secretRedactor(parameters: readonly RehearsalParameter[], testValues: Readonly<Record<string, string>>): (text: string) => string {
  const secrets = parameters
    .filter((parameter) => parameter.type_hint === "secret")
    .map((parameter) => testValues[parameter.name])
    .filter((value): value is string => typeof value === "string");
  const scrubber = createTypedValueScrubber(secrets);
  return (text) => scrubber.scrub(text);
}

function clamp(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Bounds a piece of work; the work itself is left to fail when the browser closes. */
async function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepFailure(message)), Math.max(0, ms));
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
