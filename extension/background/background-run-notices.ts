import type { BackgroundContext } from "./background-parts";
import { createRunAnswerClient } from "./run-notices/run-answer-client";
import { createRunNotices, type NotificationsApi, type RunNotices } from "./run-notices/run-notices";

/** The side panel's page: open in the side panel, or in a tab (as tests and some people open it). */
const PANEL_PAGE = "/sidepanel.html";
const ICON = "/icons/128.png";

/** Issue #33: run notices wired to Chrome — notifications, the side panel, windows — and to the agent's run routes. */
export function noticeRuns(context: BackgroundContext): RunNotices {
  const { deps, failed } = context;
  const { browser } = deps;
  const panelUrl = browser.runtime.getURL(PANEL_PAGE);
  const openPanelPage = () => void browser.tabs.create({ url: panelUrl }).catch(failed("open the panel"));
  return createRunNotices({
    notifications: browser.notifications as unknown as NotificationsApi,
    iconUrl: browser.runtime.getURL(ICON),
    store: deps.runNoticeStore,
    answers: createRunAnswerClient({ loadConnection: () => deps.connection.load(), fetch: deps.fetch }),
    async panelOpen() {
      const contexts = await browser.runtime.getContexts({ contextTypes: ["SIDE_PANEL", "TAB"] });
      return contexts.some((found) => found.documentUrl !== undefined && found.documentUrl.split(/[?#]/)[0] === panelUrl);
    },
    lastFocusedWindow: () =>
      browser.windows.getLastFocused().then(
        (window) => window.id,
        () => undefined,
      ),
    openPanelOn({ dispatchId, windowId }) {
      // Chrome lets sidePanel.open() run inside a notification click (it dispatches it as a user
      // gesture), so it is called before anything else is awaited. Without a window, or when
      // Chrome refuses, the panel's page opens in a tab instead: the nearest thing.
      if (windowId === undefined) openPanelPage();
      else void browser.sidePanel.open({ windowId }).catch(openPanelPage);
      void deps.panelRunFocus.save(dispatchId).catch(failed("panel focus"));
    },
    showAsking: (spec) => context.badge.ask(spec),
    failed,
  });
}

/** Chrome's notification events, added synchronously with the others (they wake a stopped worker). */
export function listenToNotifications(context: BackgroundContext, notices: RunNotices): void {
  const { notifications } = context.deps.browser;
  notifications.onButtonClicked.addListener((id, buttonIndex) => notices.buttonClicked(id, buttonIndex));
  notifications.onClicked.addListener((id) => notices.clicked(id));
}
