import type { HTTPRequest, Page } from "puppeteer-core";
import type { ExtensionBrowser } from "./extension-browser";

/**
 * Holding back chosen agent responses to the side panel, to make the moment between a part of the
 * panel showing and the rest arriving as long as a loaded machine does (the layout-shift tests).
 */

/** A side panel whose requests matching `held` wait until released (then the agent answers them). */
export interface PanelHoldingRequests {
  panel: Page;
  /** How many requests are held now. */
  held(): number;
  /** Waits until at least one request is held; false if none came in `timeout` ms. */
  waitForHeld(timeout?: number): Promise<boolean>;
  /** Lets the held requests (and any later one) through to the agent. */
  release(): Promise<void>;
  /** Fails the held requests as if the agent did not answer (later ones go through). */
  fail(): Promise<void>;
  /** Holds matching requests again from now on. */
  hold(): void;
}

/**
 * Opens the side panel with its requests whose URL passes `matches` held until `release()`.
 * Interception starts before the panel loads: a request already under way when it is turned on can
 * stay paused without ever being reported.
 */
export async function openPanelHolding(
  chromium: ExtensionBrowser,
  matches: (url: string) => boolean,
  viewport: { width: number; height: number },
  { holding: holdingAtStart = true }: { holding?: boolean } = {},
): Promise<PanelHoldingRequests> {
  const panel = await chromium.browser.newPage();
  await panel.setViewport(viewport);
  const held: HTTPRequest[] = [];
  let holding = holdingAtStart;
  await panel.setRequestInterception(true);
  panel.on("request", (request) => {
    if (holding && matches(request.url())) held.push(request);
    else void request.continue();
  });
  await panel.goto(`chrome-extension://${chromium.extensionId}/sidepanel.html`);
  return {
    panel,
    held: () => held.length,
    async waitForHeld(timeout = 10_000) {
      for (let waited = 0; held.length === 0 && waited < timeout; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      return held.length > 0;
    },
    async release() {
      holding = false;
      for (const request of held.splice(0)) await request.continue();
    },
    async fail() {
      holding = false;
      for (const request of held.splice(0)) await request.abort("connectionrefused");
    },
    hold() {
      holding = true;
    },
  };
}

/** Where the element matching `selector` is on screen (its centre), or null when there is none. */
export const centreOf = (panel: Page, selector: string) =>
  panel.evaluate((sel) => {
    const box = document.querySelector(sel)?.getBoundingClientRect();
    return box === undefined ? null : { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  }, selector);

/** Two painted frames: what the person sees after a change. */
export const afterPaint = (panel: Page) => panel.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
