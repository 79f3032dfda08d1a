import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RehearsalSite } from "../../e2e/rehearsal-fixtures/server";
import type { RecorderFlow } from "../../shared/execution/recorder-flow";
import type { ConfirmationRequest, ExecuteInput, ExecutionCheckpoint } from "./contract/executor-contract";
import {
  SAVE_STALE,
  SIGNUP_CHECKPOINTS,
  VIEWPORT,
  byId,
  closeShop,
  executeIn,
  openShop,
  policy,
  postsSince,
  signupFlow,
} from "../test-support/executor-harness";
import { shareChromiumInFile } from "../test-support/shared-chromium";

/** The executions of this file run in one Chromium started for it, each in a fresh context (`shared-chromium.ts`). */
const chromium = shareChromiumInFile();

/**
 * The executor asks the person before a step with consequences (a committing submit, a marked step, a
 * destructive control, the page's own "Are you sure?") and never does it declined. Checkpoints, step
 * waits and cancellation: `executor.test.ts`.
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

  it("asks before the committing submit and, declined, never sends it: the rest is skipped and the page seen is kept", async () => {
    const before = site.requests.length;
    const asked: ConfirmationRequest[] = [];
    const result = await run({ flow: signupFlow(site.origin), checkpoints: SIGNUP_CHECKPOINTS, confirm: async (request) => (asked.push(request), false) });

    // Issue #33: with the page's site and whether it deletes or pays, for a standing grant's terms.
    expect(asked).toEqual([
      {
        step_id: "s6",
        step_label: 'Click "Create account (free)" (button)',
        reason: "committing_submit",
        site_host: new URL(site.origin).host,
        consequence_classes: [],
      },
    ]);
    expect(posts(before)).toEqual([]);
    expect(result.stopped).toBe("declined");
    expect(result.overall).toBe("partial");
    expect(byId(result, "step:s5")?.result).toBe("passed");
    expect(byId(result, "step:s6")).toMatchObject({ result: "skipped", details: "not performed: the person declined this step" });
    expect(byId(result, "checkpoint:cp-03")).toMatchObject({ result: "skipped", details: "not checked: s6 was declined" });
    expect(result.checkpoints?.map((checkpoint) => checkpoint.status)).toEqual(["reached", "skipped"]);
    expect(result.page_seen).toMatchObject({ title: "Sign up — Rehearsal Shop", headings: ["Create your account"] });
    expect(result.page_seen?.buttons).toContain("Create account (free)");
  });

  it("does the committing submit once the person confirms, and proves its checkpoint", async () => {
    const before = site.requests.length;
    const asked: ConfirmationRequest[] = [];
    const result = await run({ flow: signupFlow(site.origin), checkpoints: SIGNUP_CHECKPOINTS, confirm: async (request) => (asked.push(request), true) });

    expect(asked.map((request) => request.reason)).toEqual(["committing_submit"]);
    expect(posts(before)).toEqual(["/signup"]);
    expect(result.overall).toBe("passed");
    expect(result.stopped).toBeUndefined();
    expect(result.page_seen).toBeUndefined();
    expect(result.checkpoints).toEqual([
      { checkpoint_id: "cp-02", goal: "Details entered", status: "reached", evidence: 'found status "Email looks good"' },
      { checkpoint_id: "cp-03", goal: "The account is created", status: "reached", evidence: 'found heading "Welcome aboard"' },
    ]);
  });

  it("does not count the time the person takes to answer against the execution's time limit", async () => {
    const before = site.requests.length;
    const result = await run({
      flow: signupFlow(site.origin),
      timeoutMs: 8_000,
      confirm: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 8_500)),
    });

    expect(byId(result, "step:s6")?.result).toBe("passed");
    expect(result.overall).toBe("passed");
    expect(posts(before)).toEqual(["/signup"]);
  });

  it("under dry_run_only leaves the committing step out without asking, as the rehearsal does", async () => {
    const before = site.requests.length;
    let asked = 0;
    const result = await run({
      flow: signupFlow(site.origin),
      checkpoints: SIGNUP_CHECKPOINTS,
      policy: policy({ mode: "dry_run_only" }),
      confirm: async () => ((asked += 1), true),
    });

    expect(asked).toBe(0);
    expect(posts(before)).toEqual([]);
    expect(byId(result, "step:s6")).toMatchObject({ result: "skipped", details: "dry run: final committing step not performed" });
  });

  it("asks about a marked step and a destructive button too, and reports a target it relocated", async () => {
    const before = site.requests.length;
    const asked: ConfirmationRequest[] = [];
    const flow: RecorderFlow = {
      title: "Tidy my account",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/account.html` },
        { type: "change", selectors: [['aria/Nickname[role="textbox"]']], value: "{{nickname}}", confirm: true },
        { type: "click", selectors: [['aria/Delete my account[role="button"]']], offsetX: 1, offsetY: 1 },
        { type: "click", selectors: SAVE_STALE, offsetX: 1, offsetY: 1 },
      ],
      step_ids: [null, null, "s2", "s3", "s4"],
    };
    const checkpoints: ExecutionCheckpoint[] = [{ checkpoint_id: "cp-04", goal: "Saved", success_condition: 'The page says "Saved"', step_ids: ["s4"] }];
    const result = await run({ flow, checkpoints, confirm: async (request) => (asked.push(request), true) });

    expect(asked.map((request) => [request.step_id, request.reason])).toEqual([
      ["s2", "marked"],
      ["s3", "destructive"],
      ["s4", "committing_submit"],
    ]);
    expect(result.overall).toBe("passed");
    expect(posts(before)).toEqual(["/delete", "/save"]);
    expect(byId(result, "step:s4")?.relocated).toEqual({ from: '"Save draft" (button)', to: '"Save as draft" (button)' });
    expect(byId(result, "step:s4")?.details).toContain("relocated by similarity");
    expect(byId(result, "step:s3")?.relocated).toBeUndefined();
  });

  it("asks about a click whose element turns out to be destructive though its selectors did not say so", async () => {
    const flow: RecorderFlow = {
      title: "Leave the shop",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/account.html` },
        { type: "click", selectors: [["#delete-account"]], offsetX: 1, offsetY: 1 },
        { type: "click", selectors: [['aria/Sign up[role="link"]']], offsetX: 1, offsetY: 1 },
      ],
      step_ids: [null, null, "s2", "s3"],
    };
    for (const answer of [false, true]) {
      const before = site.requests.length;
      const asked: ConfirmationRequest[] = [];
      const result = await run({ flow, timeoutMs: 30_000, confirm: async (request) => (asked.push(request), answer) });

      expect(asked[0]).toEqual({
        step_id: "s2",
        step_label: 'Click #delete-account ("Delete my account" (button))',
        reason: "destructive",
        site_host: new URL(site.origin).host,
        consequence_classes: ["deletes"],
      });
      if (answer) {
        expect(asked.map((request) => request.reason)).toEqual(["destructive", "committing_submit"]);
        expect(posts(before)).toEqual(["/delete"]);
        expect(result.overall).toBe("passed");
      } else {
        expect(asked).toHaveLength(1);
        expect(posts(before)).toEqual([]);
        expect(result.stopped).toBe("declined");
        expect(byId(result, "step:s2")).toMatchObject({ result: "skipped", details: "not performed: the person declined this step" });
        expect(byId(result, "step:s3")).toMatchObject({ result: "skipped", details: "not run: s2 was declined" });
      }
    }
  });

  it('accepts the page\'s own "Are you sure?" for a step the person confirmed, and dismisses it otherwise', async () => {
    const flow: RecorderFlow = {
      title: "Clear my drafts",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/account.html` },
        { type: "click", selectors: [['aria/Remove all drafts[role="button"]']], offsetX: 1, offsetY: 1 },
      ],
      step_ids: [null, null, "s2"],
    };
    const checkpoints: ExecutionCheckpoint[] = [
      { checkpoint_id: "cp-02", goal: "Drafts removed", success_condition: 'The page says "Drafts removed"', step_ids: ["s2"] },
    ];

    const before = site.requests.length;
    const confirmed = await run({ flow, checkpoints, confirm: async () => true });
    expect(posts(before)).toEqual(["/remove-drafts"]);
    expect(byId(confirmed, "step:s2")?.details).toContain('the page asked (confirm) "Remove all drafts?": accepted, as the person confirmed this step');
    expect(confirmed.overall).toBe("passed");

    const unattended = site.requests.length;
    const rehearsed = await run({ flow, checkpoints });
    expect(posts(unattended)).toEqual([]);
    expect(byId(rehearsed, "step:s2")?.details).toContain("dismissed under the test policy");
    expect(byId(rehearsed, "checkpoint:cp-02")?.result).toBe("failed");
  });
});
