import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "wxt/browser";
import { startAgentProcess } from "../../agent/test-support/agent-process";
import * as bg from "../test-support/capture-world";
import { observedEvent, serviceWorker, startCaptureWorld, waitUntil, type CaptureWorld } from "../test-support/capture-world";
import { contentWorld, sendFromContent } from "../test-support/content-world";

/**
 * The background half of observation (issue #4) in real Chromium with the built extension and a
 * real agent, when something stops in the middle of a capture: the service worker (Chrome stops an
 * idle one), the agent (stopped, or killed with SIGKILL). The outbox keeps what the page sent and
 * delivers each event once. The set-up and why the sites live on 127.0.0.1:
 * e2e/test-support/capture-world.ts and background-capture.e2e.test.ts.
 */

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

let capture: CaptureWorld;
let chromium: CaptureWorld["chromium"];
let allowedOrigin: string;

beforeAll(async () => {
  capture = await startCaptureWorld();
  ({ chromium, allowedOrigin } = capture);
});

afterEach(async () => {
  if (capture?.openSession !== undefined && capture.agent !== undefined) await endSession(capture.openSession);
});

afterAll(async () => capture?.close());

const badge = () => bg.badge(capture);
const waitForBadge = (text: string) => bg.waitForBadge(capture, text);
const registeredMatches = () => bg.registeredMatches(capture);
const startCapture = (allowList: string[]) => bg.startCapture(capture, allowList);
const endSession = (sessionId: string) => bg.endSession(capture, sessionId);
const storedLines = (sessionId: string) => bg.storedLines(capture, sessionId);
const storedEventIds = (sessionId: string) => bg.storedEventIds(capture, sessionId);

describe("the background service worker in real Chromium", () => {
  it("keeps capturing through a service-worker stop, and the badge comes back", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/cart`);
    const sessionId = await startCapture([allowedOrigin]);
    await waitForBadge("ARM");
    const world = await contentWorld(shop);
    await waitUntil(
      () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
      (reply) => reply.config !== null,
      "the page's config",
    );
    const clicksStored = async () => (await storedLines(sessionId)).filter((line) => line.includes("Place order")).length;
    await shop.locator("#place").click();
    await waitUntil(clicksStored, (count) => count === 1, "the first click at the agent");
    await waitForBadge("REC");

    // Wipe the badge, then stop the worker: only its start-up can put the badge back. The side
    // panel checks the capture's health every few seconds, which would wake the worker at once, so
    // it is closed for this part (a user closing the panel) and opened again afterwards.
    await capture.panel.evaluate(() => chrome.action.setBadgeText({ text: "" }));
    await capture.panel.close();
    await (await serviceWorker(capture)).close();
    await waitUntil(
      async () => chromium.browser.targets().some((target) => target.type() === "service_worker" && target.url().endsWith("/background.js")),
      (running) => !running,
      "the service worker to stop",
    );

    // The page goes on recording; its next message wakes the worker, which picks the capture up.
    await shop.locator("#place").click();
    await waitUntil(clicksStored, (count) => count === 2, "the click made while the worker was stopped, at the agent");
    capture.panel = await chromium.openSidePanel();
    await waitForBadge("REC");
    expect((await badge()).title).toContain(allowedOrigin);
    expect(await registeredMatches()).toEqual([`${allowedOrigin}/*`]);
    // A synthetic event of this page is taken too, so the outbox is alive after the restart.
    const later = observedEvent(sessionId, `${allowedOrigin}/cart`, "Click 'Checkout'");
    expect(await sendFromContent(world, { type: "capture/events", events: [later], snapshots: [] })).toEqual({ queued: 1, duplicates: 0, refused: 0 });
    await waitUntil(
      () => storedEventIds(sessionId),
      (ids) => ids.includes(later.event_id),
      "the later event at the agent",
    );
    await endSession(sessionId);
    await waitForBadge("");
    await shop.close();
  });

  it("keeps events in the outbox while the agent is down and delivers each once when it is back", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/orders`);
    const sessionId = await startCapture([allowedOrigin]);
    const world = await contentWorld(shop);
    const before = observedEvent(sessionId, `${allowedOrigin}/orders`, "Click 'Orders'");
    await sendFromContent(world, { type: "capture/events", events: [before], snapshots: [] });
    await waitUntil(
      () => storedEventIds(sessionId),
      (ids) => ids.includes(before.event_id),
      "the event before the outage",
    );

    const port = capture.agent!.port;
    expect(await capture.agent!.stop()).toBe(0);
    capture.agent = undefined;
    const during = Array.from({ length: 30 }, (_, index) => observedEvent(sessionId, `${allowedOrigin}/orders`, `Click 'Row ${index + 1}'`));
    expect(await sendFromContent(world, { type: "capture/events", events: during, snapshots: [] })).toEqual({ queued: 30, duplicates: 0, refused: 0 });
    // Ours, and whatever the page's own content script recorded meanwhile (its page-load snapshot).
    const waiting = (await capture.panel.evaluate(() => chrome.runtime.sendMessage({ type: "capture/outbox-status" }))) as {
      queued: number;
      near_full: boolean;
    };
    expect(waiting).toMatchObject({ capacity: 20_000, near_full: false, refused: 0 });
    expect(waiting.queued).toBeGreaterThanOrEqual(30);
    // The same status is kept where the side panel can watch it.
    const kept = (await capture.panel.evaluate(() => chrome.storage.session.get("outboxStatus"))) as { outboxStatus: { queued: number } };
    expect(kept.outboxStatus.queued).toBe(waiting.queued);

    capture.agent = await startAgentProcess(capture.root, { ELNOR_AGENT_PORT: String(port), ELNOR_LOG_LEVEL: "trace" });
    const ids = await waitUntil(
      () => storedEventIds(sessionId),
      (stored) => during.every((event) => stored.includes(event.event_id)),
      "every event of the outage at the agent",
      45_000,
    );
    for (const event of [before, ...during]) expect(ids.filter((id) => id === event.event_id)).toHaveLength(1);
    await waitUntil(
      () => capture.panel.evaluate(() => chrome.runtime.sendMessage({ type: "capture/outbox-status" })) as Promise<{ queued: number }>,
      (status) => status.queued === 0,
      "an empty outbox",
    );
    await endSession(sessionId);
    await shop.close();
  }, 60_000);

  it("delivers every event exactly once when the agent is killed (SIGKILL) in the middle of a capture and restarted", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/checkout`);
    const sessionId = await startCapture([allowedOrigin]);
    const world = await contentWorld(shop);
    await waitUntil(
      () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
      (reply) => reply.config !== null,
      "the page's config",
    );
    const clicks = async () => (await storedLines(sessionId)).filter((line) => line.includes("Place order")).length;
    for (let i = 0; i < 3; i += 1) await shop.locator("#place").click();
    await waitUntil(clicks, (count) => count === 3, "the clicks before the crash");

    const port = capture.agent!.port;
    capture.agent!.proc.kill("SIGKILL");
    await new Promise<void>((resolve) => capture.agent!.proc.once("exit", () => resolve()));
    capture.agent = undefined;
    for (let i = 0; i < 4; i += 1) await shop.locator("#place").click();
    // Give the page time to hand its batch to the background's outbox while the agent is gone.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    capture.agent = await startAgentProcess(capture.root, { ELNOR_AGENT_PORT: String(port), ELNOR_LOG_LEVEL: "trace" });
    await waitUntil(clicks, (count) => count >= 7, "every click at the agent after the restart", 45_000);
    const ids = await storedEventIds(sessionId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await clicks()).toBe(7);
    await endSession(sessionId);
    await shop.close();
  }, 60_000);
});
