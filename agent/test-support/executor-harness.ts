import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { serveRehearsalSite, type RehearsalSite } from "../../e2e/rehearsal-fixtures/server";
import { TestPolicySchema, type TestPolicy } from "../../shared/learning/sessions/test-policy";
import type { RecorderStep, RecorderFlow } from "../../shared/execution/recorder-flow";
import { execute } from "../execution/executor";
import type { ExecuteInput, ExecuteResult, ExecutionCheckpoint } from "../execution/contract/executor-contract";
import { managedBrowser } from "../execution/managed-browser";

/**
 * The executor's tests in a real headless Chromium (`agent/execution/executor*.test.ts`): the rehearsal
 * shop's sign-up flow, its inputs and checkpoints, and `execute()` with the defaults those tests share.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const VIEWPORT: RecorderStep = {
  type: "setViewport",
  width: 1280,
  height: 800,
  deviceScaleFactor: 1,
  isMobile: false,
  hasTouch: false,
  isLandscape: true,
};
export const PARAMETERS: ExecuteInput["parameters"] = [
  { name: "full_name", type_hint: "text" },
  { name: "email", type_hint: "email" },
  { name: "password", type_hint: "secret" },
  { name: "plan", type_hint: "text" },
  { name: "nickname", type_hint: "text" },
  { name: "pin", type_hint: "secret" },
];
export const VALUES = {
  full_name: "Run User",
  email: "runner@example.test",
  password: "s3cret-run-pw",
  plan: "Pro",
  nickname: "Captain Nemo",
  pin: "p1n-9876",
};

export function policy(overrides: Partial<TestPolicy> = {}): TestPolicy {
  return TestPolicySchema.parse({ policy_id: randomUUID(), mode: "controlled_live_test", allowed_domains: ["127.0.0.1"], schema_version: 1, ...overrides });
}

/** The sign-up flow up to its committing "Create account" click (the flow's last click). */
export function signupFlow(origin: string): RecorderFlow {
  return {
    title: "Create an account on the shop",
    steps: [
      VIEWPORT,
      { type: "navigate", url: `${origin}/signup.html` },
      { type: "change", selectors: [['aria/Full name[role="textbox"]'], ["#full-name"]], value: "{{full_name}}" },
      { type: "change", selectors: [['aria/Email[role="textbox"]'], ["#email"]], value: "{{email}}" },
      { type: "change", selectors: [["#password"]], value: "{{password}}" },
      { type: "change", selectors: [["#plan"]], value: "{{plan}}" },
      { type: "click", selectors: [['aria/Create account (free)[role="button"]']], offsetX: 1, offsetY: 1 },
    ],
    step_ids: [null, null, "s2", "s3", "s4", "s5", "s6"],
  };
}
export const SIGNUP_CHECKPOINTS: ExecutionCheckpoint[] = [
  { checkpoint_id: "cp-02", goal: "Details entered", success_condition: 'The page says "Email looks good"', step_ids: ["s2", "s3"] },
  { checkpoint_id: "cp-03", goal: "The account is created", success_condition: 'The heading "Welcome aboard" appears', step_ids: ["s4", "s5", "s6"] },
];

/** Selectors of the account page's save button as recorded before a redesign renamed it. */
export const SAVE_STALE: string[][] = [['aria/Save draft[role="button"]'], ['form#editor > div.actions > button.save[name="save"]']];

export const ids = (result: ExecuteResult) => result.steps.map((step) => [step.test_case_id, step.result]);
export const byId = (result: ExecuteResult, id: string) => result.steps.find((step) => step.test_case_id === id);

/** The rehearsal shop (its sign-up posting on to the welcome page) and a temp folder for browser profiles and screenshots. */
export async function openShop(): Promise<{ site: RehearsalSite; temp: string }> {
  const site = await serveRehearsalSite({ posts: { "/signup": "/welcome.html" } });
  return { site, temp: await mkdtemp(path.join(tmpdir(), "elnor-executor-test-")) };
}

export async function closeShop(shop: { site?: RehearsalSite; temp?: string }): Promise<void> {
  await shop.site?.close();
  if (shop.temp !== undefined) await rm(shop.temp, { recursive: true, force: true });
}

/** The paths the site was POSTed to since its `from`-th request. */
export const postsSince = (site: RehearsalSite, from: number) =>
  site.requests
    .slice(from)
    .filter((request) => request.method === "POST")
    .map((request) => request.path);

/** `execute()` in a fresh managed Chromium (profile under `temp`) with the shared inputs, short step waits, and what `input` overrides. */
export const executeIn = (temp: string, input: Partial<ExecuteInput> & Pick<ExecuteInput, "flow">) =>
  execute({
    checkpoints: [],
    parameters: PARAMETERS,
    values: VALUES,
    policy: policy(),
    browser: managedBrowser({ chromiumPath: CHROMIUM, tempDir: temp }),
    stepTimeoutMs: 3_000,
    timeoutMs: 45_000,
    ...input,
  });
