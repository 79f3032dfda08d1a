import path from "node:path";
import { svelte } from "@sveltejs/vite-plugin-svelte";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { WxtVitest } from "wxt/testing";

/**
 * Files that drive Chromium, agent processes or fuzzers (each 10 s to 5 min): started first, so the
 * two workers end on short files together instead of one waiting for the other's long one. A fresh
 * clone has no timings cached, and vitest would otherwise order by file size.
 */
const LONG_FILES =
  /^(e2e\/|agent\/(adversarial|execution|reference-adapter|learning\/(validation|coaching))\/|extension\/observation\/(content-capture|page-index\/)|ui\/runs\/run-panel)/;

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (file: TestSpecification) => LONG_FILES.test(path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join("/"));
    return [...sorted.filter(long), ...sorted.filter((file) => !long(file))];
  }
}

export default defineConfig({
  test: {
    // The agent compiled once from the current sources; tests that start agent processes run it.
    globalSetup: ["agent/test-support/agent-bundle-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Browser and child-process tests start real Chromium and real agents: keep the 2-core machine calm.
    maxWorkers: 2,
    fileParallelism: true,
    sequence: { sequencer: LongFilesFirst },
    /*
     * Three projects: what each file needs, and no more. `isolate: false` lets a worker keep the
     * modules it already imported for its next file (the unit tests' own state lives in what each
     * test makes: temp folders, ports, processes); end-to-end files, which drive Chromium and agent
     * processes for minutes, each start afresh.
     */
    projects: [
      {
        extends: true,
        // WxtVitest gives extension code its fake browser; svelte() compiles runes in *.svelte.ts.
        plugins: [WxtVitest(), svelte()],
        test: { name: "extension", isolate: false, include: ["ui/**/*.test.ts", "extension/**/*.test.ts"] },
      },
      {
        extends: true,
        // Node code needs neither plugin, and the fake browser's set-up costs about a second a file.
        test: { name: "node", isolate: false, include: ["shared/**/*.test.ts", "agent/**/*.test.ts", "mcp/**/*.test.ts", "bench/**/*.test.ts"] },
      },
      { extends: true, test: { name: "e2e", include: ["e2e/**/*.test.ts"] } },
    ],
  },
});
