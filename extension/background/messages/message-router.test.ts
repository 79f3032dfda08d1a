import { describe, expect, it } from "vitest";
import type { Browser } from "wxt/browser";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { captureConfigFor } from "../capture/capture-config";
import type { CaptureSession } from "../capture/capture-session";
import { createMessageRouter } from "./message-router";
import type { OutboxSender } from "../outbox/outbox-sender";
import { createParkedBatches } from "../outbox/parked-batches";
import { PARKED_BATCH_PREFIX } from "../../observation/common/capture-messages";

const EXTENSION_ID = "abcdefghijklmnopabcdefghijklmnop";
const SESSION: CaptureSessionState = {
  learn_session_id: "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
  state: "capturing",
  target_app_whitelist: ["http://127.0.0.1:8123"],
  redaction_modes: {},
};
const KEY = "k".repeat(43);

function event(sessionId = SESSION.learn_session_id): ObservedActionEventWithDetail {
  return {
    event_id: crypto.randomUUID(),
    learn_session_id: sessionId,
    adapter_kind: "browser_dom",
    action_label: "Click 'Place order'",
    caused_state_change: false,
    redaction_mode: "mask_text",
    created_at: new Date().toISOString(),
    schema_version: 1,
  };
}

function setup(session: CaptureSessionState | null = SESSION, storage: Record<string, unknown> = {}, foreign: string[] = []) {
  const enqueued: ObservedActionEventWithDetail[] = [];
  const told: Array<{ url: string; values: readonly string[] }> = [];
  const capture = {
    current: async () => session,
    configForPage: async () => captureConfigFor(session, KEY),
    foreignValues: async () => foreign,
    addTypedValues: async (_session: string, url: string, values: readonly string[]) => void told.push({ url, values }),
  } as Pick<CaptureSession, "current" | "configForPage" | "foreignValues" | "addTypedValues"> as CaptureSession;
  const outbox = {
    enqueue: async (events: readonly ObservedActionEventWithDetail[]) => {
      enqueued.push(...events);
      return { queued: events.length, duplicates: 0, refused: 0, snapshotsQueued: 0, snapshotsRefused: 0 };
    },
  } as Pick<OutboxSender, "enqueue"> as OutboxSender;
  const router = createMessageRouter({
    extensionId: EXTENSION_ID,
    capture,
    outbox: async () => outbox,
    control: async () => ({ ok: true }),
    ensureConnected: async () => "connected",
    linkState: () => "connected",
    lastControl: async () => null,
    lastFailure: async () => null,
    isGranted: async (url) => !url.includes(":8124"),
    inTabRuns: { allowed: async () => false, set: async () => undefined },
    hasDebugger: () => true,
    runActive: () => false,
    parked: createParkedBatches({
      get: async () => ({ ...storage }),
      remove: async (keys) => {
        for (const key of keys) delete storage[key];
      },
    }),
  });
  return { router, enqueued, storage, told };
}

const page = (url: string) => ({ id: EXTENSION_ID, url, tab: { id: 7 } as Browser.tabs.Tab, frameId: 0 });

describe("message router", () => {
  it("queues events from a page the session observes", async () => {
    const { router, enqueued } = setup();
    const reply = await router.route({ type: "capture/events", events: [event()], snapshots: [] }, page("http://127.0.0.1:8123/cart"));
    expect(reply).toEqual({ queued: 1, duplicates: 0, refused: 0 });
    expect(enqueued).toHaveLength(1);
  });

  it("cuts a value typed on another allowed site out of what this page sends, and tells this site the value its page showed (issue #30)", async () => {
    const { router, enqueued, told } = setup(SESSION, {}, ["ada.lovelace", "password123"]);
    const echoed = { ...event(), action_label: "Click 'Signed in as Ada.Lovelace'" };
    const reply = await router.route({ type: "capture/events", events: [echoed, event()], snapshots: [] }, page("http://127.0.0.1:8123/home"));
    expect(reply).toEqual({ queued: 2, duplicates: 0, refused: 0 });
    expect(enqueued[0]?.action_label).toBe("Click 'Signed in as •••'");
    expect(enqueued[1]?.action_label).toBe("Click 'Place order'");
    expect(JSON.stringify(enqueued).toLowerCase()).not.toContain("ada.lovelace");
    // Only what the page itself showed becomes its site's; the other value stays the other site's.
    expect(told).toEqual([{ url: "http://127.0.0.1:8123/home", values: ["ada.lovelace"] }]);
  });

  it("refuses events from a page off the allow-list, and says so", async () => {
    const { router, enqueued } = setup();
    const reply = await router.route({ type: "capture/events", events: [event()], snapshots: [] }, page("http://127.0.0.1:9999/"));
    expect(reply).toEqual({ queued: 0, duplicates: 0, refused: 1, refused_reason: "not_observed" });
    expect(enqueued).toHaveLength(0);
  });

  it("refuses events from an allowed page whose site access was taken back", async () => {
    const { router, enqueued } = setup({ ...SESSION, target_app_whitelist: ["http://127.0.0.1:8123", "http://127.0.0.1:8124"] });
    const reply = await router.route({ type: "capture/events", events: [event()], snapshots: [] }, page("http://127.0.0.1:8124/"));
    expect(reply).toMatchObject({ queued: 0, refused: 1, refused_reason: "not_observed" });
    expect(enqueued).toHaveLength(0);
  });

  it("refuses events once the capture is over", async () => {
    const { router, enqueued } = setup({ ...SESSION, state: "stopped" });
    const reply = await router.route({ type: "capture/events", events: [event()], snapshots: [] }, page("http://127.0.0.1:8123/"));
    expect(reply).toMatchObject({ queued: 0, refused: 1, refused_reason: "not_observed" });
    expect(enqueued).toHaveLength(0);
  });

  it("refuses events that claim another session", async () => {
    const { router } = setup();
    const reply = await router.route(
      { type: "capture/events", events: [event("9c1b2d3e-0000-4000-8000-000000000000")], snapshots: [] },
      page("http://127.0.0.1:8123/"),
    );
    expect(reply).toMatchObject({ refused: 1, refused_reason: "not_observed" });
  });

  it("answers a batch that breaks the contract instead of dropping it silently", async () => {
    const { router } = setup();
    const reply = await router.route({ type: "capture/events", events: [{ event_id: "x" }, {}], snapshots: [] }, page("http://127.0.0.1:8123/"));
    expect(reply).toEqual({ queued: 0, duplicates: 0, refused: 2, refused_reason: "invalid" });
  });

  it("keeps the valid events of a batch with an invalid one (the page does not validate its own output) and counts the rest as refused", async () => {
    const { router, enqueued } = setup();
    const good = event();
    const reply = await router.route(
      { type: "capture/events", events: [good, { ...event(), created_at: 7 }], snapshots: [{ sha256: "nope" }] },
      page("http://127.0.0.1:8123/"),
    );
    expect(reply).toEqual({ queued: 1, duplicates: 0, refused: 1, refused_reason: "invalid" });
    expect(enqueued.map((item) => item.event_id)).toEqual([good.event_id]);
  });

  it("takes the batches a page parked as it was left before a later batch, once, keeping only the session's events on its observed pages (issue #35)", async () => {
    const on = (url: string) => ({ ...event(), browser_detail: { page_url: url, selectors: [] } });
    const fill = on("http://127.0.0.1:8123/login");
    const click = on("http://127.0.0.1:8123/login");
    const elsewhere = on("http://127.0.0.1:9999/");
    const revoked = on("http://127.0.0.1:8124/");
    const otherSession = { ...on("http://127.0.0.1:8123/"), learn_session_id: "9c1b2d3e-0000-4000-8000-000000000000" };
    const storage: Record<string, unknown> = {
      [`${PARKED_BATCH_PREFIX}000000000000002:b`]: [{ type: "capture/events", events: [click, elsewhere, revoked, otherSession], snapshots: [] }],
      [`${PARKED_BATCH_PREFIX}000000000000001:a`]: [{ type: "capture/events", events: [fill], snapshots: [] }, { junk: true }],
      agentConnection: { token: "not ours to touch" },
    };
    const { router, enqueued } = setup({ ...SESSION, target_app_whitelist: ["http://127.0.0.1:8123", "http://127.0.0.1:8124"] }, storage);
    const next = event();
    await router.route({ type: "capture/events", events: [next], snapshots: [] }, page("http://127.0.0.1:8123/home"));
    expect(enqueued.map((item) => item.event_id)).toEqual([fill.event_id, click.event_id, next.event_id]);
    expect(Object.keys(storage)).toEqual(["agentConnection"]);
    // Taken once: the next batch finds nothing parked.
    await router.route({ type: "capture/events", events: [event()], snapshots: [] }, page("http://127.0.0.1:8123/home"));
    expect(enqueued).toHaveLength(4);
  });

  it("gives an observed page its config and any other page none", async () => {
    const { router } = setup();
    expect(await router.route({ type: "capture/get-config" }, page("http://127.0.0.1:8123/"))).toMatchObject({
      type: "capture/config",
      config: { learn_session_id: SESSION.learn_session_id, state: "capturing", hash_key: KEY },
    });
    expect(await router.route({ type: "capture/get-config" }, page("https://elsewhere.example/"))).toEqual({ type: "capture/config", config: null });
  });

  it("ignores other extensions, and panel requests that come from a web page", async () => {
    const { router } = setup();
    expect(router.route({ type: "capture/get-config" }, { ...page("http://127.0.0.1:8123/"), id: "another" })).toBeUndefined();
    expect(router.route({ type: "capture/status" }, page("http://127.0.0.1:8123/"))).toBeUndefined();
    expect(router.route({ type: "capture/status" }, { id: EXTENSION_ID, url: `chrome-extension://${EXTENSION_ID}/sidepanel.html` })).toBeDefined();
  });
});
