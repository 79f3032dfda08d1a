import { describe, expect, it } from "vitest";
import type { RunNotice } from "../../../shared/execution/run-notice";
import { askBadge, composeBadge } from "./ask-badge";
import { badgeForSession } from "../capture/capture-badge";
import { runBadge } from "../tab-lending/run-indicator";
import { askText, endText, noticeIdOf, oneLine, parseNoticeId, sitesPhrase } from "./notice-wording";

const CONFIRMATION = "0b4f6a62-9a0e-4c3a-8e2f-3b7a1d2c4e5f";

function notice(patch: Partial<RunNotice> = {}): RunNotice {
  return {
    dispatch_id: "run-1",
    ability_id: "send-a-message",
    ability_title: "Send a message",
    state: "needs_confirmation",
    where: "managed",
    caller: "mcp",
    sites: ["contact.example"],
    pending_confirmation: {
      confirmation_id: CONFIRMATION,
      step_label: "Click 'Send message'",
      reason: "committing_submit",
      asked_at: "2026-01-01T10:00:00.000Z",
    },
    checkpoints: [
      { checkpoint_id: "c1", goal: "The contact form is open", status: "reached" },
      { checkpoint_id: "c2", goal: "The message shows as sent", status: "not_reached" },
    ],
    ...patch,
  };
}

describe("what a run's question says (issue #33)", () => {
  it("says which ability wants to do which step on which site", () => {
    expect(askText(notice())).toEqual({
      title: "Allow this step?",
      message: "Send a message wants to: Click 'Send message' on contact.example",
      contextMessage: "Started by your assistant (MCP) · Do it, or Don't to stop the run",
    });
  });

  it("names several sites as alternatives, and none when the ability's are unknown", () => {
    expect(sitesPhrase(["a.example", "b.example", "c.example", "d.example"])).toBe("a.example, b.example or c.example");
    expect(askText(notice({ sites: [] })).message).toBe("Send a message wants to: Click 'Send message'");
    expect(askText(notice({ caller: "api" })).contextMessage).toMatch(/^Started by an app on this computer/);
    expect(askText(notice({ caller: "schedule" })).contextMessage).toMatch(/^Started by its schedule/);
  });

  it("keeps to one line of at most 200 characters", () => {
    const long = askText(
      notice({ ability_title: "Send\na   message", pending_confirmation: { ...notice().pending_confirmation!, step_label: "x".repeat(400) } }),
    );
    expect(long.message).not.toContain("\n");
    expect(long.message.startsWith("Send a message wants to: xxx")).toBe(true);
    expect(long.message).toHaveLength(200);
    expect(long.message.endsWith("…")).toBe(true);
    expect(oneLine("  a \n b  ")).toBe("a b");
  });
});

describe("what a run's end says (issue #33)", () => {
  it("says done, with how many checkpoints were reached", () => {
    const done = notice({ state: "succeeded", checkpoints: notice().checkpoints.map((checkpoint) => ({ ...checkpoint, status: "reached" as const })) });
    expect(endText(done)).toMatchObject({ title: "Done: Send a message", message: "Finished: all 2 checkpoints were reached." });
  });

  it("says where a failed run stopped, in the checkpoint's own words, and the failure's first sentence", () => {
    const failed = notice({
      state: "failed",
      failure: { code: "CHECKPOINT_NOT_CONFIRMED", message: "The page did not show the message as sent. It showed: Error 500." },
      checkpoints: [
        { checkpoint_id: "c1", goal: "The contact form is open", status: "reached" },
        { checkpoint_id: "c2", goal: "The message shows as sent", status: "failed" },
      ],
    });
    expect(endText(failed)).toMatchObject({
      title: "Stopped: Send a message",
      message: "Stopped at “The message shows as sent”: The page did not show the message as sent.",
    });
  });

  it("says a declined run was not done, and a run without checkpoints why it failed", () => {
    const declined = notice({
      state: "cancelled",
      failure: { code: "CONFIRMATION_DECLINED", message: "The step was declined, so it was not done and the run stopped." },
    });
    expect(endText(declined)).toMatchObject({ title: "Not done: Send a message", message: "The step was declined, so it was not done and the run stopped." });
    const noBrowser = notice({ state: "failed", checkpoints: [], failure: { code: "BROWSER_UNAVAILABLE", message: "No browser to run in: gone." } });
    expect(endText(noBrowser).message).toBe("No browser to run in: gone.");
    expect(endText(notice({ state: "interrupted", failure: undefined })).message).toBe("Your agent stopped while the run was going.");
  });
});

describe("notification ids", () => {
  it("carry the run, the question and the window, and read back", () => {
    const ask = { kind: "ask" as const, dispatchId: "run:2026-01-01.a_b", confirmationId: CONFIRMATION, windowId: 7 };
    expect(parseNoticeId(noticeIdOf(ask))).toEqual(ask);
    expect(parseNoticeId(noticeIdOf({ kind: "end", dispatchId: "run-1" }))).toEqual({ kind: "end", dispatchId: "run-1" });
    expect(parseNoticeId("someone-else|ask|run-1|x|1")).toBeUndefined();
    expect(parseNoticeId("elnor-run|ask|run-1|-|1")).toBeUndefined();
  });
});

describe("the ASK badge", () => {
  it("shows ASK over nothing and over RUN, but never hides the observation banner", () => {
    const ask = askBadge(["Send a message"]);
    expect(ask).toMatchObject({ text: "ASK", title: "Ability Learning: Send a message waits for your answer" });
    expect(composeBadge(badgeForSession(null), ask).text).toBe("ASK");
    expect(composeBadge(runBadge("Send a message"), ask).text).toBe("ASK");
    const session = {
      learn_session_id: "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
      state: "capturing" as const,
      target_app_whitelist: ["a.example"],
      redaction_modes: {},
    };
    const recording = composeBadge(badgeForSession(session), ask);
    expect(recording.text).toBe("REC");
    expect(recording.title).toBe("Ability Learning: recording on a.example · Send a message waits for your answer");
    expect(composeBadge(runBadge("x"), askBadge([]))).toEqual(runBadge("x"));
    expect(askBadge(["A", "B"])?.title).toBe("Ability Learning: 2 runs wait (A, B) for your answer");
  });
});
