import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRehearsalSite, type RehearsalSite } from "../../e2e/rehearsal-fixtures/server";
import { PageSeenSchema } from "../../shared/execution/run-contract";
import type { RecorderFlow } from "../../shared/execution/recorder-flow";
import { execute } from "./executor";
import type { ExecuteInput, ExecutionCheckpoint, ExecutionProgress } from "./contract/executor-contract";
import { managedBrowser } from "./managed-browser";
import {
  CHROMIUM,
  SAVE_STALE,
  SIGNUP_CHECKPOINTS,
  VALUES,
  VIEWPORT,
  byId,
  closeShop,
  executeIn,
  ids,
  openShop,
  policy,
  postsSince,
  signupFlow,
} from "../test-support/executor-harness";
import { shareChromiumInFile } from "../test-support/shared-chromium";

/** The executions of this file run in one Chromium started for it, each in a fresh context (`shared-chromium.ts`). */
const chromium = shareChromiumInFile();

/**
 * The executor in a real headless Chromium: checkpoints that do not hold, step waits, addresses with
 * inputs, failed steps and cancellation. Asking the person before a step: `executor-confirmation.test.ts`.
 */

describe("the executor in a real headless Chromium", () => {
  let site: RehearsalSite;
  let temp: string;
  const posts = (from: number) => postsSince(site, from);
  const run = (input: Partial<ExecuteInput> & Pick<ExecuteInput, "flow">) => executeIn(temp, { browser: chromium, ...input });

  beforeAll(async () => {
    ({ site, temp } = await openShop());
  });
  afterAll(async () => {
    await closeShop({ site, temp });
  });

  it("stops at the first checkpoint that does not hold, says what the page shows, and reports no input value anywhere", async () => {
    const before = site.requests.length;
    const events: ExecutionProgress[] = [];
    const screenshotPath = path.join(temp, `${randomUUID()}.png`);
    const flow: RecorderFlow = {
      title: "Set my nickname",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/account.html?who=Captain%20Nemo` },
        { type: "change", selectors: [['aria/Nickname[role="textbox"]']], value: "{{nickname}}" },
        { type: "change", selectors: [["#pin"]], value: "{{pin}}" },
        { type: "click", selectors: SAVE_STALE, offsetX: 1, offsetY: 1 },
      ],
      step_ids: [null, null, "s2", "s3", "s4"],
    };
    const checkpoints: ExecutionCheckpoint[] = [
      { checkpoint_id: "cp-02", goal: "Greeted as {{nickname}}", success_condition: 'The heading "Goodbye" appears', step_ids: ["s2", "s3"] },
      { checkpoint_id: "cp-04", goal: "Saved", success_condition: 'The page says "Saved"', step_ids: ["s4"] },
    ];
    const result = await run({ flow, checkpoints, confirm: async () => true, onProgress: (event) => events.push(event), screenshotPath });

    expect(ids(result)).toEqual([
      ["step:setup-1", "passed"],
      ["step:setup-2", "passed"],
      ["step:s2", "passed"],
      ["step:s3", "passed"],
      ["checkpoint:cp-02", "failed"],
      ["step:s4", "skipped"],
      ["checkpoint:cp-04", "skipped"],
    ]);
    expect(result.overall).toBe("failed");
    expect(byId(result, "step:s4")?.details).toBe("not run: checkpoint cp-02 did not hold");
    expect(posts(before)).toEqual([]);
    // What the page showed, the typed nickname scrubbed out of its heading and its address.
    expect(PageSeenSchema.parse(result.page_seen)).toEqual({
      url: `${site.origin}/account.html?who=•••`,
      title: "Account — Rehearsal Shop",
      headings: ["Your account", "Hello, •••"],
      buttons: ["Save as draft", "Delete my account", "Remove all drafts", "Sign up"],
      screenshot_ref: path.basename(screenshotPath),
    });
    const png = await readFile(screenshotPath);
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    // The evidence names the page's headings, the typed one scrubbed.
    expect(byId(result, "checkpoint:cp-02")?.details).toBe('expected a heading "Goodbye"; headings on the page: "Your account", "Hello, •••"');
    // Progress came as it happened, one event per result, in order.
    expect(events.map((event) => (event.kind === "step" ? `step:${event.step_id}` : `checkpoint:${event.checkpoint_id}`))).toEqual(
      result.steps.map((step) => step.test_case_id),
    );
    expect(events.find((event) => event.kind === "checkpoint")).toMatchObject({ checkpoint_id: "cp-02", status: "failed" });
    for (const text of [JSON.stringify(result), JSON.stringify(events)]) {
      for (const value of ["Captain Nemo", "Captain%20Nemo", "p1n-9876"]) expect(text).not.toContain(value);
    }
  });

  it("without anyone to ask (a rehearsal), reports a checkpoint that does not hold and goes on, as the rehearsal always has", async () => {
    const before = site.requests.length;
    const checkpoints: ExecutionCheckpoint[] = [
      { ...(SIGNUP_CHECKPOINTS[0] as ExecutionCheckpoint), success_condition: 'The page says "Email rejected"' },
      SIGNUP_CHECKPOINTS[1] as ExecutionCheckpoint,
    ];
    // Each step waits as long as a loaded machine needs (a step that ran out of time would stop the replay and skip the
    // checkpoints after it); a checkpoint keeps the run's 1 s, so the one that does not hold fails in that time.
    const flow = signupFlow(site.origin);
    flow.steps = flow.steps.map((step) => ({ ...step, timeout: 15_000 }));
    const result = await run({ flow, checkpoints, stepTimeoutMs: 1_000, policy: policy({ mode: "controlled_live_test" }) });

    expect(byId(result, "checkpoint:cp-02")?.result).toBe("failed");
    expect(byId(result, "step:s6")?.result).toBe("passed");
    expect(byId(result, "checkpoint:cp-03")?.result).toBe("passed");
    expect(result.page_seen).toBeUndefined();
    expect(posts(before)).toEqual(["/signup"]);
  });

  it("waits for a step's element as long as the step's own Recorder timeout says, and only the run's step wait without one", async () => {
    const lateFlow = (timeout?: number): RecorderFlow => ({
      title: "Load the orders",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/late.html` },
        { type: "click", selectors: [["#load-orders"]], offsetX: 1, offsetY: 1, ...(timeout === undefined ? {} : { timeout }) },
      ],
      step_ids: [null, null, "s1"],
    });
    const checkpoints: ExecutionCheckpoint[] = [
      { checkpoint_id: "cp-01", goal: "Orders shown", success_condition: 'The page says "Orders loaded"', step_ids: ["s1"] },
    ];

    // The button appears 3 s after load: the run's 1 s step wait misses it.
    const short = await run({ flow: lateFlow(), checkpoints, stepTimeoutMs: 1_000 });
    expect(byId(short, "step:s1")).toMatchObject({
      result: "failed",
      details: "none of the 1 selector alternatives found the element within 1 s: 1 #load-orders",
    });

    // The same run's wait, with the step's own 8 s: it waits for the button and the checkpoint holds.
    const waited = await run({ flow: lateFlow(8_000), checkpoints, stepTimeoutMs: 1_000 });
    expect(byId(waited, "step:s1")).toMatchObject({ result: "passed" });
    expect(byId(waited, "checkpoint:cp-01")).toMatchObject({ result: "passed" });
    expect(waited.overall).toBe("passed");
  }, 30_000);

  it("opens an address with the run's inputs where the recorded one had typed values, encoded, and opens nothing without them (issue #35)", async () => {
    const before = site.requests.length;
    const flow: RecorderFlow = {
      title: "Open the page",
      steps: [VIEWPORT, { type: "navigate", url: `${site.origin}/signup.html?plan={{plan}}&who={{nickname}}&do=edit` }],
      step_ids: [null, "s1"],
    };
    const result = await run({ flow });
    expect(byId(result, "step:s1")?.result).toBe("passed");
    expect(site.requests.slice(before).find((request) => request.path === "/signup.html")?.search).toBe("?plan=Pro&who=Captain%20Nemo&do=edit");

    const without = site.requests.length;
    const missing = await run({ flow, values: { ...VALUES, nickname: undefined as unknown as string } });
    expect(byId(missing, "step:s1")).toMatchObject({ result: "failed", details: expect.stringContaining("no value for {{nickname}}") });
    expect(site.requests.slice(without).filter((request) => request.path === "/signup.html")).toEqual([]);
  });

  it("says what the page shows when a step fails, and runs nothing after it", async () => {
    const before = site.requests.length;
    const flow = signupFlow(site.origin);
    // The missing field's own 1 s wait; the steps before it have the run's, which a loaded machine meets.
    flow.steps[4] = { type: "change", selectors: [["#old-password"]], value: "{{password}}", timeout: 1_000 };
    const result = await run({ flow, checkpoints: SIGNUP_CHECKPOINTS, stepTimeoutMs: 15_000, confirm: async () => true });

    expect(byId(result, "step:s4")).toMatchObject({
      result: "failed",
      details: "none of the 1 selector alternatives found the element within 1 s: 1 #old-password",
    });
    expect(byId(result, "step:s6")).toMatchObject({ result: "skipped", details: "not run: s4 failed" });
    expect(result.stopped).toBeUndefined();
    expect(result.page_seen).toMatchObject({ url: `${site.origin}/signup.html`, title: "Sign up — Rehearsal Shop", headings: ["Create your account"] });
    expect(posts(before)).toEqual([]);
  });

  it("stops at once when cancelled mid-step: the step is abandoned and nothing after it runs", async () => {
    const before = site.requests.length;
    const flow = signupFlow(site.origin);
    flow.steps[3] = { type: "change", selectors: [["#never-there"]], value: "{{email}}" };
    const controller = new AbortController();
    let abortedAt = 0;
    const events: ExecutionProgress[] = [];
    let abandonedAt = 0;
    const onProgress = (event: ExecutionProgress) => {
      events.push(event);
      if (event.kind === "step" && event.step_id === "s3") abandonedAt = Date.now();
      if (event.kind === "step" && event.step_id === "s2") {
        setTimeout(() => {
          abortedAt = Date.now();
          controller.abort();
        }, 500);
      }
    };
    const result = await run({
      flow,
      checkpoints: SIGNUP_CHECKPOINTS,
      stepTimeoutMs: 30_000,
      signal: controller.signal,
      confirm: async () => true,
      onProgress,
    });
    const stoppedWithin = Date.now() - abortedAt;

    expect(abortedAt).toBeGreaterThan(0);
    // The step (waiting up to 30 s for its element) is given up at once; closing the browser follows.
    expect(abandonedAt - abortedAt).toBeLessThan(3_000);
    expect(stoppedWithin).toBeLessThan(10_000);
    expect(result.stopped).toBe("cancelled");
    expect(byId(result, "step:s3")).toMatchObject({ result: "skipped", details: "abandoned: cancelled while it ran" });
    expect(result.steps.slice(result.steps.findIndex((step) => step.test_case_id === "step:s3") + 1).map((step) => [step.test_case_id, step.details])).toEqual([
      ["checkpoint:cp-02", "not checked: cancelled"],
      ["step:s4", "not run: cancelled"],
      ["step:s5", "not run: cancelled"],
      ["step:s6", "not run: cancelled"],
      ["checkpoint:cp-03", "not checked: cancelled"],
    ]);
    expect(result.page_seen?.title).toBe("Sign up — Rehearsal Shop");
    expect(posts(before)).toEqual([]);
    expect(events).toHaveLength(result.steps.length);
  });

  it("stops at once when cancelled while waiting for the person's answer, and does not do the step", async () => {
    const before = site.requests.length;
    const controller = new AbortController();
    const result = await run({
      flow: signupFlow(site.origin),
      signal: controller.signal,
      confirm: () => {
        setTimeout(() => controller.abort(), 300);
        return new Promise<boolean>(() => undefined);
      },
    });

    expect(result.stopped).toBe("cancelled");
    expect(byId(result, "step:s6")).toMatchObject({ result: "skipped", details: "not run: cancelled while waiting for confirmation" });
    expect(posts(before)).toEqual([]);
  });

  it("does nothing when cancelled before it starts", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run({ flow: signupFlow(site.origin), checkpoints: SIGNUP_CHECKPOINTS, signal: controller.signal });

    expect(result.stopped).toBe("cancelled");
    expect(result.steps.every((step) => step.result === "skipped")).toBe(true);
    expect(result.steps).toHaveLength(9);
  });
});

describe("the rehearsal on an app whose list loads late and re-renders", () => {
  let site: RehearsalSite;
  let temp: string;

  beforeAll(async () => {
    // The tasks come 800 ms after the page's load; each change re-renders the list one item at a time.
    site = await serveRehearsalSite({ slow: { "/tasks-data.html": 800 } });
    temp = await mkdtemp(path.join(tmpdir(), "elnor-executor-settle-"));
  });
  afterAll(async () => {
    await site.close();
    await rm(temp, { recursive: true, force: true });
  });

  it("counts the list before the steps once it has loaded, and tells the change once the re-render is done", async () => {
    const flow: RecorderFlow = {
      title: "Add a task",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/tasks.html` },
        { type: "change", selectors: [['aria/New task[role="textbox"]'], ["#new-task"]], value: "{{task}}" },
        { type: "click", selectors: [['aria/Add task[role="button"]'], ["#add"]], offsetX: 1, offsetY: 1 },
      ],
      step_ids: [null, null, "s1", "s2"],
    };
    const checkpoints: ExecutionCheckpoint[] = [
      { checkpoint_id: "cp-01", goal: "A task is added", success_condition: 'The "Tasks" list has 1 item more', step_ids: ["s1", "s2"] },
      // Half-way through the re-render the list has 2 items: one fewer than before, by chance only.
      { checkpoint_id: "cp-02", goal: "A task is removed", success_condition: 'The "Tasks" list has 1 item fewer', step_ids: ["s1", "s2"] },
    ];
    const result = await execute({
      flow,
      checkpoints,
      parameters: [{ name: "task", type_hint: "text" }],
      values: { task: "Book the dentist" },
      policy: policy(),
      browser: managedBrowser({ chromiumPath: CHROMIUM, tempDir: temp }),
      stepTimeoutMs: 3_000,
      timeoutMs: 45_000,
    });
    expect(byId(result, "step:s2")?.result).toBe("passed");
    expect(byId(result, "checkpoint:cp-01")).toMatchObject({ result: "passed", details: 'the "Tasks" list went from 3 to 4 items' });
    expect(byId(result, "checkpoint:cp-02")).toMatchObject({ result: "failed", details: expect.stringContaining("item counts before [3], now [4]") });
  }, 30_000);
});

describe("a flow with nothing to do in a browser", () => {
  it("gets no browser at all (a desktop routine's validation starts no Chromium) and says why its checkpoints were not checked", async () => {
    let leased = 0;
    const browser: ExecuteInput["browser"] = async () => {
      leased += 1;
      throw new Error("no browser should be asked for");
    };
    const result = await execute({
      flow: { title: "Deploy", steps: [VIEWPORT], step_ids: [null] },
      checkpoints: [{ checkpoint_id: "cp1", goal: "git push ran", success_condition: "`git push` ran and exited with code 0", step_ids: ["s1"] }],
      parameters: [],
      values: {},
      policy: policy(),
      browser,
    });

    expect(leased).toBe(0);
    expect(result.overall).toBe("partial");
    expect(result.steps.find((step) => step.test_case_id === "checkpoint:cp1")).toMatchObject({
      result: "skipped",
      details: 'not machine-checkable; confirm by hand: "`git push` ran and exited with code 0" (nothing in this flow acts in a browser)',
    });
    // A terminal routine has no viewport: its report lists its checkpoints, not the Recorder's set-up.
    expect(result.steps.map((step) => step.test_case_id)).toEqual(["checkpoint:cp1"]);
    expect(JSON.stringify(result.steps)).not.toMatch(/viewport/i);
  });
});
