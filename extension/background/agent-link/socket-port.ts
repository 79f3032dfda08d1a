import type { AgentConnection } from "../../../shared/common/agent-connection";
import type { AgentFrame } from "../../../shared/observation/capture-protocol";
import type { AgentLinkState } from "../../../shared/observation/panel-messages";

// The agent socket's outside: where it connects, its timings, and what it is handed (tests give fakes).

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

/** `WebSocket.OPEN`. */
export const SOCKET_OPEN = 1;
