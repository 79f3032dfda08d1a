import { describe, expect, it } from "vitest";
import { PracticeSetupSchema } from "../../../shared/learning/sessions/practice";
import { TestPolicySchema } from "../../../shared/learning/sessions/test-policy";
import type { ExecuteInput, ExecuteResult } from "../../execution/contract/executor-contract";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import { practise } from "./practice-driver";

/**
 * The driver's rounds and repairs, with a scripted page in place of the browser: the page thanks
 * the person by the name they typed, so a checkpoint written with one name holds for that name
 * only. The executor itself is tested in agent/execution and, with practice, in e2e/improve/practice.
 */
const flow: RecorderFlow = {
  title: "Send a message",
  steps: [
    { type: "setViewport", width: 1280, height: 800, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: true },
    { type: "navigate", url: "http://shop.test/contact" },
    { type: "change", selectors: [["#name"]], value: "{{name}}" },
    { type: "click", selectors: [["#send"]], offsetX: 1, offsetY: 1 },
  ],
  step_ids: [null, null, "s-02", "s-03"],
};
const checkpoint = {
  checkpoint_id: "cp-01",
  goal: "The message is sent",
  success_condition: 'The page says "Thanks, Alice, your message is sent"',
  step_ids: ["s-03"],
};
const policy = TestPolicySchema.parse({
  policy_id: "00000000-0000-4000-8000-000000000001",
  mode: "live_read_safe_write",
  allowed_domains: ["shop.test"],
  schema_version: 1,
});

function scriptedPage(calls: ExecuteInput[]) {
  return async (input: ExecuteInput): Promise<ExecuteResult> => {
    calls.push(input);
    const page = `Thanks, ${input.values.name ?? ""}, your message is sent`;
    const checks = input.checkpoints.map((candidate) => {
      const text = /"(.*)"/.exec(candidate.success_condition)?.[1] ?? "";
      const held = page.includes(text);
      return {
        test_case_id: `checkpoint:${candidate.checkpoint_id}`,
        label: candidate.goal,
        result: held ? ("passed" as const) : ("failed" as const),
        details: held ? "found" : "not found",
      };
    });
    const at = new Date().toISOString();
    return {
      overall: checks.every((check) => check.result === "passed") ? "passed" : "failed",
      steps: [{ test_case_id: "step:s-03", label: "Click 'Send'", result: "passed", details: "clicked" }, ...checks],
      started_at: at,
      completed_at: at,
    };
  };
}

describe("practise", () => {
  it("generalises a checkpoint that held for one input set only, and confirms it in one more round", async () => {
    const calls: ExecuteInput[] = [];
    const setup = PracticeSetupSchema.parse({ practise: { ability_id: "learned.send" }, rounds: 2, input_sets: [{ name: "Alice" }, { name: "Bob" }] });
    const result = await practise({
      plan: { flow, checkpoints: [checkpoint], parameters: [{ name: "name", type_hint: "text" }] },
      setup,
      policy,
      execute: scriptedPage(calls),
    });
    expect(result.status, result.message).toBe("repaired");
    expect(result.rounds.map((round) => [round.round, round.input_set, round.viewport.width, round.overall])).toEqual([
      [1, 1, 1280, "passed"],
      [2, 2, 390, "failed"],
      [3, 1, 1280, "passed"],
    ]);
    expect(result.repairs).toEqual([
      expect.objectContaining({ kind: "checkpoint_input_specific", subject: "checkpoint:cp-01", made_in_round: 2, confirmed_in_round: 3 }),
    ]);
    expect(result.plan.checkpoints[0]?.success_condition).toBe('The page says "your message is sent"');
    // Each round is played in its own window size; nothing the practice reports holds an input value.
    expect(calls.map((call) => call.flow.steps[0])).toMatchObject([{ width: 1280 }, { width: 390, isMobile: true }, { width: 1280 }]);
    expect(JSON.stringify({ rounds: result.rounds, repairs: result.repairs })).not.toMatch(/Alice|Bob/);
  });

  it("says there is nothing to repair when every round passes, and plays no extra round", async () => {
    const calls: ExecuteInput[] = [];
    const setup = PracticeSetupSchema.parse({ practise: { ability_id: "learned.send" }, rounds: 2, input_sets: [{ name: "Alice" }] });
    const result = await practise({ plan: { flow, checkpoints: [checkpoint], parameters: [] }, setup, policy, execute: scriptedPage(calls) });
    expect(result.status).toBe("nothing_to_repair");
    expect(calls).toHaveLength(2);
  });

  it("does not play a round whose flow opens a site the policy does not allow, or takes more actions than it allows", async () => {
    const calls: ExecuteInput[] = [];
    const setup = PracticeSetupSchema.parse({ practise: { ability_id: "learned.send" }, rounds: 3 });
    const elsewhere = await practise({
      plan: { flow, checkpoints: [], parameters: [] },
      setup,
      policy: { ...policy, allowed_domains: ["other.test"] },
      execute: scriptedPage(calls),
    });
    expect(elsewhere.status).toBe("policy_violation");
    expect(elsewhere.message).toContain("shop.test");
    const tooMany = await practise({
      plan: { flow, checkpoints: [], parameters: [] },
      setup,
      policy: { ...policy, max_actions: 2 },
      execute: scriptedPage(calls),
    });
    expect(tooMany.status).toBe("policy_violation");
    expect(tooMany.message).toContain("max_actions");
    expect(calls).toHaveLength(0);
  });

  it("gives a step whose element loads late its own wait, and confirms it in a round with the usual step wait", async () => {
    const calls: ExecuteInput[] = [];
    // The send button appears 600 ms after the page: a step waits its own timeout, or the run's step wait.
    const latePage = async (input: ExecuteInput): Promise<ExecuteResult> => {
      calls.push(input);
      const send = input.flow.steps.find((step) => step.type === "click");
      const wait = (send !== undefined && "timeout" in send ? send.timeout : undefined) ?? input.stepTimeoutMs ?? 5_000;
      input.onProgress?.({ kind: "step", step_id: "s-02", label: "Type the name", result: "passed", details: "typed" });
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 600)));
      const found = wait >= 600;
      const details = found ? "clicked" : `none of the 1 selector alternatives found the element within ${Math.round(wait / 1000)} s: 1 #send`;
      input.onProgress?.({ kind: "step", step_id: "s-03", label: "Click 'Send'", result: found ? "passed" : "failed", details });
      const at = new Date().toISOString();
      return {
        overall: found ? "passed" : "failed",
        steps: [{ test_case_id: "step:s-03", label: "Click 'Send'", result: found ? "passed" : "failed", details }],
        started_at: at,
        completed_at: at,
      };
    };
    const setup = PracticeSetupSchema.parse({ practise: { ability_id: "learned.send" }, rounds: 1, step_timeout_ms: 500 });
    const result = await practise({ plan: { flow, checkpoints: [], parameters: [] }, setup, policy, execute: latePage });
    expect(result.status, result.message).toBe("repaired");
    expect(result.repairs).toEqual([expect.objectContaining({ kind: "step_waits_longer", subject: "step:s-03", made_in_round: 1, confirmed_in_round: 2 })]);
    expect(result.findings).toEqual([]);
    // Round 1, its replay with four times the wait, then round 2 with the usual wait and the step's own.
    expect(calls.map((call) => call.stepTimeoutMs)).toEqual([500, 2_000, 500]);
    expect(calls[2]?.flow.steps.find((step) => step.type === "click")).toMatchObject({ timeout: 2_000 });
    expect(result.plan.flow.steps.find((step) => step.type === "click")).toMatchObject({ timeout: 2_000 });
  });

  it("reports an element that does not appear even with the longer wait as missing, and repairs nothing", async () => {
    const calls: ExecuteInput[] = [];
    const gone = async (input: ExecuteInput): Promise<ExecuteResult> => {
      calls.push(input);
      const at = new Date().toISOString();
      return {
        overall: "failed",
        steps: [
          {
            test_case_id: "step:s-03",
            label: "Click 'Send'",
            result: "failed",
            details: "none of the 1 selector alternatives found the element within 1 s: 1 #send",
          },
        ],
        started_at: at,
        completed_at: at,
      };
    };
    const setup = PracticeSetupSchema.parse({ practise: { ability_id: "learned.send" }, rounds: 1, step_timeout_ms: 1_000 });
    const result = await practise({ plan: { flow, checkpoints: [], parameters: [] }, setup, policy, execute: gone });
    expect(result.status).toBe("could_not_repair");
    expect(result.repairs).toEqual([]);
    expect(result.findings).toEqual(["Click 'Send': its element is not on the page, even after 4 s, and nothing like it was found."]);
    expect(calls).toHaveLength(2);
  });
});
