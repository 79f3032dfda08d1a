import { describe, expect, it } from "vitest";
import type { AgentTabFrame } from "../../../shared/observation/tab-relay-protocol";
import { allowListOfRunSites } from "./tab-provider";
import { createTabRelay, TabRunRefused, type TabChannel, type TabRelayLink } from "./tab-relay";
import { createTabTransport } from "./tab-transport";

/** An extension socket as the relay sees it: the frames it was sent. */
function fakeLink(): TabRelayLink & { sent: AgentTabFrame[] } {
  const sent: AgentTabFrame[] = [];
  return {
    sent,
    send(frame) {
      sent.push(frame);
      return true;
    },
  };
}

let ids = 0;
const relayWithIds = () => createTabRelay({ newId: () => `lease-000${(ids += 1)}` });

async function lentTab(url = "http://127.0.0.1:8123/form") {
  const relay = relayWithIds();
  const link = fakeLink();
  relay.connect(link);
  const opening = relay.open({ allowedSites: ["127.0.0.1:8123"], label: "Fill the form", deadline: Date.now() + 2_000 });
  await Promise.resolve();
  const open = link.sent[0] as Extract<AgentTabFrame, { type: "tab_open" }>;
  relay.receive(link, { type: "tab_opened", lease_id: open.lease_id, tab_id: 7, url });
  return { relay, link, channel: await opening, leaseId: open.lease_id };
}

/** Puppeteer's side of the transport: what it was told, parsed. */
function puppeteerSide(channel: TabChannel, allowedSites = ["127.0.0.1:8123"]) {
  const transport = createTabTransport({ channel, allowedSites });
  const received: Array<Record<string, any>> = [];
  transport.onmessage = (message) => void received.push(JSON.parse(message));
  let closed = false;
  transport.onclose = () => void (closed = true);
  return { transport, received, closed: () => closed, send: (message: Record<string, unknown>) => transport.send(JSON.stringify(message)) };
}

describe("tab relay (agent side of in-tab runs)", () => {
  it("refuses with EXTENSION_NOT_CONNECTED when no extension socket is up by the deadline", async () => {
    const relay = relayWithIds();
    const error = await relay.open({ allowedSites: ["shop.example.com"], label: "x", deadline: Date.now() + 50 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TabRunRefused);
    expect((error as TabRunRefused).code).toBe("EXTENSION_NOT_CONNECTED");
  });

  it("asks the newest extension socket for the tab and turns its refusal into a coded error", async () => {
    const relay = relayWithIds();
    const older = fakeLink();
    const newer = fakeLink();
    relay.connect(older);
    relay.connect(newer);
    const opening = relay.open({ tabId: 3, allowedSites: ["shop.example.com"], label: "Buy", deadline: Date.now() + 2_000 });
    await Promise.resolve();
    expect(older.sent).toEqual([]);
    const open = newer.sent[0] as Extract<AgentTabFrame, { type: "tab_open" }>;
    expect(open).toMatchObject({ type: "tab_open", tab_id: 3, allowed_sites: ["shop.example.com"], label: "Buy" });
    // A frame from another socket for this lease is not taken for the answer.
    relay.receive(older, { type: "tab_opened", lease_id: open.lease_id, tab_id: 3, url: "https://shop.example.com/" });
    relay.receive(newer, { type: "tab_refused", lease_id: open.lease_id, code: "IN_TAB_NOT_ALLOWED", message: "not allowed yet" });
    const error = await opening.catch((caught: unknown) => caught);
    expect((error as TabRunRefused).code).toBe("IN_TAB_NOT_ALLOWED");
  });

  it("ends a lease as link_lost when its socket goes, and tells puppeteer the connection closed", async () => {
    const relay = relayWithIds();
    const link = fakeLink();
    const disconnect = relay.connect(link);
    const opening = relay.open({ allowedSites: ["127.0.0.1:8123"], label: "x", deadline: Date.now() + 2_000 });
    await Promise.resolve();
    const open = link.sent[0] as Extract<AgentTabFrame, { type: "tab_open" }>;
    relay.receive(link, { type: "tab_opened", lease_id: open.lease_id, tab_id: 7, url: "http://127.0.0.1:8123/" });
    const channel = await opening;
    const side = puppeteerSide(channel);
    const ends: string[] = [];
    channel.onEnded((end) => ends.push(end.reason));
    disconnect();
    expect(ends).toEqual(["link_lost"]);
    expect(side.closed()).toBe(true);
    expect(relay.connected()).toBe(false);
  });

  it("a Stop reported by the extension ends the lease once, with its reason", async () => {
    const { relay, link, channel, leaseId } = await lentTab();
    const ends: string[] = [];
    channel.onEnded((end) => ends.push(end.reason));
    relay.receive(link, { type: "tab_ended", lease_id: leaseId, reason: "user_stop", message: "the person pressed Stop in the page" });
    relay.receive(link, { type: "tab_ended", lease_id: leaseId, reason: "released", message: "again" });
    expect(ends).toEqual(["user_stop"]);
    expect(channel.sendCdp({ id: 1, method: "Page.reload" })).toBe(false);
  });
});

describe("tab transport (puppeteer's view of one lent tab)", () => {
  it("answers the browser-level discovery for one tab and one page, without asking the extension", async () => {
    const { link, channel } = await lentTab();
    const side = puppeteerSide(channel);
    side.send({ id: 1, method: "Target.setDiscoverTargets", params: { discover: true } });
    side.send({ id: 2, method: "Target.setAutoAttach", params: { autoAttach: true, flatten: true } });
    side.send({ id: 3, method: "Target.setAutoAttach", params: { autoAttach: true, flatten: true }, sessionId: "elnor-tab-session" });
    expect(side.received.filter((message) => message.method === "Target.targetCreated").map((message) => message.params.targetInfo.type)).toEqual([
      "tab",
      "page",
    ]);
    const attached = side.received.filter((message) => message.method === "Target.attachedToTarget");
    expect(attached.map((message) => [message.sessionId, message.params.sessionId, message.params.targetInfo.url])).toEqual([
      [undefined, "elnor-tab-session", "http://127.0.0.1:8123/form"],
      ["elnor-tab-session", "elnor-page-session", "http://127.0.0.1:8123/form"],
    ]);
    expect(link.sent.filter((frame) => frame.type === "tab_cdp")).toEqual([]);
  });

  it("refuses a navigation off the run's sites and new targets before anything reaches the extension", async () => {
    const { link, channel } = await lentTab();
    const side = puppeteerSide(channel);
    side.send({ id: 1, method: "Page.navigate", params: { url: "https://evil.example/steal?card=1" }, sessionId: "elnor-page-session" });
    side.send({ id: 2, method: "Target.createTarget", params: { url: "http://127.0.0.1:8123/" } });
    side.send({ id: 3, method: "Page.navigate", params: { url: "http://127.0.0.1:8123/next" }, sessionId: "elnor-page-session" });
    expect(side.received.find((message) => message.id === 1)?.error.message).toBe(
      "SITE_NOT_ALLOWED: evil.example is not one of the sites this run may touch (127.0.0.1:8123).",
    );
    expect(side.received.find((message) => message.id === 2)?.error.message).toMatch(/not available in a lent tab/);
    const relayed = link.sent.filter((frame) => frame.type === "tab_cdp");
    expect(relayed).toEqual([expect.objectContaining({ method: "Page.navigate", params: { url: "http://127.0.0.1:8123/next" } })]);
  });

  it("routes answers to the session that asked, and Fetch events only to the sessions that enabled Fetch", async () => {
    const { relay, link, channel, leaseId } = await lentTab();
    const side = puppeteerSide(channel);
    side.send({ id: 1, method: "Target.attachToTarget", params: { targetId: "elnor-page-target", flatten: true } });
    const extra = side.received.find((message) => message.id === 1)?.result.sessionId as string;
    expect(extra).toMatch(/^elnor-page-session-/);
    side.send({ id: 2, method: "Fetch.enable", params: { patterns: [{ urlPattern: "*" }] }, sessionId: extra });
    const fetchEnable = link.sent.find((frame) => frame.type === "tab_cdp" && frame.method === "Fetch.enable") as Extract<AgentTabFrame, { type: "tab_cdp" }>;
    relay.receive(link, { type: "tab_cdp_result", lease_id: leaseId, id: fetchEnable.id, result: {} });
    expect(side.received.find((message) => message.id === 2)).toEqual({ id: 2, sessionId: extra, result: {} });

    relay.receive(link, { type: "tab_cdp_event", lease_id: leaseId, method: "Fetch.requestPaused", params: { requestId: "r1" } });
    relay.receive(link, { type: "tab_cdp_event", lease_id: leaseId, method: "Page.loadEventFired", params: {} });
    const sessionsOf = (method: string) => side.received.filter((message) => message.method === method).map((message) => message.sessionId);
    expect(sessionsOf("Fetch.requestPaused")).toEqual([extra]);
    expect(sessionsOf("Page.loadEventFired").sort()).toEqual(["elnor-page-session", extra].sort());
  });
});

describe("a run's sites as the tab's allow-list", () => {
  it("keeps host:port as it is and lets a bare host cover its subdomains", () => {
    expect(allowListOfRunSites(["127.0.0.1:8123", "Shop.Example.com", " ", "*.docs.example.org"])).toEqual([
      "127.0.0.1:8123",
      "shop.example.com",
      "*.shop.example.com",
      "docs.example.org",
      "*.docs.example.org",
    ]);
  });
});
