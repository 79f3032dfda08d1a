import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RehearsalSite } from "../../../e2e/rehearsal-fixtures/server";
import { ValidationStepResultSchema } from "../../../shared/learning/proposals/validation-run";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import { hostAllowed, runRehearsal, toPuppeteerSelector, type RehearsalCheckpoint } from "./rehearsal";
import {
  PARAMETERS,
  SIGNUP_CHECKPOINTS,
  TEST_VALUES,
  VIEWPORT,
  byId,
  policy,
  profileParent,
  rehearse,
  rehearseInSharedChromium,
  serveShopAndOther,
  signupFlow,
} from "../../test-support/rehearsal-harness";

/** Rehearsals run in one Chromium started for this file, each in a fresh context, but for those testing the managed browser itself. */
rehearseInSharedChromium();

/**
 * The rehearsal in a real headless Chromium: the flow replayed with its selector alternatives and
 * checkpoints, what fails or is skipped and why, test values kept out, time limits; and without a
 * browser. What the test policy lets through or refuses: `rehearsal-policy.test.ts`.
 */

describe("rehearsal in a real headless Chromium", () => {
  let site: RehearsalSite;
  let other: RehearsalSite;

  beforeAll(async () => {
    ({ site, other } = await serveShopAndOther());
  });
  afterAll(async () => {
    await site.close();
    await other.close();
  });

  it("passes a sign-up flow, says which selector alternative resolved, and checks every checkpoint in the page", async () => {
    const temp = await profileParent();
    const flow = signupFlow(site.origin);
    const result = await rehearse({ flow, checkpoints: SIGNUP_CHECKPOINTS, tempDir: temp.dir });

    expect(result.steps.map((step) => [step.test_case_id, step.result])).toEqual([
      ["rehearsal:setup-1", "passed"],
      ["rehearsal:setup-2", "passed"],
      ["checkpoint:cp-01", "passed"],
      ["rehearsal:s2", "passed"],
      ["rehearsal:s3", "passed"],
      ["checkpoint:cp-02", "passed"],
      ["rehearsal:s4", "passed"],
      ["rehearsal:s5", "passed"],
      ["rehearsal:s6", "passed"],
      ["checkpoint:cp-03", "passed"],
      ["rehearsal:s7", "passed"],
      ["checkpoint:cp-04", "passed"],
    ]);
    expect(result.overall).toBe("passed");
    expect(result.policy_violation).toBeUndefined();

    // Which alternative resolved, for each replayed element.
    expect(byId(result, "rehearsal:s2")?.details).toContain('resolved by selector alternative 1 of 2: aria/Full name[role="textbox"]');
    expect(byId(result, "rehearsal:s3")?.details).toContain(
      'resolved by selector alternative 2 of 3: aria/Email[role="textbox"] (no match for 1 #old-email-field)',
    );
    expect(byId(result, "rehearsal:s3")?.resolved_selector).toEqual({ index: 1, selector: ['aria/Email[role="textbox"]'] });
    expect(byId(result, "rehearsal:s4")?.details).toContain('resolved by selector alternative 2 of 2: xpath/id("password")');
    expect(byId(result, "rehearsal:s6")?.details).toContain('resolved by selector alternative 2 of 3: aria/Create account (free)[role="button"]');
    expect(byId(result, "rehearsal:s7")?.details).toContain("resolved by selector alternative 1 of 2: finish-panel >>> button.finish");
    expect(byId(result, "rehearsal:s7")?.resolved_selector).toEqual({ index: 0, selector: ["finish-panel", "button.finish"] });

    // Evidence from the page, per checkpoint.
    expect(byId(result, "checkpoint:cp-01")?.details).toBe('page title is "Sign up — Rehearsal Shop"');
    expect(byId(result, "checkpoint:cp-02")?.details).toBe('found status "Email looks good"');
    expect(byId(result, "checkpoint:cp-03")?.details).toBe('found heading "Welcome aboard"');
    expect(byId(result, "checkpoint:cp-04")?.details).toBe('found open dialog "All set"');

    // The site got the test values, never anything from the capture; the secret is not in the result.
    const signup = site.requests.find((request) => request.method === "POST" && request.path === "/signup");
    expect(new URLSearchParams(signup?.body)).toEqual(
      new URLSearchParams({ full_name: "Test User", email: "tester@example.test", password: "s3cret-test-pw", plan: "pro" }),
    );
    expect(JSON.stringify(result)).not.toContain("s3cret-test-pw");
    expect(byId(result, "rehearsal:s4")?.details).toContain("typed the test value for {{password}} (14 characters)");

    // Every step maps onto a §0C.10 ValidationStepResult, and the profile is gone.
    for (const step of result.steps) {
      expect(
        ValidationStepResultSchema.safeParse({ ...step, validation_run_id: randomUUID(), created_at: result.completed_at, schema_version: 1 }).success,
      ).toBe(true);
    }
    expect(await temp.profiles()).toEqual([]);
    await rm(temp.dir, { recursive: true });
  });

  it("replays a step inside a frame named by the flow's frame path", async () => {
    const flow: RecorderFlow = {
      title: "Subscribe to the newsletter",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/newsletter.html` },
        { type: "click", selectors: [['aria/Subscribe[role="button"]'], ["#subscribe"]], offsetX: 1, offsetY: 1, frame: [0] },
      ],
      step_ids: [null, null, "s2"],
    };
    const checkpoints: RehearsalCheckpoint[] = [
      { checkpoint_id: "cp-02", goal: "Subscribed", success_condition: 'The page says "You are subscribed"', step_ids: ["s2"] },
    ];
    const result = await rehearse({ flow, checkpoints });

    expect(result.overall).toBe("passed");
    expect(byId(result, "rehearsal:s2")?.details).toContain('resolved by selector alternative 1 of 2: aria/Subscribe[role="button"]');
    expect(byId(result, "checkpoint:cp-02")?.details).toBe('found status "You are subscribed"');
  });

  it("fails at the step whose selectors all miss, and skips everything after it", async () => {
    const flow = signupFlow(site.origin);
    // The missing field's own 1 s wait; the steps before it have the run's, which a loaded machine meets.
    flow.steps[3] = { type: "change", selectors: [["#nope"], ['aria/No such field[role="textbox"]']], value: "{{email}}", timeout: 1_000 };
    const result = await rehearse({ flow, checkpoints: SIGNUP_CHECKPOINTS, stepTimeoutMs: 15_000 });

    expect(result.overall).toBe("failed");
    expect(result.policy_violation).toBeUndefined();
    expect(byId(result, "rehearsal:s2")?.result).toBe("passed");
    const failed = byId(result, "rehearsal:s3");
    expect(failed?.result).toBe("failed");
    expect(failed?.details).toBe('none of the 2 selector alternatives found the element within 1 s: 1 #nope, 2 aria/No such field[role="textbox"]');
    const after = result.steps.slice(result.steps.indexOf(failed as NonNullable<typeof failed>) + 1);
    expect(after.map((step) => step.test_case_id)).toEqual([
      "checkpoint:cp-02",
      "rehearsal:s4",
      "rehearsal:s5",
      "rehearsal:s6",
      "checkpoint:cp-03",
      "rehearsal:s7",
      "checkpoint:cp-04",
    ]);
    expect(after.every((step) => step.result === "skipped" && step.details.includes("s3 failed"))).toBe(true);
  });

  it("fails a step whose parameter has no test value, with the reason, and types nothing", async () => {
    const requestsBefore = site.requests.length;
    const { password: _omitted, ...withoutPassword } = TEST_VALUES;
    const result = await rehearse({ flow: signupFlow(site.origin), checkpoints: SIGNUP_CHECKPOINTS, testValues: withoutPassword });

    expect(result.overall).toBe("failed");
    const failed = byId(result, "rehearsal:s4");
    expect(failed?.result).toBe("failed");
    expect(failed?.details).toContain("no test value for {{password}}");
    expect(failed?.details).toContain("nothing was typed");
    expect(byId(result, "rehearsal:s6")?.result).toBe("skipped");
    expect(site.requests.slice(requestsBefore).some((request) => request.method === "POST")).toBe(false);
  });

  it("stops before the final committing step in dry_run_only, and skips it and its checkpoint", async () => {
    const requestsBefore = site.requests.length;
    const full = signupFlow(site.origin);
    const flow: RecorderFlow = { ...full, steps: full.steps.slice(0, 7), step_ids: full.step_ids.slice(0, 7) };
    const result = await rehearse({ flow, checkpoints: SIGNUP_CHECKPOINTS.slice(0, 3), policy: policy({ mode: "dry_run_only" }) });

    expect(byId(result, "rehearsal:s5")?.result).toBe("passed");
    expect(byId(result, "rehearsal:s6")).toMatchObject({ result: "skipped", details: "dry run: final committing step not performed" });
    expect(byId(result, "checkpoint:cp-02")?.result).toBe("passed");
    expect(byId(result, "checkpoint:cp-03")).toMatchObject({ result: "skipped", details: "not checked: dry run: the final committing step was not performed" });
    expect(result.overall).toBe("partial");
    expect(site.requests.slice(requestsBefore).some((request) => request.method === "POST")).toBe(false);
  });

  it("stops at max_actions with TEST_POLICY_VIOLATION", async () => {
    const result = await rehearse({ flow: signupFlow(site.origin), checkpoints: SIGNUP_CHECKPOINTS, policy: policy({ max_actions: 3 }) });

    expect(result.overall).toBe("failed");
    expect(result.policy_violation).toEqual({
      code: "TEST_POLICY_VIOLATION",
      message: "the test policy allows at most 3 actions (max_actions); this step would be action 4",
    });
    expect(byId(result, "rehearsal:s3")?.result).toBe("passed");
    expect(byId(result, "rehearsal:s4")).toMatchObject({
      result: "failed",
      details: "test policy: the test policy allows at most 3 actions (max_actions); this step would be action 4",
    });
    expect(byId(result, "rehearsal:s5")).toMatchObject({ result: "skipped", details: "not run: the test policy was breached" });
  });

  it("skips a free-text checkpoint for a person to confirm, so the run is partial rather than passed", async () => {
    const full = signupFlow(site.origin);
    const flow: RecorderFlow = { ...full, steps: full.steps.slice(0, 4), step_ids: full.step_ids.slice(0, 4) };
    const checkpoints: RehearsalCheckpoint[] = [
      { checkpoint_id: "cp-02", goal: "Details entered", success_condition: "The shop emails a confirmation link", step_ids: ["s3"] },
    ];
    const result = await rehearse({ flow, checkpoints });

    expect(byId(result, "checkpoint:cp-02")).toMatchObject({
      result: "skipped",
      details: 'not machine-checkable; confirm by hand: "The shop emails a confirmation link"',
    });
    expect(result.overall).toBe("partial");
  });

  it("keeps every test value out of what it reports, even one the page shows back (issue #35: step details and receipts are stored)", async () => {
    const flow: RecorderFlow = {
      title: "Set my nickname",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/account.html` },
        { type: "change", selectors: [['aria/Nickname[role="textbox"]']], value: "{{nickname}}" },
      ],
      step_ids: [null, null, "s2"],
    };
    const checkpoints: RehearsalCheckpoint[] = [
      { checkpoint_id: "cp-02", goal: "Greeted", success_condition: 'The heading "Goodbye" appears', step_ids: ["s2"] },
    ];
    const result = await rehearse({
      flow,
      checkpoints,
      parameters: [...PARAMETERS, { name: "nickname", type_hint: "text" }],
      testValues: { ...TEST_VALUES, nickname: "Validation Nemo" },
    });
    expect(byId(result, "checkpoint:cp-02")?.details).toBe('expected a heading "Goodbye"; headings on the page: "Your account", "Hello, •••"');
    expect(JSON.stringify(result)).not.toContain("Validation Nemo");
  });

  it("leaves a checkpoint the person chose to confirm by hand to them, even one the page would fail (issue #35)", async () => {
    const full = signupFlow(site.origin);
    const flow: RecorderFlow = { ...full, steps: full.steps.slice(0, 4), step_ids: full.step_ids.slice(0, 4) };
    const checkpoint = { checkpoint_id: "cp-02", goal: "Details entered", success_condition: 'The page says "Welcome aboard, never shown"', step_ids: ["s3"] };
    const checked = await rehearse({ flow, checkpoints: [checkpoint] });
    expect(byId(checked, "checkpoint:cp-02")?.result).toBe("failed");
    const byPerson = await rehearse({
      flow,
      checkpoints: [{ ...checkpoint, verification: { by: "person", reason: "You chose to confirm this yourself at each run." } }],
    });
    expect(byId(byPerson, "checkpoint:cp-02")).toMatchObject({ result: "skipped", details: expect.stringContaining("confirm by hand") });
    expect(byPerson.overall).toBe("partial");
  });

  it("fails with the reason when the whole-run time limit is reached, and still closes the browser", async () => {
    const temp = await profileParent();
    const flow: RecorderFlow = {
      title: "Wait forever",
      steps: [VIEWPORT, { type: "navigate", url: `${site.origin}/signup.html` }, { type: "click", selectors: [["#never-there"]], offsetX: 1, offsetY: 1 }],
      step_ids: [null, null, "s2"],
    };
    const started = Date.now();
    const result = await rehearse({ flow, stepTimeoutMs: 30_000, timeoutMs: 6_000, tempDir: temp.dir });

    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.overall).toBe("failed");
    // On a loaded machine the limit may already bite while the page opens: whichever step it was, it says so.
    const failed = result.steps.filter((step) => step.result === "failed");
    expect(failed).toEqual([expect.objectContaining({ details: "the rehearsal ran out of time (6 s limit)" })]);
    expect(await temp.profiles()).toEqual([]);
    await rm(temp.dir, { recursive: true });
  });
});

describe("rehearsal without a browser", () => {
  it("is partial with one skipped step, never passed, when Chromium is missing", async () => {
    const flow = signupFlow("http://127.0.0.1:9");
    // Test values are cut out of everything reported: "Pro" would cut "profile" out of the label.
    const result = await runRehearsal({
      flow,
      checkpoints: SIGNUP_CHECKPOINTS,
      parameters: PARAMETERS,
      testValues: { ...TEST_VALUES, plan: "Business" },
      policy: policy(),
      chromiumPath: "/nonexistent/chromium",
    });

    expect(result.overall).toBe("partial");
    expect(result.steps).toEqual([
      {
        test_case_id: "rehearsal:browser",
        label: "Start a fresh headless Chromium profile",
        result: "skipped",
        details: "No Chromium at /nonexistent/chromium: install Debian's chromium package (or set the agent's Chromium path). The flow was not replayed.",
      },
    ]);
  });

  it("is partial, not passed, when the browser cannot start", async () => {
    // A file that exists but is no browser.
    const result = await runRehearsal({
      flow: signupFlow("http://127.0.0.1:9"),
      checkpoints: [],
      parameters: PARAMETERS,
      testValues: TEST_VALUES,
      policy: policy(),
      chromiumPath: "/bin/false",
      timeoutMs: 10_000,
    });

    expect(result.overall).toBe("partial");
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0]).toMatchObject({ test_case_id: "rehearsal:browser", result: "skipped" });
    expect(result.steps[0]?.details).toContain("Chromium at /bin/false could not start");
  });

  it("fails a flow that is not a Recorder flow, without starting anything", async () => {
    const flow = { title: "Broken", steps: [{ type: "click" }], step_ids: [null] } as unknown as RecorderFlow;
    const result = await runRehearsal({ flow, checkpoints: [], parameters: [], testValues: {}, policy: policy(), chromiumPath: "/nonexistent/chromium" });

    expect(result.overall).toBe("failed");
    expect(result.steps[0]).toMatchObject({ test_case_id: "rehearsal:flow", result: "failed" });
  });

  it("reads allowed_domains as hosts with their subdomains, or one port when a port is given", () => {
    const url = (text: string) => new URL(text);
    expect(hostAllowed(url("https://shop.example.com/cart"), ["example.com"])).toBe(true);
    expect(hostAllowed(url("https://example.com.evil.test/"), ["example.com"])).toBe(false);
    expect(hostAllowed(url("http://127.0.0.1:8123/"), ["127.0.0.1:8123"])).toBe(true);
    expect(hostAllowed(url("http://127.0.0.1:8124/"), ["127.0.0.1:8123"])).toBe(false);
    expect(hostAllowed(url("http://localhost:8123/"), ["127.0.0.1"])).toBe(false);
    expect(hostAllowed(url("https://a.example.com/"), ["*.example.com"])).toBe(true);
    expect(hostAllowed(url("https://example.com/"), [])).toBe(false);
  });

  it("translates Recorder selectors to Puppeteer's, quoting names with brackets and quotes", () => {
    expect(toPuppeteerSelector('aria/Save (draft)[role="button"]')).toBe('::-p-aria("Save (draft)[role=\\"button\\"]")');
    expect(toPuppeteerSelector("text/Sign up")).toBe('::-p-text("Sign up")');
    expect(toPuppeteerSelector('xpath//html/body/div[1]/button[@id="x"]')).toBe('::-p-xpath("/html/body/div[1]/button[@id=\\"x\\"]")');
    expect(toPuppeteerSelector("#email")).toBe("#email");
  });
});
