import { AgentFrameSchema, CAPTURE_CLOSE_CODES, ClientFrameSchema, type ClientFrame } from "../../../shared/observation/capture-protocol";
import type { AgentLinkState } from "../../../shared/observation/panel-messages";
import { HEARTBEAT_INTERVAL_MS, SOCKET_OPEN, streamUrlFor, WELCOME_TIMEOUT_MS, type AgentSocketDeps, type SocketLike, type TimerHandle } from "./socket-port";
import { reconnectDelayMs } from "./backoff";

/** What the socket's parts share: the one link, its timers, and who waits for it (agent-socket.ts). */
export interface LinkContext {
  deps: AgentSocketDeps;
  socket: SocketLike | undefined;
  welcomed: boolean;
  attempt: number;
  connecting: boolean;
  tokenRejected: boolean;
  reconnectTimer: TimerHandle | undefined;
  heartbeatTimer: TimerHandle | undefined;
  welcomeTimer: TimerHandle | undefined;
  /** Bumped by every connect and restart: an open that finds it changed gives up. */
  generation: number;
  current: AgentLinkState;
  readyWaiters: Set<(ready: boolean) => void>;
}

function setState(link: LinkContext, state: AgentLinkState): void {
  if (state === link.current) return;
  link.current = state;
  link.deps.onState(state);
}

function settleWaiters(link: LinkContext, ready: boolean): void {
  for (const resolve of link.readyWaiters) resolve(ready);
  link.readyWaiters.clear();
}

function stopHeartbeat(link: LinkContext): void {
  if (link.heartbeatTimer !== undefined) link.deps.timers.clearInterval(link.heartbeatTimer);
  link.heartbeatTimer = undefined;
}

function clearWelcomeTimer(link: LinkContext): void {
  if (link.welcomeTimer !== undefined) link.deps.timers.clearTimeout(link.welcomeTimer);
  link.welcomeTimer = undefined;
}

/** A heartbeat runs while welcomed and something wants the link; otherwise it stops. */
export function syncHeartbeat(link: LinkContext): void {
  if (link.welcomed && link.deps.wantsLink()) {
    link.heartbeatTimer ??= link.deps.timers.setInterval(() => {
      if (!sendFrame(link, { type: "heartbeat" })) stopHeartbeat(link);
    }, HEARTBEAT_INTERVAL_MS);
  } else {
    stopHeartbeat(link);
  }
}

export function sendFrame(link: LinkContext, frame: ClientFrame): boolean {
  if (link.socket === undefined || !link.welcomed || link.socket.readyState !== SOCKET_OPEN) return false;
  link.socket.send(JSON.stringify(ClientFrameSchema.parse(frame)));
  return true;
}

function scheduleReconnect(link: LinkContext): void {
  if (link.reconnectTimer !== undefined || link.tokenRejected || !link.deps.wantsLink()) return;
  const delay = reconnectDelayMs(link.attempt);
  link.attempt += 1;
  link.reconnectTimer = link.deps.timers.setTimeout(() => {
    link.reconnectTimer = undefined;
    connectLink(link);
  }, delay);
}

/** An attempt that never got a socket: said so, waiters told, tried again later. */
function attemptFailed(link: LinkContext): void {
  setState(link, "disconnected");
  settleWaiters(link, false);
  scheduleReconnect(link);
}

export function linkDown(link: LinkContext, closedSocket: SocketLike, code: number | undefined): void {
  if (link.socket !== closedSocket) return;
  link.socket = undefined;
  const wasWelcomed = link.welcomed;
  link.welcomed = false;
  stopHeartbeat(link);
  clearWelcomeTimer(link);
  if (wasWelcomed) link.deps.onLost();
  settleWaiters(link, false);
  if (code === CAPTURE_CLOSE_CODES.unauthorized) {
    // A wrong token stays wrong: wait for a new pairing rather than knocking every 30 s.
    link.tokenRejected = true;
    setState(link, "token_rejected");
    return;
  }
  setState(link, "disconnected");
  scheduleReconnect(link);
}

/** Connects if not connected or connecting (a no-op otherwise). */
export function connectLink(link: LinkContext): void {
  if (link.socket !== undefined || link.connecting) return;
  if (link.reconnectTimer !== undefined) {
    link.deps.timers.clearTimeout(link.reconnectTimer);
    link.reconnectTimer = undefined;
  }
  link.connecting = true;
  link.generation += 1;
  void openLink(link, link.generation).catch(() => {
    link.connecting = false;
    attemptFailed(link);
  });
}

async function openLink(link: LinkContext, generation: number): Promise<void> {
  const { deps } = link;
  const connection = await deps.loadConnection();
  if (generation !== link.generation) return;
  link.connecting = false;
  if (connection === null) {
    setState(link, "unpaired");
    settleWaiters(link, false);
    return;
  }
  let opened: SocketLike;
  try {
    opened = deps.openSocket(streamUrlFor(connection.agent_url));
  } catch {
    attemptFailed(link);
    return;
  }
  link.socket = opened;
  setState(link, "connecting");
  opened.onopen = () => {
    const hello = { type: "hello", token: connection.token, adapter_id: deps.adapterId, adapter_kinds: ["browser_dom", "browser_snapshot"], schema_version: 1 };
    opened.send(JSON.stringify(ClientFrameSchema.parse(hello)));
    link.welcomeTimer = deps.timers.setTimeout(() => opened.close(4000, "no welcome"), WELCOME_TIMEOUT_MS);
  };
  opened.onmessage = (event) => onMessage(link, opened, event);
  opened.onclose = (event) => linkDown(link, opened, event.code);
  // An error is always followed by close; close decides what happens next.
  opened.onerror = () => undefined;
}

/** A frame from the agent: parsed (a bad one closes the link), `welcome` opens it, the rest only once welcomed. */
function onMessage(link: LinkContext, opened: SocketLike, event: MessageEvent): void {
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
    clearWelcomeTimer(link);
    link.welcomed = true;
    link.attempt = 0;
    setState(link, "connected");
    link.deps.onWelcome(message.session);
    syncHeartbeat(link);
    settleWaiters(link, true);
    return;
  }
  if (link.welcomed) link.deps.onFrame(message);
}
