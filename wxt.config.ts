import { defineConfig } from "wxt";

// The extension is built from extension/ (entrypoints wire, modules work) and mounts ui/.
export default defineConfig({
  srcDir: "extension",
  publicDir: "extension/public",
  outDir: ".output",
  modules: ["@wxt-dev/module-svelte"],
  imports: false,
  manifest: {
    name: "elnor-learn — Ability Learning",
    description: "Teach your assistant a new ability by demonstrating it once.",
    minimum_chrome_version: "116",
    // scripting: the observation content script is registered at runtime, only for a session's
    // sites; alarms: a capture in progress wakes the service worker if it slept (issue #4);
    // activeTab: opening the panel from the toolbar lets it read the current tab's site, to prefill
    // the allow-list, without a permanent right to read every tab.
    // debugger: "in my browser" runs (issue #21) act in a tab through chrome.debugger (trusted
    // input). Chrome refuses it as an optional permission (dropped from optional_permissions;
    // permissions.request: "Only permissions specified in the manifest may be requested"), so it
    // is held here and gated by the person's consent, asked at the first in-tab run in the side
    // panel (panel-messages `run/allow-in-tab`); without it no tab is ever lent.
    permissions: ["storage", "sidePanel", "scripting", "alarms", "activeTab", "debugger"],
    // Only the local agent is a permanent host; observed sites are asked for per session, at
    // Start, through chrome.permissions.request (extension/background/site-permissions.ts).
    host_permissions: ["http://127.0.0.1/*", "http://localhost/*"],
    optional_host_permissions: ["http://*/*", "https://*/*"],
    action: { default_title: "Ability Learning" },
    commands: {
      "toggle-capture-pause": {
        suggested_key: { default: "Alt+Shift+P" },
        description: "Pause or resume the recording of a demonstration",
      },
      "mark-capture-step": {
        suggested_key: { default: "Alt+Shift+M" },
        description: "Mark a step in the recording of a demonstration",
      },
    },
  },
});
