import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import puppeteer, { type Browser, type CDPSession, type Page } from "puppeteer-core";
import { build, type Rollup } from "vite";
import { projectRoot } from "../../agent/test-support/agent-process";
import type { ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import type { SnapshotUpload } from "../../shared/observation/capture-protocol";
import { ContentMessageSchema, type CaptureConfig, type ContentMessage } from "../../extension/observation/common/capture-messages";
import { CHROMIUM_PATH } from "./extension-browser";

/**
 * Runs the content half of observation in real Chromium without the background half: the very
 * module the content script uses (extension/observation/content-capture.ts) is bundled into an
 * IIFE with vite, injected into fixture pages served from e2e/fixtures on 127.0.0.1, started with a
 * CaptureConfig, and everything it would send to the background is collected from a sink.
 *
 * By default the capture runs in an isolated world (as a content script does), created through
 * CDP; `world: "main"` runs it in the page's own world, where an uncaught error would reach the
 * page's `error` listeners — the harsher place to prove it never does.
 */

const FIXTURES_DIR = path.join(projectRoot, "e2e", "fixtures");
const ENTRY = path.join(projectRoot, "extension", "observation", "content-capture.ts");
const WORLD = "elnor-capture";
const GLOBAL = "ElnorContentCapture";

export interface OpenOptions {
  /** The config the capture starts with; null: none at all. */
  config: CaptureConfig | null;
  world?: "isolated" | "main";
  /** The sink throws after recording each message (the capture must shrug it off). */
  throwInSink?: boolean;
  /** The sink answers each message this long after taking it (a slow background); default at once. */
  replyDelayMs?: number;
  /** "other" serves the page from http://localhost:<port>, a different origin than 127.0.0.1. */
  origin?: "allowed" | "other";
  /** Source run in the capture's world before the capture's own code (a test's instruments). */
  prelude?: string;
  /** The settled page's read this long after the debounced one (the capture's default when unset). */
  settleDelayMs?: number;
}

export interface HarnessPage {
  page: Page;
  /** Everything the capture handed to its sink, in order. */
  messages: ContentMessage[];
  events(): ObservedActionEventWithDetail[];
  snapshots(): SnapshotUpload[];
  controls(): string[];
  /** Console lines the capture printed (all worlds). */
  consoleLines: string[];
  setConfig(config: CaptureConfig | null): Promise<void>;
  /** Evaluates `expression` in the capture's world and returns its value (JSON-able). */
  valueOf(expression: string): Promise<unknown>;
  /** Takes the pending snapshot and delivers everything held. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface ContentHarness {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** http://localhost:<port>: same files, another origin. */
  otherOrigin: string;
  browser: Browser;
  open(pathAndQuery: string, options: OpenOptions): Promise<HarnessPage>;
  close(): Promise<void>;
}

/** Bundles the capture runtime into one IIFE that defines `ElnorContentCapture` in whatever world runs it. */
export async function bundleCaptureRuntime(): Promise<string> {
  const result = await build({
    configFile: false,
    root: projectRoot,
    logLevel: "silent",
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    build: {
      write: false,
      minify: false,
      target: "es2022",
      lib: { entry: ENTRY, formats: ["iife"], name: GLOBAL, fileName: () => "content-capture.js" },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
  const chunk = outputs.flatMap((output) => output.output).find((item): item is Rollup.OutputChunk => item.type === "chunk");
  if (!chunk) throw new Error("vite produced no chunk for the capture runtime");
  return chunk.code;
}

function serveFixtures(): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    void (async () => {
      const pathname = new URL(request.url ?? "/", "http://fixture").pathname;
      const file = path.join(FIXTURES_DIR, path.normalize(pathname).replace(/^([/\\])+/, ""));
      if (!file.startsWith(FIXTURES_DIR) || !existsSync(file) || !file.endsWith(".html")) {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(await readFile(file));
    })();
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

export async function startContentHarness(): Promise<ContentHarness> {
  const bundle = await bundleCaptureRuntime();
  const server = await serveFixtures();
  const { port } = server.address() as AddressInfo;
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    pipe: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const origin = `http://127.0.0.1:${port}`;
  const otherOrigin = `http://localhost:${port}`;

  return {
    origin,
    otherOrigin,
    browser,
    open: (pathAndQuery, options) => openPage(browser, bundle, `${options.origin === "other" ? otherOrigin : origin}${pathAndQuery}`, options),
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function openPage(browser: Browser, bundle: string, url: string, options: OpenOptions): Promise<HarnessPage> {
  const world = options.world ?? "isolated";
  const page = await browser.newPage();
  const cdp: CDPSession = await page.createCDPSession();
  const messages: ContentMessage[] = [];
  const consoleLines: string[] = [];
  let isolatedContextId: number | undefined;

  await cdp.send("Runtime.enable");
  await cdp.send("Page.enable");
  const { frameTree } = await cdp.send("Page.getFrameTree");
  const mainFrameId = frameTree.frame.id;
  cdp.on("Runtime.executionContextCreated", ({ context }) => {
    const auxData = context.auxData as { frameId?: string } | undefined;
    if (context.name === WORLD && auxData?.frameId === mainFrameId) isolatedContextId = context.id;
  });
  /** Messages the background would not take whole: the page no longer validates its own output, the background does. */
  const invalid: string[] = [];
  cdp.on("Runtime.bindingCalled", ({ name, payload }) => {
    if (name !== "__elnorSink") return;
    const message = JSON.parse(payload) as ContentMessage;
    const parsed = ContentMessageSchema.safeParse(message);
    if (!parsed.success) invalid.push(`${message.type}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`);
    messages.push(message);
  });
  cdp.on("Runtime.consoleAPICalled", ({ args }) => {
    consoleLines.push(args.map((arg) => String(arg.value ?? arg.description ?? "")).join(" "));
  });
  await cdp.send("Runtime.addBinding", world === "isolated" ? { name: "__elnorSink", executionContextName: WORLD } : { name: "__elnorSink" });

  const bootstrap = `
${options.prelude ?? ""}
${bundle}
;(() => {
  if (window.top !== window) return;
  const sink = globalThis.__elnorSink;
  const capture = ${GLOBAL}.createContentCapture({
    send(message) {
      sink(JSON.stringify(message));
      if (${options.throwInSink === true}) throw new Error("sink exploded");
      const delay = ${options.replyDelayMs ?? 0};
      if (delay > 0) return new Promise((resolve) => setTimeout(resolve, delay));
    },
    ${options.settleDelayMs === undefined ? "" : `settleDelayMs: ${options.settleDelayMs},`}
  });
  globalThis.__elnorHarness = capture;
  const start = () => capture.setConfig(${JSON.stringify(options.config)});
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
})();`;
  await cdp.send("Page.addScriptToEvaluateOnNewDocument", world === "isolated" ? { source: bootstrap, worldName: WORLD } : { source: bootstrap });
  await page.goto(url, { waitUntil: "load" });

  const evaluate = async (expression: string): Promise<void> => {
    if (world === "main") {
      await page.evaluate(expression);
      return;
    }
    if (isolatedContextId === undefined) throw new Error("the capture's isolated world was not created");
    const result = await cdp.send("Runtime.evaluate", { expression, contextId: isolatedContextId, awaitPromise: true });
    if (result.exceptionDetails) throw new Error(`harness evaluate failed: ${result.exceptionDetails.text}`);
  };
  // Let the capture apply its first config (it starts at DOMContentLoaded).
  await evaluate("Promise.resolve(globalThis.__elnorHarness && globalThis.__elnorHarness.flush())");

  const ofType = <T extends ContentMessage["type"]>(type: T) => {
    if (invalid.length > 0) throw new Error(`the capture sent messages that break the contract: ${invalid.join(" | ")}`);
    return messages.filter((message): message is Extract<ContentMessage, { type: T }> => message.type === type);
  };
  return {
    page,
    messages,
    consoleLines,
    events: () => ofType("capture/events").flatMap((message) => message.events),
    snapshots: () => ofType("capture/events").flatMap((message) => message.snapshots),
    controls: () => ofType("capture/control").map((message) => message.action),
    setConfig: (config) => evaluate(`globalThis.__elnorHarness.setConfig(${JSON.stringify(config)})`),
    async valueOf(expression) {
      if (world === "main") return page.evaluate(expression);
      if (isolatedContextId === undefined) throw new Error("the capture's isolated world was not created");
      const result = await cdp.send("Runtime.evaluate", { expression, contextId: isolatedContextId, awaitPromise: true, returnByValue: true });
      if (result.exceptionDetails) throw new Error(`harness evaluate failed: ${result.exceptionDetails.text}`);
      return result.result.value as unknown;
    },
    // Bindings deliver asynchronously: give the last ones a moment to arrive.
    flush: async () => {
      await evaluate("globalThis.__elnorHarness.flush()");
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
    close: () => page.close(),
  };
}

/** A capture config for tests: capturing, masked, allowed on the given origins. */
export function captureConfig(allowedOrigins: string[], overrides: Partial<CaptureConfig> = {}): CaptureConfig {
  return {
    learn_session_id: "6f1c2a0e-8a3b-4c1d-9e2f-0a1b2c3d4e5f",
    state: "capturing",
    text_entry_mode: "mask_text",
    hash_key: "dGVzdC1zZXNzaW9uLWhtYWMta2V5LTEyMzQ1Ng",
    allowed_origins: allowedOrigins,
    typed_values: [],
    ...overrides,
  };
}
