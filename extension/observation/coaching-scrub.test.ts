import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COACHING_SCRUB_REPLY, COACHING_SCRUB_REQUEST } from "../../shared/observation/coaching-scrub";
import { captureConfig, startContentHarness, type ContentHarness } from "../../e2e/support/content-harness";
import { CHROMIUM_PATH } from "../../e2e/support/extension-browser";

/**
 * The recorder's answer to the Coaching Agent's page reader (coaching-scrub.ts), across worlds as
 * in the person's tab: the capture runs in an isolated world (the content harness), the request is
 * dispatched from the page's main world, where the agent's reader runs through CDP.
 */

let harness: ContentHarness;

beforeAll(async () => {
  harness = await startContentHarness();
});

afterAll(async () => {
  await harness?.close();
});

/** Dispatches a request from the main world; the reply's detail, or null when none came. */
function ask(page: Page, detail: unknown): Promise<string | null> {
  return page.evaluate(
    (request, reply, sent) => {
      let answer: unknown = null;
      const onReply = (event: Event) => {
        answer = (event as CustomEvent<unknown>).detail;
      };
      document.addEventListener(reply, onReply);
      document.dispatchEvent(new CustomEvent(request, { detail: sent }));
      document.removeEventListener(reply, onReply);
      return typeof answer === "string" ? answer : null;
    },
    COACHING_SCRUB_REQUEST,
    COACHING_SCRUB_REPLY,
    detail,
  );
}

describe.skipIf(!existsSync(CHROMIUM_PATH))("the recorder's answer to the coaching reader", () => {
  it("cuts every typed value out of the strings the reader sends, synchronously, and answers only while it records", async () => {
    const capture = await harness.open("/signup.html", { config: captureConfig([harness.origin]) });
    try {
      const canary = `zq8canary${randomUUID().slice(0, 8)}`;
      await capture.page.type("#full-name", canary);
      const request = JSON.stringify({ texts: [`Results for ${canary}`, `${canary.toUpperCase()} ×`, "Sign up"], urls: [`${harness.origin}/signup.html#/search/${canary}`] });
      const reply = await ask(capture.page, request);
      expect(reply).not.toBeNull();
      expect(reply).not.toContain(canary);
      // The address names the typed value by its reference, or masks it as a secret when it is shaped like a token (url-rule.ts).
      expect(JSON.parse(reply!)).toEqual({ texts: ["Results for •••", "••• ×", "Sign up"], urls: [expect.stringMatching(new RegExp(`^${harness.origin}/signup\\.html#/search/\\*(typed-[0-9a-f]{12}\\*)?$`))] });
      // Not a JSON string (an object does not cross worlds), or not the request's shape: no answer.
      expect(await ask(capture.page, { texts: [canary], urls: [] })).toBeNull();
      expect(await ask(capture.page, "not json")).toBeNull();
      expect(await ask(capture.page, JSON.stringify({ texts: "one" }))).toBeNull();
      // Stopped: the page is no longer recorded, nothing answers (the reader keeps nothing).
      await capture.setConfig(null);
      expect(await ask(capture.page, request)).toBeNull();
    } finally {
      await capture.close();
    }
  }, 30_000);

  it("does not answer on a page it does not record", async () => {
    const capture = await harness.open("/signup.html", { config: captureConfig(["https://elsewhere.example"]) });
    try {
      expect(await ask(capture.page, JSON.stringify({ texts: ["Sign up"], urls: [] }))).toBeNull();
    } finally {
      await capture.close();
    }
  }, 30_000);
});
