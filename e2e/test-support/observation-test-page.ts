import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";
import { build, type Rollup } from "vite";
import { projectRoot } from "../../agent/test-support/agent-process";
import { CHROMIUM_PATH } from "./extension-browser";

/**
 * For tests that run extension/observation's modules in real Chromium: the modules bundled into one IIFE that
 * defines `globalName` in the page, and a page served from loopback with a browser to open it in.
 */

/** `modules` (paths under extension/observation, without `.ts`: `snapshot/snapshot-observer`) in one IIFE defining `globalName`. */
export async function bundleObservationModules(modules: readonly string[], globalName: string): Promise<string> {
  const entry = `virtual:${globalName}-entry`;
  const result = await build({
    configFile: false,
    root: projectRoot,
    logLevel: "silent",
    plugins: [
      {
        name: `${globalName}-entry`,
        resolveId: (id) => (id === entry ? `\0${entry}` : undefined),
        load: (id) =>
          id === `\0${entry}`
            ? modules.map((name) => `export * from ${JSON.stringify(path.join(projectRoot, "extension", "observation", `${name}.ts`))};`).join("\n")
            : undefined,
      },
    ],
    build: {
      write: false,
      minify: false,
      target: "es2022",
      rollupOptions: { input: entry, preserveEntrySignatures: "strict", output: { format: "iife", name: globalName } },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
  const chunk = outputs.flatMap((output) => output.output).find((item): item is Rollup.OutputChunk => item.type === "chunk");
  if (!chunk) throw new Error(`vite produced no chunk for ${modules.join(", ")}`);
  return chunk.code;
}

export interface ServedPage {
  browser: Browser;
  /** `http://127.0.0.1:<port>`: every path answers `html`. */
  origin: string;
  close(): Promise<void>;
}

/** Serves `html` on a free loopback port and launches headless Chromium. */
export async function servePageInChromium(html: string): Promise<ServedPage> {
  const server = http.createServer((_request, response) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: true, pipe: true, args: ["--no-sandbox", "--disable-gpu"] });
  return {
    browser,
    origin,
    close: async () => {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
