import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PuppeteerRunnerExtension, createRunner, parse, type UserFlow } from "@puppeteer/replay";
import puppeteer, { type Browser } from "puppeteer-core";
import { execute } from "../../agent/execution/executor";
import type { BrowserProvider, ExecutionCheckpoint } from "../../agent/execution/contract/executor-contract";
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH } from "../../agent/execution/managed-browser";
import type { RecorderStep, RecorderFlow } from "../../shared/execution/recorder-flow";
import { serveRehearsalSite, type RehearsalSite } from "../../e2e/rehearsal-fixtures/server";
import { TestPolicySchema } from "../../shared/learning/sessions/test-policy";
import type { BenchResult } from "../bench-result";

/**
 * Issue #21: the executor against `@puppeteer/replay` replaying the same Recorder flow in the same
 * managed Chromium (one browser, a fresh page per run): time from "run" to the first action (the
 * fixture site receiving the first page request) and per step (first action to the end, over the
 * flow's steps). The executor proves 4 checkpoints in the page on the way; replay proves none.
 * Median of ROUNDS alternating runs. The in-tab provider is not measured here (it needs the extension).
 */

export const ROUNDS = 5;
export const VALUES = { full_name: "Bench User", email: "bench@example.test", password: "bench-pw-123", plan: "Pro" };

export function flowOf(origin: string): RecorderFlow {
  const steps: RecorderStep[] = [
    { type: "setViewport", width: 1280, height: 800, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: true },
    { type: "navigate", url: `${origin}/signup.html` },
    { type: "change", selectors: [['aria/Full name[role="textbox"]'], ["#full-name"]], value: "{{full_name}}" },
    { type: "change", selectors: [['aria/Email[role="textbox"]'], ["#email"]], value: "{{email}}" },
    { type: "change", selectors: [["#password"]], value: "{{password}}" },
    { type: "change", selectors: [["#plan"]], value: "{{plan}}" },
    { type: "click", selectors: [['aria/Create account (free)[role="button"]']], offsetX: 1, offsetY: 1 },
    { type: "click", selectors: [["finish-panel", "button.finish"], ['aria/Finish setup[role="button"]']], offsetX: 1, offsetY: 1 },
  ];
  return { title: "Create an account", steps, step_ids: [null, null, "s2", "s3", "s4", "s5", "s6", "s7"] };
}

export const CHECKPOINTS: ExecutionCheckpoint[] = [
  { checkpoint_id: "cp-01", goal: "Sign up is open", success_condition: 'A page titled "Sign up — Rehearsal Shop" is shown', step_ids: ["s1"] },
  { checkpoint_id: "cp-02", goal: "Details entered", success_condition: 'The page says "Email looks good"', step_ids: ["s2", "s3"] },
  { checkpoint_id: "cp-03", goal: "The account is created", success_condition: 'The heading "Welcome aboard" appears', step_ids: ["s4", "s5", "s6"] },
  { checkpoint_id: "cp-04", goal: "Setup is finished", success_condition: 'A dialog "All set" is open', step_ids: ["s7"] },
];

/** The same flow as the Recorder would save it for replay: values filled in, the navigating click asserting its navigation. */
export function replayFlowOf(flow: RecorderFlow, origin: string): UserFlow {
  const steps = flow.steps.map((step) => {
    if (step.type === "change") return { ...step, value: step.value.replace(/\{\{(\w+)\}\}/g, (_, name: keyof typeof VALUES) => VALUES[name]) };
    if (step.type === "click" && step.selectors[0]?.[0]?.startsWith("aria/Create account"))
      return { ...step, assertedEvents: [{ type: "navigation", url: `${origin}/welcome.html`, title: "" }] };
    return step;
  });
  return parse({ title: flow.title, steps });
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export function firstRequestAfter(site: RehearsalSite, from: number): Promise<number> {
  return new Promise((resolve) => {
    const poll = () => (site.requests.length > from ? resolve(performance.now()) : setTimeout(poll, 1));
    poll();
  });
}

async function timeExecutor(browser: Browser, site: RehearsalSite, flow: RecorderFlow): Promise<{ toFirst: number; perStep: number }> {
  const provider: BrowserProvider = async () => {
    const page = await browser.newPage();
    return { where: "managed", browser, page, release: () => page.close().catch(() => undefined) };
  };
  const policy = TestPolicySchema.parse({ policy_id: randomUUID(), mode: "controlled_live_test", allowed_domains: ["127.0.0.1"], schema_version: 1 });
  const start = performance.now();
  const first = firstRequestAfter(site, site.requests.length);
  let last = start;
  const result = await execute({
    flow,
    checkpoints: CHECKPOINTS,
    parameters: [{ name: "password", type_hint: "secret" }],
    values: VALUES,
    policy,
    browser: provider,
    onProgress: () => void (last = performance.now()),
  });
  if (result.overall !== "passed")
    throw new Error(`the executor did not pass the bench flow: ${JSON.stringify(result.steps.filter((step) => step.result !== "passed"))}`);
  const firstAt = await first;
  return { toFirst: firstAt - start, perStep: (last - firstAt) / (flow.steps.length - 1) };
}

export async function timeReplay(browser: Browser, site: RehearsalSite, flow: UserFlow): Promise<{ toFirst: number; perStep: number }> {
  const start = performance.now();
  const page = await browser.newPage();
  const first = firstRequestAfter(site, site.requests.length);
  const runner = await createRunner(flow, new PuppeteerRunnerExtension(browser as never, page as never, { timeout: 5_000 }));
  const ok = await runner.run();
  const end = performance.now();
  await page.close();
  if (!ok) throw new Error("replay did not finish the bench flow");
  const firstAt = await first;
  return { toFirst: firstAt - start, perStep: (end - firstAt) / (flow.steps.length - 1) };
}

export async function benchExecutor(chromiumPath = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH): Promise<BenchResult[]> {
  if (!existsSync(chromiumPath)) throw new Error(`the executor benchmark needs Chromium at ${chromiumPath}`);
  const site = await serveRehearsalSite({ posts: { "/signup": "/welcome.html" } });
  const profile = await mkdtemp(path.join(tmpdir(), "elnor-bench-executor-"));
  const browser = await puppeteer.launch({ executablePath: chromiumPath, headless: true, pipe: true, userDataDir: profile, args: [...CHROMIUM_ARGS] });
  try {
    const flow = flowOf(site.origin);
    const replayFlow = replayFlowOf(flow, site.origin);
    // One warm-up of each, not counted.
    await timeExecutor(browser, site, flow);
    await timeReplay(browser, site, replayFlow);
    const ours: Array<{ toFirst: number; perStep: number }> = [];
    const theirs: Array<{ toFirst: number; perStep: number }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      ours.push(await timeExecutor(browser, site, flow));
      theirs.push(await timeReplay(browser, site, replayFlow));
    }
    const perStep = median(ours.map((run) => run.perStep));
    const replayPerStep = median(theirs.map((run) => run.perStep));
    const toFirst = median(ours.map((run) => run.toFirst));
    const replayToFirst = median(theirs.map((run) => run.toFirst));
    return [
      {
        name: "executor (managed): run → first action",
        value: toFirst,
        unit: "ms",
        baselineName: "@puppeteer/replay",
        baseline: replayToFirst,
        target: "reported",
        pass: true,
      },
      {
        name: "executor (managed): per step, proving 4 checkpoints",
        value: perStep,
        unit: "ms",
        baselineName: "@puppeteer/replay, no checkpoint",
        baseline: replayPerStep,
        target: "≤ 1.2× replay",
        pass: perStep <= 1.2 * replayPerStep,
      },
    ];
  } finally {
    await browser.close().catch(() => undefined);
    await rm(profile, { recursive: true, force: true });
    await site.close();
  }
}
