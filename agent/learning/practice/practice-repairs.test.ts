import { describe, expect, it } from "vitest";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import { generaliseCheckpoint, relocateTarget, waitLonger } from "./practice-repairs";

const flow: RecorderFlow = {
  title: "Send a message",
  steps: [
    { type: "setViewport", width: 1280, height: 800, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: true },
    { type: "navigate", url: "http://127.0.0.1:9/contact" },
    { type: "click", selectors: [["#send"], ['aria/Send message[role="button"]']], offsetX: 1, offsetY: 1 },
  ],
  step_ids: [null, null, "s-04"],
};

describe("relocateTarget", () => {
  it("puts the element found by similarity first, by role and name, and keeps the recorded selectors after it", () => {
    const repaired = relocateTarget(flow, "s-04", '"Send message now" (button)');
    const step = repaired?.flow.steps[2];
    expect(step?.type === "click" ? step.selectors : undefined).toEqual([
      ['aria/Send message now[role="button"]'],
      ["#send"],
      ['aria/Send message[role="button"]'],
    ]);
    expect(step?.type === "click" ? step.hint : undefined).toEqual({ role: "button", name: "Send message now" });
    expect(repaired?.description).toContain('button "Send message now"');
    // The original is a working copy's source: it is not changed.
    expect(flow.steps[2]).toMatchObject({ selectors: [["#send"], ['aria/Send message[role="button"]']] });
  });

  it("repairs nothing when the element has no name to find it by, or the step is not in the flow", () => {
    expect(relocateTarget(flow, "s-04", "a button without a name")).toBeUndefined();
    expect(relocateTarget(flow, "s-99", '"Send" (button)')).toBeUndefined();
  });
});

describe("generaliseCheckpoint", () => {
  const checkpoint = {
    checkpoint_id: "cp-02",
    goal: "The message is sent",
    success_condition: 'The page says "Thanks, Alice Example, your message is sent"',
    step_ids: ["s-04"],
  };

  it("takes the input's value out of a condition that held for that input only, leaving a condition the page check reads", () => {
    const repaired = generaliseCheckpoint(checkpoint, { name: "Alice Example", message: "Hello" });
    expect(repaired?.checkpoint.success_condition).toBe('The page says "your message is sent"');
    expect(repaired?.description).toContain("{{name}}");
    expect(repaired?.description).not.toContain("Alice");
  });

  it("repairs nothing when no input value is in the condition, or nothing checkable is left without it", () => {
    expect(generaliseCheckpoint(checkpoint, { name: "Bob" })).toBeUndefined();
    expect(generaliseCheckpoint({ ...checkpoint, success_condition: 'The heading "Alice Example" appears' }, { name: "Alice Example" })).toBeUndefined();
  });
});

describe("waitLonger", () => {
  it("gives a late step its own Recorder timeout of twice the time it took, in whole seconds, within the cap", () => {
    const repaired = waitLonger(flow, "s-04", 2_600, 1_000);
    expect(repaired?.timeoutMs).toBe(6_000);
    expect(repaired?.flow.steps[2]).toMatchObject({ type: "click", timeout: 6_000 });
    expect(repaired?.flow.steps[1]).toEqual(flow.steps[1]);
    expect(repaired?.description).toContain("now waits up to 6 s");
    expect(waitLonger(flow, "s-04", 45_000, 1_000)?.timeoutMs).toBe(60_000);
    // It missed the step wait once, so it took at least that long: twice the step wait.
    expect(waitLonger(flow, "s-04", 1_200, 5_000)?.timeoutMs).toBe(10_000);
  });

  it("does nothing for a step with no element or a time not known", () => {
    expect(waitLonger(flow, "s-99", 2_000, 1_000)).toBeUndefined();
    expect(waitLonger(flow, "s-04", Number.NaN, 1_000)).toBeUndefined();
  });
});
