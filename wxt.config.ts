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
    permissions: ["storage", "sidePanel"],
    // Only the local agent is a permanent host; observed sites are asked for per session.
    host_permissions: ["http://127.0.0.1/*", "http://localhost/*"],
    action: { default_title: "Ability Learning" },
  },
});
