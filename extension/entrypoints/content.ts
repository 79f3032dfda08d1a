import { defineContentScript } from "wxt/utils/define-content-script";

/**
 * The observation content script (browser_dom, browser_snapshot). It is registered at runtime,
 * only for the sites a session allows and only between Start and Stop (DESIGN §4), so the
 * manifest never lists it. The observers themselves arrive with the observation issue (#4);
 * until then this entry is built but never registered, and observes nothing.
 */
export default defineContentScript({
  matches: [],
  registration: "runtime",
  main() {},
});
