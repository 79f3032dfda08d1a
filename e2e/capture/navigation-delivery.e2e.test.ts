import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import { captureConfig, startContentHarness, type ContentHarness, type HarnessPage } from "../test-support/content-harness";

/**
 * What happens right before a page is left is handed over before the page is gone (issue #35), in
 * real Chromium through the content harness (the very module the content script runs). The worst
 * moments, made certain rather than hoped for: the background is slow to answer (a batch is still
 * waiting for its answer when the form posts), and the session hashes typed values (the hash is
 * not ready when the page goes). The drill with the whole extension and agent is
 * navigation-capture.e2e.test.ts.
 */

let harness: ContentHarness;

beforeAll(async () => {
  harness = await startContentHarness();
});

afterAll(async () => {
  await harness?.close();
});

/**
 * The events as the background keeps them: each id once, in the order it first arrived (a batch
 * whose answer had not come is handed over again as the page is left).
 */
function received(capture: HarnessPage): ObservedActionEventWithDetail[] {
  const seen = new Set<string>();
  return capture.events().filter((event) => !seen.has(event.event_id) && seen.add(event.event_id) !== undefined);
}

const actionLabels = (capture: HarnessPage) =>
  received(capture)
    .filter((event) => event.adapter_kind === "browser_dom")
    .map((event) => event.action_label);

async function signIn(capture: HarnessPage, password: string, submit: "enter" | "click", pauseMs: number): Promise<void> {
  const { page } = capture;
  await page.click("#username");
  await page.keyboard.type("someone");
  await page.click("#password");
  // The username's edit is handed over meanwhile (snapshot, then batch), and its answer is awaited.
  await new Promise((resolve) => setTimeout(resolve, pauseMs));
  await page.keyboard.type(password);
  const arrived = page.waitForNavigation({ waitUntil: "load" });
  if (submit === "enter") await page.keyboard.press("Enter");
  else await page.click("#login");
  await arrived;
  expect(new URL(page.url()).pathname).toBe("/signed-in.html");
}

const SIGN_IN = ["Open 'Sign in'", "Fill 'Username'", "Fill 'Password'"];

describe("no action lost at navigation (issue #35)", () => {
  it("hands over the password's fill, the Enter and the submit while an earlier batch still waits for a slow background's answer", async () => {
    const capture = await harness.open("/sign-in.html", { config: captureConfig([harness.origin]), replyDelayMs: 5000 });
    const password = "Slow-bg-Pw-71x!";
    await signIn(capture, password, "enter", 1000);
    // The new page's own events come later; what the old page saw is there already.
    const labels = actionLabels(capture);
    expect(labels.slice(0, 5)).toEqual([...SIGN_IN, "Press Enter in 'Password'", "Submit 'Log in'"]);
    const fill = received(capture).find((event) => event.action_label === "Fill 'Password'");
    expect(fill?.browser_detail?.masked_field).toMatchObject({ masked: true, reason: "secret_field" });
    expect(JSON.stringify(capture.events())).not.toContain(password);
    await capture.close();
  });

  it("hands over a click on the submit button that posts at once, each event once, with no after-snapshot (the next page's is)", async () => {
    const capture = await harness.open("/sign-in.html", { config: captureConfig([harness.origin]), replyDelayMs: 5000 });
    await signIn(capture, "Click-Pw-99q", "click", 1000);
    await capture.flush();
    const labels = actionLabels(capture);
    expect(labels).toEqual([...SIGN_IN, "Click 'Log in'", "Submit 'Log in'", "Open 'Dashboard'"]);
    const click = received(capture).find((event) => event.action_label === "Click 'Log in'");
    expect(click?.after_state_ref).toBeUndefined();
    await capture.close();
  });

  it("hands over a fill whose hash is not ready when the page goes: masked, without the value or its hash", async () => {
    const capture = await harness.open("/sign-in.html", { config: captureConfig([harness.origin], { text_entry_mode: "hash_only" }) });
    // A plain text field is hashed in this mode; typed and submitted with Enter at once.
    const { page } = capture;
    const name = "Hash-User-83k";
    await page.click("#username");
    await page.keyboard.type(name);
    const arrived = page.waitForNavigation({ waitUntil: "load" });
    await page.keyboard.press("Enter");
    await arrived;
    const fill = received(capture).find((event) => event.action_label === "Fill 'Username'");
    expect(fill, actionLabels(capture).join(" | ")).toBeDefined();
    const masked = fill?.browser_detail?.masked_field;
    expect(masked?.masked).toBe(true);
    // Either the hash made it in time or the page left first: never the value.
    expect(masked?.value_hash !== undefined || masked?.reason === "page left before the hash was ready").toBe(true);
    expect(JSON.stringify(capture.events())).not.toContain(name);
    await capture.close();
  });
});
