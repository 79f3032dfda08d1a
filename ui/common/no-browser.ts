import type { PanelBrowser } from "../../shared/observation/panel-browser";

/** For pages without an extension around them (tests, a plain tab): nothing granted, nothing known. */
export const noBrowser: PanelBrowser = {
  currentTabUrl: async () => undefined,
  requestSiteAccess: async (sites) => sites.length === 0,
  ensureConnected: async () => "no_background",
  captureStatus: async () => null,
};
