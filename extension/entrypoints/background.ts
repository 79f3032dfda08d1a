import { browser } from "wxt/browser";
import { defineBackground } from "wxt/utils/define-background";
import { storage } from "wxt/utils/storage";
import { createBackgroundStore } from "../background/worker/background-storage";
import { startBackground } from "../background/background-app";
import { createInTabConsent, createLeasedTabStore } from "../background/tab-lending/in-tab-consent";
import { extensionConnectionStorage } from "../connection-storage";
import { createNoticeStore, createPanelRunFocus } from "../background/run-notices/notice-store";

export default defineBackground(() => {
  // The toolbar button opens the Ability Learning side panel.
  void browser.sidePanel.setPanelBehavior({ openPanelOnActionClick: true });
  startBackground({
    browser,
    connection: extensionConnectionStorage,
    // The pairing's key in extension/connection-storage.ts.
    watchConnection: (onChange) => void storage.watch("local:agentConnection", onChange),
    store: createBackgroundStore(),
    inTabRuns: createInTabConsent(() => new Date()),
    leasedTab: createLeasedTabStore(),
    runNoticeStore: createNoticeStore(),
    panelRunFocus: createPanelRunFocus(() => new Date()),
    openSocket: (url) => new WebSocket(url),
    fetch: (input, init) => fetch(input, init),
    timers: {
      setTimeout: (handler, ms) => setTimeout(handler, ms),
      clearTimeout: (id) => clearTimeout(id),
      setInterval: (handler, ms) => setInterval(handler, ms),
      clearInterval: (id) => clearInterval(id),
    },
    randomBytes: (bytes) => void crypto.getRandomValues(bytes),
    newId: () => crypto.randomUUID(),
    now: () => new Date(),
  });
});
