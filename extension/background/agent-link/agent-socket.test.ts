import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentFrame } from "../../../shared/observation/capture-protocol";
import type { AgentConnection } from "../../../shared/common/agent-connection";
import type { AgentLinkState } from "../../../shared/observation/panel-messages";
import { createAgentSocket } from "./agent-socket";
import { streamUrlFor, type SocketLike } from "./socket-port";

const PAIRING: AgentConnection = { agent_url: "http://127.0.0.1:47630", token: "t".repeat(40), paired_at: "2025-01-01T00:00:00.000Z" };
const SESSION = {
  learn_session_id: "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
  state: "capturing" as const,
  target_app_whitelist: ["shop.example.com"],
  redaction_modes: {},
};

/** A stand-in for the browser's WebSocket: records what was sent, and lets the test play the agent. */
class FakeSocket implements SocketLike {
  readyState = 0;
  sent: unknown[] = [];
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000) {
    this.agentCloses(code);
  }
  agentOpens() {
    this.readyState = 1;
    this.onopen?.(new Event("open"));
  }
  agentSays(frame: AgentFrame) {
    this.onmessage?.(new MessageEvent("message", { data: JSON.stringify(frame) }));
  }
  agentCloses(code: number) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code } as CloseEvent);
  }
}

function setup(options: { pairing?: AgentConnection | null; wantsLink?: boolean } = {}) {
  const sockets: FakeSocket[] = [];
  const states: AgentLinkState[] = [];
  const frames: unknown[] = [];
  const welcomes: unknown[] = [];
  let lost = 0;
  const want = { link: options.wantsLink ?? true };
  const socket = createAgentSocket({
    loadConnection: async () => (options.pairing === undefined ? PAIRING : options.pairing),
    openSocket: (url) => {
      const fake = new FakeSocket(url);
      sockets.push(fake);
      return fake;
    },
    adapterId: "chrome-extension:abcdefghijklmnopabcdefghijklmnop",
    timers: { setTimeout, clearTimeout, setInterval, clearInterval },
    wantsLink: () => want.link,
    onWelcome: (session) => welcomes.push(session),
    onFrame: (frame) => frames.push(frame),
    onLost: () => (lost += 1),
    onState: (state) => states.push(state),
  });
  return { socket, sockets, states, frames, welcomes, want, lost: () => lost };
}

/** Plays the agent accepting the newest socket (waiting for it to be opened, which is async). */
async function openAndWelcome(sockets: FakeSocket[]) {
  await vi.waitFor(() => expect(sockets.at(-1)?.readyState).toBe(0));
  const fake = sockets.at(-1) as FakeSocket;
  fake.agentOpens();
  fake.agentSays({ type: "welcome", agent_version: "0.1.0", session: SESSION });
  return fake;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("agent socket", () => {
  it("derives the stream address from the paired agent URL", () => {
    expect(streamUrlFor("http://127.0.0.1:47630")).toBe("ws://127.0.0.1:47630/api/observations/stream");
  });

  it("says hello with the token as its first frame and hands on the welcome's session", async () => {
    const { socket, sockets, welcomes, states } = setup();
    socket.connect();
    const fake = await openAndWelcome(sockets);
    expect(fake.sent[0]).toEqual({
      type: "hello",
      token: PAIRING.token,
      adapter_id: "chrome-extension:abcdefghijklmnopabcdefghijklmnop",
      adapter_kinds: ["browser_dom", "browser_snapshot"],
      schema_version: 1,
    });
    expect(welcomes).toEqual([SESSION]);
    expect(states.at(-1)).toBe("connected");
    expect(socket.isReady()).toBe(true);
  });

  it("sends nothing else before the agent has welcomed it", async () => {
    const { socket, sockets } = setup();
    socket.connect();
    await vi.waitFor(() => expect(sockets).toHaveLength(1));
    sockets[0]?.agentOpens();
    expect(socket.send({ type: "heartbeat" })).toBe(false);
    expect(sockets[0]?.sent).toHaveLength(1);
  });

  it("beats every 20 s while a capture is on, and stops beating when it is over", async () => {
    const { socket, sockets, want } = setup();
    socket.connect();
    const fake = await openAndWelcome(sockets);
    vi.advanceTimersByTime(40_000);
    expect(fake.sent.filter((frame) => (frame as { type: string }).type === "heartbeat")).toHaveLength(2);
    want.link = false;
    socket.refresh();
    vi.advanceTimersByTime(60_000);
    expect(fake.sent.filter((frame) => (frame as { type: string }).type === "heartbeat")).toHaveLength(2);
  });

  it("reconnects with growing delays while a capture is on, and resets them once welcomed", async () => {
    const { socket, sockets, lost } = setup();
    socket.connect();
    const first = await openAndWelcome(sockets);
    first.agentCloses(1006);
    expect(lost()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets).toHaveLength(2);
    sockets[1]?.agentCloses(1006);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(sockets).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets).toHaveLength(3);
    await openAndWelcome(sockets);
    sockets[2]?.agentCloses(1006);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sockets).toHaveLength(4);
  });

  it("lets the link go without a capture, so the service worker may sleep", async () => {
    const { socket, sockets } = setup({ wantsLink: false });
    socket.connect();
    const fake = await openAndWelcome(sockets);
    fake.agentCloses(1006);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sockets).toHaveLength(1);
  });

  it("stops knocking when the agent refuses the token, until the pairing changes", async () => {
    const { socket, sockets, states } = setup();
    socket.connect();
    await vi.waitFor(() => expect(sockets).toHaveLength(1));
    sockets[0]?.agentOpens();
    sockets[0]?.agentCloses(4401);
    expect(states.at(-1)).toBe("token_rejected");
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sockets).toHaveLength(1);
    socket.restart();
    await vi.waitFor(() => expect(sockets).toHaveLength(2));
  });

  it("says unpaired and opens nothing without a pairing", async () => {
    const { socket, sockets, states } = setup({ pairing: null });
    socket.connect();
    await vi.waitFor(() => expect(states).toContain("unpaired"));
    expect(sockets).toHaveLength(0);
    expect(await socket.whenReady(1_000)).toBe(false);
  });

  it("closes a link that speaks something other than the protocol", async () => {
    const { socket, sockets, states } = setup({ wantsLink: false });
    socket.connect();
    const fake = await openAndWelcome(sockets);
    fake.onmessage?.(new MessageEvent("message", { data: '{"type":"surprise"}' }));
    expect(fake.readyState).toBe(3);
    expect(states.at(-1)).toBe("disconnected");
  });

  it("hands session and ack frames on after the welcome", async () => {
    const { socket, sockets, frames } = setup();
    socket.connect();
    const fake = await openAndWelcome(sockets);
    fake.agentSays({ type: "session", session: null });
    expect(frames).toEqual([{ type: "session", session: null }]);
  });
});
