import type { AgentConnection } from "../../shared/common/agent-connection";
import {
  AgentFrameSchema,
  CAPTURE_CLOSE_CODES,
  ClientFrameSchema,
  type AgentFrame,
  type ClientFrame,
} from "../../shared/observation/capture-protocol";
import type { AgentLinkState } from "../../shared/observation/panel-messages";
import { reconnectDelayMs } from "./backoff";

export const OBSERVATION_STREAM_PATH = "/api/observations/stream";
export const HEARTBEAT_INTERVAL_MS = 20_000;
/** Time from open to `welcome` before the attempt counts as failed. */
export const WELCOME_TIMEOUT_MS = 10_000;

/** ws://host:port/api/observations/stream for the paired agent's http://host:port. */
export function streamUrlFor(agentUrl: string): string {
  const url = new URL(OBSERVATION_STREAM_PATH, `${agentUrl}/`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/** The part of a browser WebSocket this module uses, so tests can hand in a fake one. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
}

/** Timer handles are numbers in a worker and objects under Node's types; the code never looks inside. */
export type TimerHandle = ReturnType<typeof setTimeout>;

export interface Timers {
  setTimeout(handler: () => void, ms: number): TimerHandle;
  clearTimeout(id: TimerHandle): void;
  setInterval(handler: () => void, ms: number): TimerHandle;
  clearInterval(id: TimerHandle): void;
}

export interface AgentSocketDeps {
  loadConnection(): Promise<AgentConnection | null>;
  openSocket(url: string): SocketLike;
  /** Names this browser to the agent; counted as its browser_dom and browser_snapshot adapters. */
  adapterId: string;
  timers: Timers;
  /** Whether to keep the link up on its own (reconnect, heartbeat): a capture is on, or events wait. */
  wantsLink(): boolean;
  onWelcome(session: Extract<AgentFrame, { type: "welcome" }>["session"]): void;
  onFrame(frame: Exclude<AgentFrame, { type: "welcome" }>): void;
  /** The link went down; whatever was in flight is not acknowledged. */
  onLost(): void;
  onState(state: AgentLinkState): void;
}

export interface AgentSocket {
  /** Connects if not connected or connecting (a no-op otherwise); reconnects later while `wantsLink()`. */
  connect(): void;
  /** Drops the current link and connects again (the pairing changed). */
  restart(): void;
  /** Re-reads `wantsLink()`: starts or stops the heartbeat, reconnects if needed. */
  refresh(): void;
  /** Sends a frame if the agent has welcomed us; false when it could not be sent. */
  send(frame: ClientFrame): boolean;
  isReady(): boolean;
  /** Resolves true once welcomed, false after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<boolean>;
  /** Closes the link because it is broken (ack overdue, agent error); reconnects by the usual rules. */
  drop(reason: string): void;
  state(): AgentLinkState;
}

const OPEN = 1;

/**
 * The one WebSocket to the local agent (DESIGN §3). The browser cannot put the token in a header,
 * so the first frame is `hello` with it; the agent answers `welcome` with the current session.
 * While a capture is on, a heartbeat every 20 s keeps both the agent's adapter health and the
 * MV3 service worker alive (Chrome 116+ counts WebSocket traffic as activity), and a lost link
 * is re-opened with backoff 1 s → 30 s. With no capture on, the link is not kept up: the worker
 * may sleep, and the next event or panel request wakes it and reconnects.
 */
export function createAgentSocket(deps: AgentSocketDeps): AgentSocket {
  let socket: SocketLike | undefined;
  let welcomed = false;
  let attempt = 0;
  let connecting = false;
  let tokenRejected = false;
  let reconnectTimer: TimerHandle | undefined;
  let heartbeatTimer: TimerHandle | undefined;
  let welcomeTimer: TimerHandle | undefined;
  let generation = 0;
  let current: AgentLinkState = "disconnected";
  const readyWaiters = new Set<(ready: boolean) => void>();

  const setState = (state: AgentLinkState) => {
    if (state === current) return;
    current = state;
    deps.onState(state);
  };

  const settleWaiters = (ready: boolean) => {
    for (const resolve of readyWaiters) resolve(ready);
    readyWaiters.clear();
  };

  const stopHeartbeat = () => {
    if (heartbeatTimer !== undefined) deps.timers.clearInterval(heartbeatTimer);
    heartbeatTimer = undefined;
  };

  const syncHeartbeat = () => {
    if (welcomed && deps.wantsLink()) {
      heartbeatTimer ??= deps.timers.setInterval(() => {
        if (!sendFrame({ type: "heartbeat" })) stopHeartbeat();
      }, HEARTBEAT_INTERVAL_MS);
    } else {
      stopHeartbeat();
    }
  };

  const sendFrame = (frame: ClientFrame): boolean => {
    if (socket === undefined || !welcomed || socket.readyState !== OPEN) return false;
    socket.send(JSON.stringify(ClientFrameSchema.parse(frame)));
    return true;
  };

  const scheduleReconnect = () => {
    if (reconnectTimer !== undefined || tokenRejected || !deps.wantsLink()) return;
    const delay = reconnectDelayMs(attempt);
    attempt += 1;
    reconnectTimer = deps.timers.setTimeout(() => {
      reconnectTimer = undefined;
      connect();
    }, delay);
  };

  const linkDown = (closedSocket: SocketLike, code: number | undefined) => {
    if (socket !== closedSocket) return;
    socket = undefined;
    const wasWelcomed = welcomed;
    welcomed = false;
    stopHeartbeat();
    if (welcomeTimer !== undefined) deps.timers.clearTimeout(welcomeTimer);
    welcomeTimer = undefined;
    if (wasWelcomed) deps.onLost();
    settleWaiters(false);
    if (code === CAPTURE_CLOSE_CODES.unauthorized) {
      // A wrong token stays wrong: wait for a new pairing rather than knocking every 30 s.
      tokenRejected = true;
      setState("token_rejected");
      return;
    }
    setState("disconnected");
    scheduleReconnect();
  };

  const open = async (myGeneration: number) => {
    const connection = await deps.loadConnection();
    if (myGeneration !== generation) return;
    connecting = false;
    if (connection === null) {
      setState("unpaired");
      settleWaiters(false);
      return;
    }
    let opened: SocketLike;
    try {
      opened = deps.openSocket(streamUrlFor(connection.agent_url));
    } catch {
      setState("disconnected");
      settleWaiters(false);
      scheduleReconnect();
      return;
    }
    socket = opened;
    setState("connecting");
    opened.onopen = () => {
      opened.send(
        JSON.stringify(
          ClientFrameSchema.parse({
            type: "hello",
            token: connection.token,
            adapter_id: deps.adapterId,
            adapter_kinds: ["browser_dom", "browser_snapshot"],
            schema_version: 1,
          }),
        ),
      );
      welcomeTimer = deps.timers.setTimeout(() => opened.close(4000, "no welcome"), WELCOME_TIMEOUT_MS);
    };
    opened.onmessage = (event) => {
      let frame: ReturnType<typeof AgentFrameSchema.safeParse>;
      try {
        frame = AgentFrameSchema.safeParse(JSON.parse(String(event.data)));
      } catch {
        frame = AgentFrameSchema.safeParse(undefined);
      }
      if (!frame.success) {
        opened.close(CAPTURE_CLOSE_CODES.badFrame, "not an agent frame");
        return;
      }
      const message = frame.data;
      if (message.type === "welcome") {
        if (welcomeTimer !== undefined) deps.timers.clearTimeout(welcomeTimer);
        welcomeTimer = undefined;
        welcomed = true;
        attempt = 0;
        setState("connected");
        deps.onWelcome(message.session);
        syncHeartbeat();
        settleWaiters(true);
        return;
      }
      if (welcomed) deps.onFrame(message);
    };
    opened.onclose = (event) => linkDown(opened, event.code);
    // An error is always followed by close; close decides what happens next.
    opened.onerror = () => undefined;
  };

  function connect() {
    if (socket !== undefined || connecting) return;
    if (reconnectTimer !== undefined) {
      deps.timers.clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
    }
    connecting = true;
    generation += 1;
    void open(generation).catch(() => {
      connecting = false;
      setState("disconnected");
      settleWaiters(false);
      scheduleReconnect();
    });
  }

  return {
    connect,
    restart() {
      tokenRejected = false;
      attempt = 0;
      generation += 1;
      connecting = false;
      const old = socket;
      if (old !== undefined) {
        linkDown(old, 1000);
        old.close(1000, "pairing changed");
      }
      connect();
    },
    refresh() {
      syncHeartbeat();
      if (deps.wantsLink()) connect();
    },
    send: sendFrame,
    isReady: () => welcomed && socket?.readyState === OPEN,
    whenReady(timeoutMs) {
      if (welcomed) return Promise.resolve(true);
      if (tokenRejected) return Promise.resolve(false);
      connect();
      return new Promise((resolve) => {
        const timer = deps.timers.setTimeout(() => {
          readyWaiters.delete(done);
          resolve(false);
        }, timeoutMs);
        const done = (ready: boolean) => {
          deps.timers.clearTimeout(timer);
          resolve(ready);
        };
        readyWaiters.add(done);
      });
    },
    drop(reason) {
      socket?.close(4000, reason.slice(0, 100));
    },
    state: () => current,
  };
}
