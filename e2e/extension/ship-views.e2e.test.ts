import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXTENSION_PERMISSIONS, PERMISSION_KINDS, permissionKindHeading } from "../../shared/common/extension-permissions";
import type { CaptureSessionState } from "../../shared/observation/capture-protocol";
import { badgeForSession, type BadgeSpec } from "../../extension/background/capture/capture-badge";
import { runBadge } from "../../extension/background/tab-lending/run-indicator";
import { askBadge, composeBadge } from "../../extension/background/run-notices/ask-badge";
import { ARTIFACTS_DIR, EXTENSION_DIR, launchExtensionBrowser, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";

/**
 * What a new user sees of the installed extension (issue #36): its own icon where Chrome lists
 * extensions, the toolbar button in each state the product shows, and "Why these permissions" in
 * the side panel, with the same text as docs/permissions.md. The screenshots in docs/screenshots/setup/
 * (chrome-extensions-card.png, toolbar-states.png, permissions-view.png) are these, copied from
 * e2e/artifacts/.
 */

const session = (state: CaptureSessionState["state"]): CaptureSessionState => ({
  learn_session_id: "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
  state,
  target_app_whitelist: ["shop.example.com"],
  redaction_modes: {},
});

/** The toolbar button's six looks, in the order a person meets them; asking: a run waits for the person's answer (issue #33). */
const TOOLBAR_STATES: Array<{ label: string; badge: BadgeSpec }> = [
  { label: "idle", badge: badgeForSession(null) },
  { label: "armed", badge: badgeForSession(session("armed")) },
  { label: "recording", badge: badgeForSession(session("capturing")) },
  { label: "paused", badge: badgeForSession(session("paused")) },
  { label: "running", badge: runBadge("Sign up for the newsletter") },
  { label: "asking", badge: composeBadge(runBadge("Sign up for the newsletter"), askBadge(["Sign up for the newsletter"])) },
];

let chrome: ExtensionBrowser;

beforeAll(async () => {
  chrome = await launchExtensionBrowser();
});

afterAll(async () => {
  await chrome?.close();
});

describe("the extension's own icon", () => {
  it("shows in Chrome's list of extensions instead of the grey letter placeholder", async () => {
    const page = await chrome.browser.newPage();
    await page.setViewport({ width: 900, height: 460 });
    await page.goto(`chrome://extensions/?id=${chrome.extensionId}`);
    // The details view shows the manifest's icon (Chrome hands it over as an image); without
    // one it shows its grey placeholder. Ours is the panel's blue (#2455c3) with a white pointer.
    const share = await page.waitForFunction(
      () => {
        const detail = document.querySelector("extensions-manager")?.shadowRoot?.querySelector("extensions-detail-view");
        const img = detail?.shadowRoot?.querySelector<HTMLImageElement>("#icon");
        if (img === null || img === undefined || !img.complete || img.naturalWidth === 0) return false;
        const canvas = document.createElement("canvas");
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const context = canvas.getContext("2d")!;
        context.drawImage(img, 0, 0);
        const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
        let blue = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (Math.abs(data[i]! - 0x24) < 24 && Math.abs(data[i + 1]! - 0x55) < 24 && Math.abs(data[i + 2]! - 0xc3) < 24 && data[i + 3]! > 200) blue += 1;
        }
        return blue / (data.length / 4);
      },
      { timeout: 15_000 },
    );
    expect(await share.jsonValue()).toBeGreaterThan(0.4);
    await saveScreenshot(page, "chrome-extensions-card");
    await page.close();
  });

  it("marks the toolbar button differently when idle, armed, recording, paused, running and asking", async () => {
    const looks = TOOLBAR_STATES.map(({ badge }) => `${badge.text}|${badge.text === "" ? "" : badge.color}`);
    expect(new Set(looks).size).toBe(TOOLBAR_STATES.length);
    expect(TOOLBAR_STATES.map(({ badge }) => badge.text)).toEqual(["", "ARM", "REC", "II", "RUN", "ASK"]);

    // Headless Chromium draws no toolbar: the built 16 and 32 px icons are laid out as Chrome's
    // toolbar draws them (a 16 px icon, its badge over the bottom right), at twice the scale.
    const icon = (size: number) =>
      readFile(path.join(EXTENSION_DIR, "icons", `${size}.png`)).then((bytes) => `data:image/png;base64,${bytes.toString("base64")}`);
    const [icon16, icon32] = await Promise.all([icon(16), icon(32)]);
    const page = await chrome.browser.newPage();
    await page.setViewport({ width: 620, height: 86, deviceScaleFactor: 2 });
    await page.setContent(toolbarStrip(icon16, icon32));
    await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0));
    const drawn = await page.$$eval(".state", (nodes) =>
      nodes.map((node) => ({ label: node.getAttribute("data-state"), badge: node.querySelector(".badge")?.textContent ?? "" })),
    );
    expect(drawn).toEqual(TOOLBAR_STATES.map(({ label, badge }) => ({ label, badge: badge.text })));
    await saveElementScreenshot(page, ".toolbar", "toolbar-states");
    await page.close();
  });
});

async function saveElementScreenshot(page: Page, selector: string, name: string): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const element = await page.waitForSelector(selector);
  await element!.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`) as `${string}.png` });
}

function toolbarStrip(icon16: string, icon32: string): string {
  const cells = TOOLBAR_STATES.map(
    ({ label, badge }) => `<figure class="state" data-state="${label}">
      <div class="button" title="${badge.title.replace(/"/g, "&quot;")}">
        <img src="${icon16}" srcset="${icon16} 1x, ${icon32} 2x" width="16" height="16" alt="">
        ${badge.text === "" ? "" : `<span class="badge" style="background:${badge.color}">${badge.text}</span>`}
      </div>
      <figcaption>${label}</figcaption>
    </figure>`,
  ).join("");
  return `<!doctype html><html><head><style>
    body { margin: 0; font: 12px system-ui, sans-serif; background: #dee1e6; }
    .toolbar { display: flex; gap: 18px; align-items: flex-start; padding: 14px 18px; background: #fff; border-bottom: 1px solid #c4c7c5; }
    figure { margin: 0; display: grid; justify-items: center; gap: 6px; width: 84px; }
    .button { position: relative; width: 28px; height: 28px; border-radius: 50%; display: grid; place-items: center; background: #f1f3f4; }
    .badge { position: absolute; right: -8px; bottom: -3px; min-width: 12px; padding: 0 3px; height: 13px; border-radius: 2px;
      color: #fff; font: 600 9px/13px system-ui, sans-serif; text-align: center; }
    figcaption { color: #444746; }
  </style></head><body><div class="toolbar">${cells}</div></body></html>`;
}

describe("Why these permissions, in the side panel", () => {
  let panel: Page;

  beforeAll(async () => {
    panel = await chrome.openSidePanel({ width: 360, height: 900 });
  });

  it("can be read before pairing and says, for each permission, what uses it, when and what the person sees", async () => {
    await panel.locator("footer button ::-p-text(Why these permissions)").click();
    await panel.waitForSelector('[data-view="why-permissions"]');
    const shown = await panel.$$eval('[data-view="why-permissions"] li[data-permission]', (items) =>
      items.map((item) => ({
        name: item.getAttribute("data-permission"),
        summary: item.querySelector("summary .summary")?.textContent?.trim(),
        texts: [...item.querySelectorAll("dd")].map((dd) => dd.textContent?.trim()),
      })),
    );
    expect(shown).toEqual(
      EXTENSION_PERMISSIONS.map((entry) => ({ name: entry.name, summary: entry.summary, texts: [entry.usedBy, entry.when, entry.youSee] })),
    );
    const headings = await panel.$$eval('[data-view="why-permissions"] h3', (nodes) => nodes.map((node) => node.textContent?.trim()));
    expect(headings).toEqual(PERMISSION_KINDS.map(permissionKindHeading));
    // The details of debugger, the one a person most wants explained, open as they would by a click.
    await panel.locator('li[data-permission="debugger"] summary').click();
    const debuggerOpen = await panel.$eval('li[data-permission="debugger"] details', (details) => (details as HTMLDetailsElement).open);
    expect(debuggerOpen).toBe(true);
    await saveElementScreenshot(panel, '[data-view="why-permissions"]', "permissions-view");
  });

  it("closes again", async () => {
    await panel.locator('[data-view="why-permissions"] button ::-p-text(Close)').click();
    await panel.waitForSelector('[data-view="why-permissions"]', { hidden: true });
  });
});
