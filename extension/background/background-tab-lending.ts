import { CoachingReadReplySchema, type CoachingReadMessage } from "../../shared/observation/coaching-read";
import type { BackgroundContext } from "./background-parts";
import { badgeForSession, showBadge } from "./capture/capture-badge";
import { isActiveCapture } from "./capture/capture-config";
import type { CaptureSession } from "./capture/capture-session";
import type { DebuggerApi } from "./tab-lending/lease-context";
import { createTabLeases, type TabLeases } from "./tab-lending/tab-lease";

/** Chrome withholds `chrome.debugger` when a policy blocks it; the manifest always asks for it. */
export const debuggerApiOf = (context: BackgroundContext) => () => (context.deps.browser.debugger as DebuggerApi | undefined) ?? undefined;

/** In-tab runs (issue #21) wired to Chrome, the capture mirror and the agent socket. */
export function lendTabsToAgent(context: BackgroundContext, capture: CaptureSession): TabLeases {
  const { deps } = context;
  const { browser } = deps;
  return createTabLeases({
    debuggerApi: debuggerApiOf(context),
    inTabAllowed: () => deps.inTabRuns.allowed(),
    async createTab() {
      const tab = await browser.tabs.create({ url: "about:blank", active: true });
      if (tab.id === undefined) throw new Error("Chrome gave the new tab no id");
      return tab.id;
    },
    action: context.badge.surface,
    restoreBadge: async () => showBadge(context.badge.surface, badgeForSession(await capture.current())),
    recordingActive: async () => isActiveCapture(await capture.current()),
    recordingSessionId: async () => {
      const session = await capture.current();
      return session !== null && isActiveCapture(session) ? session.learn_session_id : undefined;
    },
    send: (frame) => context.socket().send(frame),
    async readRecorded(tabId, highlight) {
      const message: CoachingReadMessage = { type: "coaching/read", highlight };
      const reply = CoachingReadReplySchema.safeParse(await browser.tabs.sendMessage(tabId, message, { frameId: 0 }));
      return reply.success ? reply.data.read : null;
    },
    onActiveChange(active) {
      context.demand.runActive = active;
      context.linkWantChanged();
    },
    failed: context.failed,
    leasedTab: deps.leasedTab,
  });
}
