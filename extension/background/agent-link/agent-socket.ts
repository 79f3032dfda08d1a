import type { ClientFrame } from "../../../shared/observation/capture-protocol";
import type { AgentLinkState } from "../../../shared/observation/panel-messages";
import { connectLink, linkDown, sendFrame, syncHeartbeat, type LinkContext } from "./socket-link";
import { SOCKET_OPEN, type AgentSocketDeps } from "./socket-port";

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

/**
 * The one WebSocket to the local agent (DESIGN §3). The browser cannot put the token in a header,
 * so the first frame is `hello` with it; the agent answers `welcome` with the current session.
 * While a capture is on, a heartbeat every 20 s keeps both the agent's adapter health and the
 * MV3 service worker alive (Chrome 116+ counts WebSocket traffic as activity), and a lost link
 * is re-opened with backoff 1 s → 30 s. With no capture on, the link is not kept up: the worker
 * may sleep, and the next event or panel request wakes it and reconnects.
 */
export function createAgentSocket(deps: AgentSocketDeps): AgentSocket {
  const link: LinkContext = {
    deps,
    socket: undefined,
    welcomed: false,
    attempt: 0,
    connecting: false,
    tokenRejected: false,
    reconnectTimer: undefined,
    heartbeatTimer: undefined,
    welcomeTimer: undefined,
    generation: 0,
    current: "disconnected",
    readyWaiters: new Set(),
  };
  const connect = () => connectLink(link);

  return {
    connect,
    restart() {
      link.tokenRejected = false;
      link.attempt = 0;
      link.generation += 1;
      link.connecting = false;
      const old = link.socket;
      if (old !== undefined) {
        linkDown(link, old, 1000);
        old.close(1000, "pairing changed");
      }
      connect();
    },
    refresh() {
      syncHeartbeat(link);
      if (deps.wantsLink()) connect();
    },
    send: (frame) => sendFrame(link, frame),
    isReady: () => link.welcomed && link.socket?.readyState === SOCKET_OPEN,
    whenReady(timeoutMs) {
      if (link.welcomed) return Promise.resolve(true);
      if (link.tokenRejected) return Promise.resolve(false);
      connect();
      return new Promise((resolve) => {
        const timer = deps.timers.setTimeout(() => {
          link.readyWaiters.delete(done);
          resolve(false);
        }, timeoutMs);
        const done = (ready: boolean) => {
          deps.timers.clearTimeout(timer);
          resolve(ready);
        };
        link.readyWaiters.add(done);
      });
    },
    drop(reason) {
      link.socket?.close(4000, reason.slice(0, 100));
    },
    state: () => link.current,
  };
}
