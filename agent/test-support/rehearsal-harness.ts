import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { serveRehearsalSite, type RehearsalSite } from "../../e2e/rehearsal-fixtures/server";
import type { RecorderFlow } from "../../shared/execution/recorder-flow";
import { REHEARSAL_PROFILE_PREFIX, runRehearsal, type RehearsalCheckpoint, type RehearsalInput, type RehearsalResult } from "../learning/validation/rehearsal";
import { afterAll, beforeAll } from "vitest";
import type { BrowserProvider } from "../execution/contract/executor-contract";
import { CHROMIUM, VIEWPORT, policy } from "./executor-harness";
import { shareChromiumInFile } from "./shared-chromium";

/**
 * The rehearsal's tests in a real headless Chromium (`agent/learning/validation/rehearsal*.test.ts`):
 * the rehearsal shop and a second site on another port, the sign-up demonstration with some selectors
 * gone stale, its test values and checkpoints, and `runRehearsal()` with the defaults those tests share.
 */

export { CHROMIUM, VIEWPORT, policy };

export const PARAMETERS: RehearsalInput["parameters"] = [
  { name: "full_name", type_hint: "text" },
  { name: "email", type_hint: "email" },
  { name: "password", type_hint: "secret" },
  { name: "plan", type_hint: "text" },
];
export const TEST_VALUES = { full_name: "Test User", email: "tester@example.test", password: "s3cret-test-pw", plan: "Pro" };

/** The sign-up demonstration as emit-recorder-flow.ts writes it, with some selectors gone stale since. */
export function signupFlow(origin: string): RecorderFlow {
  return {
    title: "Create an account on the shop",
    steps: [
      VIEWPORT,
      { type: "navigate", url: `${origin}/signup.html` },
      { type: "change", selectors: [['aria/Full name[role="textbox"]'], ["#full-name"]], value: "{{full_name}}" },
      // The first alternative is stale (the field's id changed): the second must resolve.
      { type: "change", selectors: [["#old-email-field"], ['aria/Email[role="textbox"]'], ["#email"]], value: "{{email}}" },
      { type: "change", selectors: [['[data-testid="password-field"]'], ['xpath/id("password")']], value: "{{password}}" },
      { type: "change", selectors: [["#plan"]], value: "{{plan}}" },
      {
        type: "click",
        selectors: [['[data-testid="signup-button"]'], ['aria/Create account (free)[role="button"]'], ["text/Create account (free)"]],
        offsetX: 1,
        offsetY: 1,
      },
      // Inside a shadow root: a two-part alternative pierces it.
      { type: "click", selectors: [["finish-panel", "button.finish"], ['aria/Finish setup[role="button"]']], offsetX: 1, offsetY: 1 },
    ],
    step_ids: [null, null, "s2", "s3", "s4", "s5", "s6", "s7"],
  };
}

export const SIGNUP_CHECKPOINTS: RehearsalCheckpoint[] = [
  // Its only step is the opening navigation, which the flow replays as a set-up step.
  { checkpoint_id: "cp-01", goal: 'The "Sign up" page is open', success_condition: 'A page titled "Sign up — Rehearsal Shop" is shown', step_ids: ["s1"] },
  {
    checkpoint_id: "cp-02",
    goal: '"Email" is completed with {{full_name}}, {{email}}',
    success_condition: 'The page says "Email looks good"',
    step_ids: ["s2", "s3"],
  },
  { checkpoint_id: "cp-03", goal: "The account is created", success_condition: 'The heading "Welcome aboard" appears', step_ids: ["s4", "s5", "s6"] },
  { checkpoint_id: "cp-04", goal: "Setup is finished", success_condition: 'A dialog "All set" is open', step_ids: ["s7"] },
];

/** The calling file's shared Chromium, while its tests run (`rehearseInSharedChromium`). */
let sharedBrowser: BrowserProvider | undefined;

/**
 * The calling file's rehearsals run in one Chromium started for the file (`shared-chromium.ts`),
 * each in a fresh context; those that name a profile folder (`tempDir`) or a Chromium of their own
 * test the managed browser itself and still get one.
 */
export function rehearseInSharedChromium(): void {
  const provider = shareChromiumInFile();
  beforeAll(() => {
    sharedBrowser = provider;
  });
  afterAll(() => {
    sharedBrowser = undefined;
  });
}

/** `runRehearsal()` in the installed Chromium with the shared parameters and test values, short step waits, and what `overrides` says. */
export function rehearse(overrides: Partial<RehearsalInput> & Pick<RehearsalInput, "flow">): Promise<RehearsalResult> {
  const ownBrowser = overrides.tempDir !== undefined || overrides.chromiumPath !== undefined;
  return runRehearsal({
    ...(sharedBrowser !== undefined && !ownBrowser ? { browser: sharedBrowser } : {}),
    checkpoints: [],
    parameters: PARAMETERS,
    testValues: TEST_VALUES,
    policy: policy(),
    chromiumPath: CHROMIUM,
    stepTimeoutMs: 3_000,
    timeoutMs: 45_000,
    ...overrides,
  });
}

export const byId = (result: RehearsalResult, id: string) => result.steps.find((step) => step.test_case_id === id);

/** A temp folder of the test's own, so rehearsals other test files run meanwhile do not show up in it. */
export async function profileParent(): Promise<{ dir: string; profiles(): Promise<string[]> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "elnor-rehearsal-test-"));
  return { dir, profiles: async () => (await readdir(dir)).filter((name) => name.startsWith(REHEARSAL_PROFILE_PREFIX)) };
}

/** The second site (`other`) and the shop (`site`), whose pages name the other's origin and whose sign-up posts on to the welcome page. */
export async function serveShopAndOther(): Promise<{ site: RehearsalSite; other: RehearsalSite }> {
  const other = await serveRehearsalSite();
  const site = await serveRehearsalSite({ otherOrigin: other.origin, posts: { "/signup": "/welcome.html" } });
  return { site, other };
}
