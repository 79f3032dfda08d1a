import { svelte } from "@sveltejs/vite-plugin-svelte";
import { defineConfig } from "vitest/config";
import { WxtVitest } from "wxt/testing";

export default defineConfig({
  test: {
    // The agent compiled once from the current sources; tests that start agent processes run it.
    globalSetup: ["agent/test-support/agent-bundle-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Browser and child-process tests start real Chromium and real agents: keep the 2-core machine calm.
    maxWorkers: 2,
    fileParallelism: true,
    projects: [
      {
        extends: true,
        // WxtVitest gives extension code its fake browser; svelte() compiles runes in *.svelte.ts.
        plugins: [WxtVitest(), svelte()],
        test: { name: "extension", include: ["ui/**/*.test.ts", "extension/**/*.test.ts"] },
      },
      {
        extends: true,
        // Node code needs neither plugin, and the fake browser's setup costs about a second per file.
        test: {
          name: "node",
          include: ["shared/**/*.test.ts", "agent/**/*.test.ts", "mcp/**/*.test.ts", "e2e/**/*.test.ts", "bench/**/*.test.ts"],
        },
      },
    ],
  },
});
