import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { launchExtensionBrowser, pairPanel, type ExtensionBrowser } from "./extension-browser";

/**
 * What a Coaching Agent e2e runs against (issue #16): a real agent on a temp ELNOR_MEMORY, one
 * fixture page served on loopback, Chromium with the built extension, the page the person is on
 * opened before the panel (it prefills the start page), and the panel paired.
 */
export interface CoachingWorld {
  root: string;
  agent: AgentProcess;
  token: string;
  /** The fixture's origin. */
  site: string;
  chromium: ExtensionBrowser;
  panel: Page;
  close(): Promise<void>;
}

export async function startCoachingWorld(fixtureFile: string, options: { prefix: string; env?: Record<string, string> }): Promise<CoachingWorld> {
  const { root, cleanup } = await makeTempMemoryRoot(`${options.prefix}-`);
  const workspace = await mkdtemp(path.join(tmpdir(), `${options.prefix}-ws-`));
  const agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace, ...options.env });
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  const html = await readFile(fixtureFile);
  const fixture = http.createServer((_request, response) =>
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html),
  );
  await new Promise<void>((resolve) => fixture.listen(0, "127.0.0.1", resolve));
  const site = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
  const chromium = await launchExtensionBrowser();
  const start = await chromium.browser.newPage();
  await start.goto(`${site}/#/`);
  const panel = await chromium.openSidePanel();
  await pairPanel(panel, agent.url, token);
  return {
    root,
    agent,
    token,
    site,
    chromium,
    panel,
    async close() {
      await chromium.close();
      await agent.stop();
      fixture.close();
      await cleanup();
      await rm(workspace, { recursive: true, force: true });
    },
  };
}
