import { storage } from "wxt/utils/storage";
import { PANEL_RUN_FOCUS_KEY, PanelRunFocusSchema } from "../../../shared/execution/run-notice";

/** A focus written this long before the panel starts is the click that opened it (the worker writes it as it opens the panel). */
const FRESH_MS = 60_000;

/**
 * Issue #33: the run a notification's click asked the side panel to show, read from
 * `chrome.storage.session` at start (when fresh) and whenever the worker writes another; each
 * is taken once (removed), so a reload of the panel does not open it again.
 */
export function watchRunFocus(onFocus: (dispatchId: string) => void, now: () => Date): () => void {
  const item = storage.defineItem<unknown>(PANEL_RUN_FOCUS_KEY, { fallback: null, version: 1 });
  const take = (value: unknown, freshOnly: boolean) => {
    const focus = PanelRunFocusSchema.safeParse(value);
    if (!focus.success) return;
    if (freshOnly && now().getTime() - Date.parse(focus.data.at) > FRESH_MS) return;
    void item.removeValue();
    onFocus(focus.data.dispatch_id);
  };
  void item.getValue().then((value) => take(value, true));
  return item.watch((value) => take(value, false));
}
