import { runNoticeOf, type RunNotice } from "../../../shared/execution/run-notice";
import { TERMINAL_RUN_STATES } from "../../../shared/execution/run-contract";
import { askBadge } from "./ask-badge";
import type { BadgeSpec } from "../capture/capture-badge";
import { askAgainText, askText, endText, noticeIdOf, parseNoticeId, type NoticeText } from "./notice-wording";
import type { NoticeState, NoticeStore } from "./notice-store";
import type { RunAnswerClient } from "./run-answer-client";

/** The part of `chrome.notifications` used here. */
export interface NotificationsApi {
  create(
    id: string,
    options: {
      type: "basic";
      iconUrl: string;
      title: string;
      message: string;
      contextMessage?: string;
      buttons?: Array<{ title: string }>;
      requireInteraction?: boolean;
      priority?: number;
    },
  ): Promise<string>;
  clear(id: string): Promise<boolean>;
}

export interface RunNoticesDeps {
  notifications: NotificationsApi;
  iconUrl: string;
  store: NoticeStore;
  answers: RunAnswerClient;
  /** Whether a side panel (or the panel's page in a tab) is open: then the panel asks, not a notification. */
  panelOpen(): Promise<boolean>;
  /** The window a notification is shown for (the last focused), so its click can open the panel there. */
  lastFocusedWindow(): Promise<number | undefined>;
  /** Opens the side panel on that run; called first thing in the click, while Chrome counts it as the person's gesture. */
  openPanelOn(target: { dispatchId: string; windowId?: number }): void;
  showAsking(spec: BadgeSpec | null): Promise<void>;
  failed(where: string): (error: unknown) => void;
}

export interface RunNotices {
  /** The agent told of one run (`run_notice`). */
  notice(notice: RunNotice): Promise<void>;
  /** The agent said which runs wait now (`run_notices`, after every welcome). */
  waitingNow(waiting: readonly RunNotice[]): Promise<void>;
  /** Do it (0) or Don't (1) on an ask notification. */
  buttonClicked(notificationId: string, buttonIndex: number): void;
  /** The notification's body: the side panel, on that run. */
  clicked(notificationId: string): void;
  /** Worker start: the badge as the questions asked before the stop left it. */
  restore(): Promise<void>;
}

const DO_IT = 0;
const DONT = 1;

/**
 * Issue #33 "ask where the person is". A run that waits for the person while no panel is open is
 * asked in a Chrome notification (Do it / Don't), and the toolbar shows ASK until it is settled;
 * a run's end is told in one line when the person did not start it from the open panel (caller
 * `api` or `mcp`, a run they were asked about, or any run while no panel is open). An answer is
 * sent once per question however often it is clicked: in memory at once, then in session storage.
 */
export function createRunNotices(deps: RunNoticesDeps): RunNotices {
  let chain: Promise<unknown> = Promise.resolve();
  const serial = (work: (state: NoticeState) => Promise<NoticeState>): Promise<void> => {
    const next = chain.then(async () => {
      const after = await work(await deps.store.load());
      await deps.store.save(after);
      await deps.showAsking(askBadge(after.asked.map((asked) => asked.notice.ability_title)));
    });
    chain = next.catch(deps.failed("run notice"));
    return chain.then(() => undefined);
  };
  /** Questions answered from a notification by this worker, before storage says so. */
  const answering = new Set<string>();
  const show = (id: string, text: NoticeText, ask: boolean) =>
    deps.notifications.create(id, {
      type: "basic",
      iconUrl: deps.iconUrl,
      ...text,
      ...(ask ? { buttons: [{ title: "Do it" }, { title: "Don't" }], requireInteraction: true, priority: 2 } : {}),
    });

  const apply = (state: NoticeState, notice: RunNotice) => applyNotice({ deps, show }, state, notice);

  return {
    notice: (notice) => serial((state) => apply(state, notice)),
    waitingNow: (waiting) =>
      serial(async (state) => {
        let next = state;
        for (const notice of waiting) next = await apply(next, notice);
        // Asked before, no longer waiting: the run went on or ended while this worker was away.
        for (const asked of next.asked.filter((entry) => !waiting.some((notice) => notice.dispatch_id === entry.notice.dispatch_id))) {
          const run = await deps.answers.run(asked.notice.dispatch_id);
          if (run === undefined) continue;
          next = run === null ? await forget(deps, next, asked.notice.dispatch_id) : await apply(next, runNoticeOf(run, asked.notice.sites));
        }
        return next;
      }),
    buttonClicked(notificationId, buttonIndex) {
      const id = parseNoticeId(notificationId);
      if (id?.kind !== "ask" || (buttonIndex !== DO_IT && buttonIndex !== DONT) || answering.has(id.confirmationId)) return;
      answering.add(id.confirmationId);
      void deps.notifications.clear(notificationId).catch(deps.failed("notification"));
      void serial(async (state) => {
        if (state.answered.includes(id.confirmationId)) return state;
        const asked = state.asked.find((entry) => entry.notification_id === notificationId);
        const outcome = await deps.answers.answer(id.dispatchId, id.confirmationId, buttonIndex === DO_IT ? "confirm" : "decline");
        if (outcome.kind === "undelivered" && asked !== undefined) {
          // Not delivered: asked again, so the person can answer once it can reach the agent.
          answering.delete(id.confirmationId);
          await show(notificationId, askAgainText(asked.notice, outcome.why), true);
          return state;
        }
        return { ...state, answered: [...state.answered, id.confirmationId], asked: state.asked.filter((entry) => entry !== asked) };
      });
    },
    clicked(notificationId) {
      const id = parseNoticeId(notificationId);
      if (id === undefined) return;
      deps.openPanelOn({ dispatchId: id.dispatchId, ...(id.windowId === undefined ? {} : { windowId: id.windowId }) });
      // An end notice has said what it had to; a question stays until it is answered (here or in the panel).
      if (id.kind === "end") void deps.notifications.clear(notificationId).catch(deps.failed("notification"));
    },
    restore: () => serial(async (state) => state),
  };
}

async function forget(deps: RunNoticesDeps, state: NoticeState, dispatchId: string): Promise<NoticeState> {
  for (const asked of state.asked.filter((entry) => entry.notice.dispatch_id === dispatchId)) await deps.notifications.clear(asked.notification_id);
  return { ...state, asked: state.asked.filter((entry) => entry.notice.dispatch_id !== dispatchId) };
}

interface ApplyContext {
  deps: RunNoticesDeps;
  show(id: string, text: NoticeText, ask: boolean): Promise<string>;
}

/** One notice against what was asked and told: ask, settle, or tell the end. */
async function applyNotice({ deps, show }: ApplyContext, state: NoticeState, notice: RunNotice): Promise<NoticeState> {
  const asked = state.asked.find((entry) => entry.notice.dispatch_id === notice.dispatch_id);
  const pending = notice.pending_confirmation;
  if (notice.state === "needs_confirmation" && pending !== undefined) {
    if (asked?.notice.pending_confirmation?.confirmation_id === pending.confirmation_id) return state;
    const settled = await forget(deps, state, notice.dispatch_id);
    if (settled.answered.includes(pending.confirmation_id) || (await deps.panelOpen())) return settled;
    const windowId = await deps.lastFocusedWindow();
    const id = noticeIdOf({
      kind: "ask",
      dispatchId: notice.dispatch_id,
      confirmationId: pending.confirmation_id,
      ...(windowId === undefined ? {} : { windowId }),
    });
    await show(id, askText(notice), true);
    return { ...settled, asked: [...settled.asked, { notice, notification_id: id }] };
  }
  const settled = await forget(deps, state, notice.dispatch_id);
  if (!TERMINAL_RUN_STATES.has(notice.state) || state.ended.includes(notice.dispatch_id)) return settled;
  const tell = notice.caller !== "side_panel" || asked !== undefined || !(await deps.panelOpen());
  if (!tell) return settled;
  const windowId = await deps.lastFocusedWindow();
  await show(noticeIdOf({ kind: "end", dispatchId: notice.dispatch_id, ...(windowId === undefined ? {} : { windowId }) }), endText(notice), false);
  return { ...settled, ended: [...settled.ended, notice.dispatch_id] };
}
