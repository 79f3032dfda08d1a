import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";
import { CHROMIUM_ARGS } from "../managed-browser";
import { readPageSeen } from "./page-seen";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

describe("what the page showed where an execution stopped", () => {
  let browser: Browser;
  let page: Page;
  let temp: string;
  beforeAll(async () => {
    temp = await mkdtemp(path.join(tmpdir(), "elnor-page-seen-"));
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      pipe: true,
      userDataDir: path.join(temp, "profile"),
      args: [...CHROMIUM_ARGS],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 800, height: 600, deviceScaleFactor: 1 });
  });
  afterAll(async () => {
    await browser?.close();
    await rm(temp, { recursive: true, force: true });
  });

  /** The colour of one pixel of a PNG, read by drawing it in the browser. */
  async function pixelAt(png: Buffer, x: number, y: number): Promise<number[]> {
    const reader = await browser.newPage();
    try {
      await reader.setContent(`<img id="shot" src="data:image/png;base64,${png.toString("base64")}">`);
      await reader.waitForFunction(() => (document.getElementById("shot") as HTMLImageElement).complete);
      return await reader.evaluate(
        (px, py) => {
          const image = document.getElementById("shot") as HTMLImageElement;
          const canvas = document.createElement("canvas");
          canvas.width = image.naturalWidth;
          canvas.height = image.naturalHeight;
          const context = canvas.getContext("2d") as CanvasRenderingContext2D;
          context.drawImage(image, 0, 0);
          return [...context.getImageData(px, py, 1, 1).data].slice(0, 3);
        },
        x,
        y,
      );
    } finally {
      await reader.close();
    }
  }

  it("keeps no secret the app put in its address: session ids and tokens are masked, what routes stays (issue #35)", async () => {
    const server = http.createServer((_, response) => response.writeHead(200, { "content-type": "text/html" }).end("<title>Home</title><h1>Home</h1>"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const own = await browser.newPage();
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await own.goto(`${origin}/home.php?page=start&sid=8f3kq0v1l2m3#access_token=ya29abc`);
      const seen = await readPageSeen(own, { redact: (text) => text, holdsValue: () => false });
      expect(seen.url).toBe(`${origin}/home.php?page=start&sid=*#access_token=*`);
    } finally {
      await own.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("lists title, headings and buttons without the values, and covers them in the screenshot it writes", async () => {
    await page.setContent(`<!doctype html><title>Hi Captain Nemo</title><body style="margin:0;background:#fff">
      <h1 id="hello" style="font:40px sans-serif;margin:0;padding:20px;color:#000">Hello Captain Nemo</h1>
      <h2 style="font:20px sans-serif;margin:20px">Settings</h2>
      <input id="nick" value="Captain Nemo" style="font:20px sans-serif;margin:20px;width:300px">
      <button>Save</button><a href="#x">Delete Captain Nemo</a></body>`);
    const values = ["Captain Nemo"];
    const scrubber = createTypedValueScrubber(values);
    const screenshotPath = path.join(temp, "stop.png");
    const seen = await readPageSeen(page, { redact: (text) => scrubber.scrub(text), holdsValue: (text) => scrubber.contains(text), screenshotPath });

    expect(seen).toEqual({
      url: "about:blank",
      title: "Hi •••",
      headings: ["Hello •••", "Settings"],
      buttons: ["Save", "Delete •••"],
      screenshot_ref: "stop.png",
    });
    // The covers are gone from the page again.
    expect(await page.$$eval("body *", (elements) => elements.length)).toBe(5);

    const png = await readFile(screenshotPath);
    const centre = async (selector: string) =>
      page.$eval(selector, (element) => {
        // The text itself for a heading (the element is as wide as the page), the box for a field.
        const range = document.createRange();
        range.selectNodeContents(element);
        const rect = element instanceof HTMLInputElement ? element.getBoundingClientRect() : range.getBoundingClientRect();
        return { x: Math.round(rect.left + rect.width / 2), y: Math.round(rect.top + rect.height / 2) };
      });
    const heading = await centre("#hello");
    const field = await centre("#nick");
    const background = await pixelAt(png, 790, 590);
    expect(background).toEqual([255, 255, 255]);
    // Where the value was written, the screenshot shows the cover's grey, not text on white.
    expect(await pixelAt(png, heading.x, heading.y)).toEqual([68, 68, 68]);
    expect(await pixelAt(png, field.x, field.y)).toEqual([68, 68, 68]);
  });
});
