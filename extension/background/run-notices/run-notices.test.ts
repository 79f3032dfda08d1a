import { describe, expect, it } from "vitest";
import type { RunNotice } from "../../../shared/execution/run-notice";
import type { RunRecord } from "../../../shared/execution/run-contract";
import type { BadgeSpec } from "../capture/capture-badge";
import { EMPTY_NOTICE_STATE, type NoticeState } from "./notice-store";
import type { AnswerOutcome, RunAnswerClient } from "./run-answer-client";
import { createRunNotices } from "./run-notices";

const CONFIRMATION = "0b4f6a62-9a0e-4c3a-8e2f-3b7a1d2c4e5f";
const AT = "2026-01-01T10:00:00.000Z";

function notice(patch: Partial<RunNotice> = {}): RunNotice {
  return {
    dispatch_id: "run-1",
    ability_id: "send-a-message",
    ability_title: "Send a message",
    state: "needs_confirmation",
    where: "managed",
    caller: "mcp",
    sites: ["contact.example"],
    pending_confirmation: { confirmation_id: CONFIRMATION, step_label: "Click 'Send message'", reason: "committing_submit", asked_at: AT },
    checkpoints: [],
    ...patch,
  };
}
const ended = (patch: Partial<RunNotice> = {}) => notice({ state: "succeeded", pending_confirmation: undefined, ...patch });

/**
 * The run notices against stand-ins for Chrome (notifications shown and cleared, kept as a list),
 * session storage (in memory) and the agent's confirm route (answers recorded): what a person
 * would see, and what would reach the agent.
 */
function setup(options: { panelOpen?: boolean; answer?: () => AnswerOutcome; runs?: Record<string, RunRecord | null>; storage?: { state: NoticeState } } = {}) {
  const shown = new Map<string, { title: string; message: string; contextMessage?: string; buttons?: unknown }>();
  const created: string[] = [];
  const answers: Array<[string, string, string]> = [];
  const badges: Array<BadgeSpec | null> = [];
  const opened: unknown[] = [];
  const storage = options.storage ?? { state: EMPTY_NOTICE_STATE };
  const panel = { open: options.panelOpen ?? false };
  const client: RunAnswerClient = {
    async answer(dispatchId, confirmationId, decision) {
      answers.push([dispatchId, confirmationId, decision]);
      return options.answer?.() ?? { kind: "sent" };
    },
    async run(dispatchId) {
      return options.runs?.[dispatchId];
    },
  };
  const notices = createRunNotices({
    notifications: {
      async create(id, details) {
        shown.set(id, details);
        created.push(id);
        return id;
      },
      async clear(id) {
        return shown.delete(id);
      },
    },
    iconUrl: "chrome-extension://x/icons/128.png",
    store: {
      load: async () => storage.state,
      save: async (next) => {
        storage.state = next;
      },
    },
    answers: client,
    panelOpen: async () => panel.open,
    lastFocusedWindow: async () => 3,
    openPanelOn: (target) => opened.push(target),
    showAsking: async (spec) => void badges.push(spec),
    failed: (where) => (error) => {
      throw new Error(`${where}: ${String(error)}`);
    },
  });
  const settle = () => notices.restore();
  return { notices, shown, created, answers, badges, opened, panel, settle };
}

describe("run notices (issue #33)", () => {
  it("asks in a notification with Do it / Don't while no panel is open, and shows ASK", async () => {
    const { notices, shown, badges } = setup();
    await notices.notice(notice());
    const [id] = [...shown.keys()];
    expect(id).toBe(`elnor-run|ask|run-1|${CONFIRMATION}|3`);
    expect(shown.get(id!)).toMatchObject({
      message: "Send a message wants to: Click 'Send message' on contact.example",
      buttons: [{ title: "Do it" }, { title: "Don't" }],
    });
    expect(badges.at(-1)?.text).toBe("ASK");
  });

  it("leaves the asking to an open panel", async () => {
    const { notices, shown, badges } = setup({ panelOpen: true });
    await notices.notice(notice());
    expect(shown.size).toBe(0);
    expect(badges.at(-1)).toBeNull();
  });

  it("asks once per question, and takes the question back once it was answered anywhere", async () => {
    const { notices, shown, created, badges } = setup();
    await notices.notice(notice());
    await notices.notice(notice());
    expect(created).toHaveLength(1);
    await notices.notice(notice({ state: "running", pending_confirmation: undefined }));
    expect(shown.size).toBe(0);
    expect(badges.at(-1)).toBeNull();
  });

  it("sends one answer however often the button is clicked, Don't as decline", async () => {
    const { notices, shown, answers, settle, badges } = setup();
    await notices.notice(notice());
    const [id] = [...shown.keys()];
    notices.buttonClicked(id!, 1);
    notices.buttonClicked(id!, 1);
    notices.buttonClicked(id!, 0);
    await settle();
    expect(answers).toEqual([["run-1", CONFIRMATION, "decline"]]);
    expect(shown.size).toBe(0);
    expect(badges.at(-1)).toBeNull();
  });

  it("remembers an answer across a worker stop: a click on the old notification sends nothing more", async () => {
    const storage = { state: EMPTY_NOTICE_STATE };
    const first = setup({ storage });
    await first.notices.notice(notice());
    const [id] = [...first.shown.keys()];
    first.notices.buttonClicked(id!, 0);
    await first.settle();
    // A new worker (nothing in memory), the same session storage: Chrome delivers the second click to it.
    const second = setup({ storage });
    second.notices.buttonClicked(id!, 0);
    await second.settle();
    expect([...first.answers, ...second.answers]).toEqual([["run-1", CONFIRMATION, "confirm"]]);
  });

  it("asks again when the answer did not reach the agent, and then sends the next click", async () => {
    let reachable = false;
    const { notices, shown, answers, settle } = setup({ answer: () => (reachable ? { kind: "sent" } : { kind: "undelivered", why: "no agent answered" }) });
    await notices.notice(notice());
    const [id] = [...shown.keys()];
    notices.buttonClicked(id!, 0);
    await settle();
    expect(shown.get(id!)?.contextMessage).toBe("Your answer did not reach your agent (no agent answered); answer again");
    reachable = true;
    notices.buttonClicked(id!, 0);
    await settle();
    expect(answers).toHaveLength(2);
    expect(shown.size).toBe(0);
  });

  it("tells an assistant's run's end, but not the end of a run started from the open panel", async () => {
    const assistant = setup({ panelOpen: true });
    await assistant.notices.notice(ended({ caller: "mcp" }));
    expect([...assistant.shown.values()].map((shown) => shown.title)).toEqual(["Done: Send a message"]);
    const fromPanel = setup({ panelOpen: true });
    await fromPanel.notices.notice(ended({ caller: "side_panel" }));
    expect(fromPanel.shown.size).toBe(0);
    const panelClosed = setup({ panelOpen: false });
    await panelClosed.notices.notice(ended({ caller: "side_panel" }));
    expect(panelClosed.shown.size).toBe(1);
  });

  it("tells an end once, and ends a question the worker slept through by reading the run", async () => {
    const record: RunRecord = {
      dispatch_id: "run-1",
      ability_id: "send-a-message",
      ability_title: "Send a message",
      state: "cancelled",
      where: "managed",
      caller: "mcp",
      input_names: [],
      steps: [],
      checkpoints: [],
      failure: { code: "CONFIRMATION_TIMED_OUT", message: "Nobody confirmed the step in time, so it was not done and the run stopped." },
      started_at: AT,
      updated_at: AT,
      completed_at: AT,
      schema_version: 1,
    };
    const { notices, shown } = setup({ runs: { "run-1": record } });
    await notices.notice(notice());
    await notices.waitingNow([]);
    expect([...shown.entries()].map(([id, text]) => [id.split("|")[1], text.title, text.message])).toEqual([
      ["end", "Not done: Send a message", "Nobody confirmed the step in time, so it was not done and the run stopped."],
    ]);
    await notices.notice(ended({ state: "cancelled" }));
    expect(shown.size).toBe(1);
  });

  it("opens the panel on the run a notification's body names, in its window", () => {
    const { notices, opened } = setup();
    notices.clicked(`elnor-run|end|run-9|-|4`);
    notices.clicked("another-extension|end|x|-|1");
    expect(opened).toEqual([{ dispatchId: "run-9", windowId: 4 }]);
  });
});
