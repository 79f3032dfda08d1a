import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../extension/background/capture/capture-control-plan";
import * as bg from "../test-support/capture-world";
import { memoryText, startCaptureWorld, waitUntil, type CaptureWorld } from "../test-support/capture-world";
import { contentWorld, sendFromContent } from "../test-support/content-world";
import { EXTENSION_DIR } from "../test-support/extension-browser";

/**
 * The background half of observation (issue #4) in real Chromium with the built extension and a
 * real agent: the socket, the session mirror and badge, the runtime registration for the allowed
 * sites only, recording, and what never leaves. The outbox, a service-worker stop and an agent
 * that goes down in the middle of a capture are in capture-resilience.e2e.test.ts; the set-up is
 * e2e/test-support/capture-world.ts.
 *
 * Site access: headless Chromium cannot answer the `chrome.permissions.request` prompt. A trusted
 * click on an extension page that calls it leaves the promise pending (the prompt is up, with no
 * way to answer it); CDP has no command for extension host permissions (puppeteer#5054,
 * devtools-protocol#76); `chrome.developerPrivate.addHostPermission` on chrome://extensions only
 * re-grants withheld manifest hosts, not optional ones. So the fixture sites live on 127.0.0.1,
 * which the manifest holds for the agent anyway: the panel's request for them resolves true
 * without a prompt, as it would for a user, and everything after it is the real path. A site
 * never granted (`shop.test`) shows that nothing is registered without the user's grant.
 */

let capture: CaptureWorld;
let chromium: CaptureWorld["chromium"];
let allowedOrigin: string;
let otherOrigin: string;

beforeAll(async () => {
  capture = await startCaptureWorld();
  ({ chromium, allowedOrigin, otherOrigin } = capture);
});

afterEach(async () => {
  if (capture?.openSession !== undefined && capture.agent !== undefined) await endSession(capture.openSession);
});

afterAll(async () => capture?.close());

const api = <T = unknown>(method: string, route: string, body?: unknown) => bg.api<T>(capture, method, route, body);
const badge = () => bg.badge(capture);
const waitForBadge = (text: string) => bg.waitForBadge(capture, text);
const registeredMatches = () => bg.registeredMatches(capture);
const startCapture = (allowList: string[]) => bg.startCapture(capture, allowList);
const endSession = (sessionId: string) => bg.endSession(capture, sessionId);
const storedLines = (sessionId: string) => bg.storedLines(capture, sessionId);
const boundariesOf = (sessionId: string) => bg.boundariesOf(capture, sessionId);
const sessionState = (sessionId: string) => bg.sessionState(capture, sessionId);

describe("the background service worker in real Chromium", () => {
  it("holds no web site permanently: only the agent's loopback hosts, sites asked for per session", async () => {
    const manifest = JSON.parse(await readFile(path.join(EXTENSION_DIR, "manifest.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.host_permissions).toEqual(["http://127.0.0.1/*", "http://localhost/*"]);
    expect(manifest.optional_host_permissions).toEqual(["http://*/*", "https://*/*"]);
    expect(JSON.stringify(manifest)).not.toContain("<all_urls>");
    expect(manifest.content_scripts ?? []).toEqual([]);
    expect(Object.keys(manifest.commands as object).sort()).toEqual(Object.values(COMMANDS).sort());
    expect(await registeredMatches()).toEqual([]);
    expect((await badge()).text).toBe("");
  });

  it("connects to the agent once paired, which lists it as healthy browser_dom and browser_snapshot adapters", async () => {
    const adapters = await waitUntil(
      async () => (await api<{ adapters: Array<{ adapter_id: string; kind: string; healthy: boolean }> }>("GET", "/api/observation/adapters")).body.adapters,
      (list) => list.filter((adapter) => adapter.healthy).length >= 2,
      "healthy browser adapters",
    );
    const ours = adapters.filter((adapter) => adapter.adapter_id.includes(chromium.extensionId) && adapter.healthy);
    expect(ours.map((adapter) => adapter.kind).sort()).toEqual(["browser_dom", "browser_snapshot"]);
  });

  it("R11.2-45: observes only the granted allowed site, shows ARM, REC and II in turn (the banner), and lets go of everything at Stop", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/checkout`);
    const shopWorld = await contentWorld(shop);
    const elsewhere = await chromium.browser.newPage();
    await elsewhere.goto(`${otherOrigin}/`);
    const elsewhereWorld = await contentWorld(elsewhere);

    const sessionId = await startCapture([allowedOrigin, "shop.test"]);
    const armed = await waitForBadge("ARM");
    expect(armed.title).toContain(allowedOrigin);
    // shop.test was never granted: only the granted site is registered.
    expect(await waitUntil(registeredMatches, (matches) => matches.length > 0, "a registration")).toEqual([`${allowedOrigin}/*`]);
    // The tab open before Start got the content script without a reload; the other site got none.
    const config = (await sendFromContent(shopWorld, { type: "capture/get-config" })) as { config: Record<string, unknown> };
    expect(config.config).toMatchObject({
      learn_session_id: sessionId,
      state: "armed",
      text_entry_mode: "mask_text",
      allowed_origins: [allowedOrigin, "shop.test"],
    });
    expect(String(config.config.hash_key)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(elsewhereWorld.contextId()).toBeUndefined();

    expect((await api("POST", `/api/learn/sessions/${sessionId}/mark-step`, { step_label: "Open the cart" })).status).toBe(200);
    expect((await waitForBadge("REC")).title).toContain("recording on");
    expect((await api("POST", `/api/learn/sessions/${sessionId}/pause`)).status).toBe(200);
    await waitForBadge("II");
    expect((await api("POST", `/api/learn/sessions/${sessionId}/resume`)).status).toBe(200);
    await waitForBadge("REC");

    expect((await api("POST", `/api/learn/sessions/${sessionId}/stop`)).status).toBe(200);
    await waitForBadge("");
    expect((await badge()).title).toBe("Ability Learning");
    expect(await waitUntil(registeredMatches, (matches) => matches.length === 0, "no registration")).toEqual([]);
    expect(await sendFromContent(shopWorld, { type: "capture/get-config" })).toEqual({ type: "capture/config", config: null });
    await endSession(sessionId);
    await shop.close();
    await elsewhere.close();
  });

  it("records a demonstration end to end: typed and clicked on the page, stored by the agent, typed text masked", async () => {
    const shop = await chromium.browser.newPage();
    await shop.goto(`${allowedOrigin}/checkout`);
    const sessionId = await startCapture([allowedOrigin]);
    await waitForBadge("ARM");
    const world = await contentWorld(shop);
    // The content script injected into this already-open tab has its config once it answers for it.
    await waitUntil(
      async () => world.contextId(),
      (id) => id !== undefined,
      "the content script in the open tab",
    );
    await waitUntil(
      () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
      (reply) => reply.config !== null,
      "the page's config",
    );
    const canary = `canary-${crypto.randomUUID()}`;
    await shop.locator('input[name="email"]').fill(canary);
    await shop.locator("#place").click();

    await waitUntil(
      () => sessionState(sessionId),
      (state) => state === "capturing",
      "the first meaningful event to start the capture",
    );
    await waitForBadge("REC");
    const events = await waitUntil(
      () => storedLines(sessionId),
      (lines) => lines.some((line) => line.includes("Place order")),
      "the click at the agent",
    );
    expect(events.join("\n")).not.toContain(canary);

    // The in-page indicator's buttons go through the background to the agent as the user's clicks.
    expect(await sendFromContent(world, { type: "capture/control", action: "pause" })).toEqual({ ok: true });
    await waitForBadge("II");
    expect(await sendFromContent(world, { type: "capture/control", action: "stop" })).toEqual({ ok: true });
    await waitForBadge("");
    expect(await sessionState(sessionId)).not.toMatch(/^(armed|capturing|paused)$/);
    const boundaries = await boundariesOf(sessionId);
    expect(boundaries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "pause", source: "user_click" }),
        expect.objectContaining({ kind: "stop", source: "user_click" }),
      ]),
    );
    await endSession(sessionId);
    await shop.close();
  });

  it("never lets a canary typed into a text field, a password, a textarea or a contenteditable reach ELNOR_MEMORY, the agent's logs or a WebSocket frame", async () => {
    const worker = await chromium.browser.waitForTarget(
      (target) => target.type() === "service_worker" && target.url() === `chrome-extension://${chromium.extensionId}/background.js`,
    );
    const network = await worker.createCDPSession();
    const frames: string[] = [];
    network.on("Network.webSocketFrameSent", ({ response }) => frames.push(response.payloadData));
    network.on("Network.webSocketFrameReceived", ({ response }) => frames.push(response.payloadData));
    await network.send("Network.enable");

    const profile = await chromium.browser.newPage();
    await profile.goto(`${allowedOrigin}/profile`);
    const sessionId = await startCapture([allowedOrigin]);
    const world = await contentWorld(profile);
    await waitUntil(
      () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
      (reply) => reply.config !== null,
      "the page's config",
    );
    const canary = `CANARY${crypto.randomUUID().replaceAll("-", "")}`;
    for (const selector of ['input[name="display_name"]', 'input[name="password"]', 'textarea[name="notes"]', "#bio"]) {
      await profile.click(selector);
      await profile.keyboard.type(`${canary}-${selector.length}`);
    }
    await profile.click("#save");
    const lines = await waitUntil(
      () => storedLines(sessionId),
      (stored) => stored.some((line) => line.includes("Save profile")) && stored.filter((line) => line.includes('"masked_field"')).length >= 4,
      "the four masked field edits and the click at the agent",
    );
    // The test can see the edits: each field's change was recorded, masked.
    const edits = lines
      .map((line) => JSON.parse(line) as { browser_detail?: { masked_field?: { masked: boolean } } })
      .filter((event) => event.browser_detail?.masked_field !== undefined);
    expect(edits.every((event) => event.browser_detail?.masked_field?.masked === true)).toBe(true);
    // The WebSocket carried the batch (so the frame capture works), and no frame carried the canary.
    await waitUntil(
      async () => frames.some((frame) => frame.includes("Save profile")),
      (seen) => seen,
      "the batch frame",
    );
    expect(frames.join("\n")).not.toContain(canary);
    expect(await memoryText(capture)).not.toContain(canary);
    expect(capture.agent!.output()).not.toContain(canary);
    expect(capture.agent!.output()).toContain("/api/observations/stream");
    await network.detach();
    await endSession(sessionId);
    await profile.close();
  });
});
