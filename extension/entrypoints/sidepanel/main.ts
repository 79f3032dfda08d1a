import { mount } from "svelte";
import { browser } from "wxt/browser";
import App from "../../../ui/App.svelte";
import { extensionConnectionStorage } from "../../connection-storage";
import { extensionPanelBrowser } from "./panel-browser";

const target = document.getElementById("app");
if (target === null) throw new Error("sidepanel.html has no #app element");
mount(App, {
  target,
  props: { storage: extensionConnectionStorage, extensionId: browser.runtime.id, panelBrowser: extensionPanelBrowser },
});
