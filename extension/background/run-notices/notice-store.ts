import { storage } from "wxt/utils/storage";
import { z } from "zod";
import { PANEL_RUN_FOCUS_KEY, PanelRunFocusSchema, RunNoticeSchema } from "../../../shared/execution/run-notice";

/**
 * What the run notices remember across a worker stop, in `chrome.storage.session` (memory only,
 * gone with the browser, unreadable by content scripts): the questions asked in a notification
 * and not yet settled, the questions already answered from one (so a second click sends
 * nothing), and the runs whose end was already told. Notices hold no input value (run-notice.ts).
 */
export const NoticeStateSchema = z.object({
  asked: z.array(z.object({ notice: RunNoticeSchema, notification_id: z.string().max(400) })).max(50),
  answered: z.array(z.string().uuid()).max(100),
  ended: z.array(z.string().max(200)).max(100),
});
export type NoticeState = z.infer<typeof NoticeStateSchema>;

export const EMPTY_NOTICE_STATE: NoticeState = { asked: [], answered: [], ended: [] };

export interface NoticeStore {
  load(): Promise<NoticeState>;
  save(state: NoticeState): Promise<void>;
}

/** Keeps the newest `max` entries of a list that only grows. */
export function newest<T>(list: readonly T[], max: number): T[] {
  return list.slice(Math.max(0, list.length - max));
}

export function createNoticeStore(): NoticeStore {
  const item = storage.defineItem<unknown>("session:runNotices", { fallback: null, version: 1 });
  return {
    async load() {
      const parsed = NoticeStateSchema.safeParse(await item.getValue());
      return parsed.success ? parsed.data : EMPTY_NOTICE_STATE;
    },
    save: (state) =>
      item.setValue(NoticeStateSchema.parse({ asked: newest(state.asked, 50), answered: newest(state.answered, 100), ended: newest(state.ended, 100) })),
  };
}

/**
 * The run a notification's click asked the side panel to show (`session:panelRunFocus`,
 * shared/execution/run-notice.ts): written by the worker as it opens the panel.
 */
export function createPanelRunFocus(now: () => Date) {
  const item = storage.defineItem<unknown>(PANEL_RUN_FOCUS_KEY, { fallback: null, version: 1 });
  return {
    save: (dispatchId: string) => item.setValue(PanelRunFocusSchema.parse({ dispatch_id: dispatchId, at: now().toISOString() })),
  };
}
