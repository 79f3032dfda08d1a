import { browser } from "wxt/browser";
import { TabRunAccessReplySchema, type PanelRequest, type TabRunAccessReply } from "../../../shared/observation/panel-messages";

/**
 * For the side panel's Run with "in my browser" (issue #21): what it asks the background before
 * `POST /api/runs` with `where: "user_tab"`. The flow: `tabRunAccess()`; when `in_tab_allowed` is
 * false, ask the person ("Let the assistant act in your tabs? It shows a RUN badge and a bar with
 * Stop while it does"), and on yes `allowInTabRuns(true)`; start the run once `ready`.
 * Null: no background answered (the worker failed to start).
 */
async function ask(request: PanelRequest): Promise<TabRunAccessReply | null> {
  try {
    const reply = TabRunAccessReplySchema.safeParse(await browser.runtime.sendMessage(request));
    return reply.success ? reply.data : null;
  } catch {
    return null;
  }
}

export const tabRunAccess = (timeoutMs = 5_000) => ask({ type: "run/tab-access", timeout_ms: timeoutMs });

export const allowInTabRuns = (allowed: boolean) => ask({ type: "run/allow-in-tab", allowed });
