import { describe, expect, it } from "vitest";
import { RecorderFlowSchema, type RecorderFlow } from "./recorder-flow";
import { StoredFlowSchema } from "./stored-skill-files";

const flow: RecorderFlow = {
  title: "Send a note",
  steps: [
    { type: "setViewport", width: 1280, height: 800, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: true },
    { type: "navigate", url: "https://notes.example/" },
    { type: "change", selectors: [["aria/Note"], ["#note"]], value: "{{note}}", hint: { role: "textbox", name: "Note" } },
    { type: "click", selectors: [['aria/Send[role="button"]']], offsetX: 1, offsetY: 1, confirm: true, timeout: 8000 },
    { type: "keyDown", key: "Enter" },
    { type: "keyUp", key: "Enter" },
    { type: "waitForElement", selectors: [["text/Sent"]] },
  ],
  step_ids: [null, null, "s1", "s2", "s3", "s3", "s4"],
};

describe("the Recorder flow (flow.recorder.json)", () => {
  it("reads back what was written, unchanged", () => {
    expect(RecorderFlowSchema.parse(JSON.parse(JSON.stringify(flow)))).toEqual(flow);
  });

  it("keeps, when read as a stored file, the fields a newer writer or the Recorder itself added", () => {
    const written = {
      ...flow,
      steps: flow.steps.map((step) =>
        step.type === "click" ? { ...step, assertedEvents: [{ type: "navigation" }], hint: { ...step.hint, shade: "blue" } } : step,
      ),
    };
    const read = StoredFlowSchema.parse(JSON.parse(JSON.stringify(written)));
    expect(read).toEqual(written);
  });

  it("rejects a stored flow with a step the executor cannot replay", () => {
    expect(StoredFlowSchema.safeParse({ ...flow, steps: [{ type: "scroll" }], step_ids: [null] }).success).toBe(false);
    expect(StoredFlowSchema.safeParse({ ...flow, steps: [{ type: "click", offsetX: 1, offsetY: 1 }], step_ids: ["s1"] }).success).toBe(false);
  });
});
