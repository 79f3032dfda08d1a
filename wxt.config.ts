import { defineConfig } from "wxt";
import { permissionNames } from "./shared/common/extension-permissions";

/** Every size auto-icons renders from extension/assets/icon.svg, for the extension and its toolbar button. */
const ICON_SIZES = [16, 32, 48, 128] as const;
const iconFiles = Object.fromEntries(ICON_SIZES.map((size) => [size, `icons/${size}.png`]));

// The extension is built from extension/ (entrypoints wire, modules work) and mounts ui/.
export default defineConfig({
  srcDir: "extension",
  publicDir: "extension/public",
  // The zip test builds into a temporary folder, so the extension other browser tests load from
  // .output/chrome-mv3 is never rebuilt under them.
  outDir: process.env.ELNOR_EXTENSION_OUT_DIR ?? ".output",
  // `npm run zip`: the store archive (the built extension) and a sources archive with what rebuilds
  // it (`npm ci && npm run build`): the extension, the side panel, the shared contracts, the config.
  zip: {
    zipSources: true,
    excludeSources: [".output/**", "agent/**", "mcp/**", "e2e/**", "bench/**", "docs/screenshots/**", "ui/test-support/**", "BENCHMARKS.md"],
  },
  // auto-icons renders the one source image to icons/<size>.png (sharp) and lists them as `icons`.
  modules: ["@wxt-dev/module-svelte", "@wxt-dev/auto-icons"],
  autoIcons: { baseIconPath: "assets/icon.svg", sizes: [...ICON_SIZES], developmentIndicator: "overlay" },
  imports: false,
  manifest: {
    name: "elnor-learn — Ability Learning",
    description: "Teach your assistant a new ability by demonstrating it once.",
    minimum_chrome_version: "116",
    // Why each is asked for, when it is used and what the person sees: shared/common/extension-permissions.ts,
    // the one source of these lists, of docs/permissions.md and of the panel's "Why these permissions".
    // debugger: Chrome refuses it as an optional permission (permissions.request: "Only permissions
    // specified in the manifest may be requested"), so it is held here and gated by the person's
    // consent, asked at the first in-tab run in the side panel (panel-messages `run/allow-in-tab`).
    permissions: permissionNames("permission"),
    // Only the local agent is a permanent host; observed sites are asked for per session, at
    // Start, through chrome.permissions.request (extension/background/site-permissions.ts).
    host_permissions: permissionNames("host_permission"),
    optional_host_permissions: permissionNames("optional_host_permission"),
    action: { default_title: "Ability Learning", default_icon: iconFiles },
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
