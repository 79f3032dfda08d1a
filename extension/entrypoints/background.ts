import { browser } from "wxt/browser";
import { defineBackground } from "wxt/utils/define-background";

export default defineBackground(() => {
  // The toolbar button opens the Ability Learning side panel.
  void browser.sidePanel.setPanelBehavior({ openPanelOnActionClick: true });
});
