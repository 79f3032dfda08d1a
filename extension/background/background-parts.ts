import type { WxtBrowser } from "wxt/browser";
import type { ConnectionStorage } from "../../shared/common/agent-connection";
import type { AgentSocket } from "./agent-link/agent-socket";
import type { SocketLike, Timers } from "./agent-link/socket-port";
import type { InTabConsent } from "./tab-lending/in-tab-consent";
import type { BackgroundStore } from "./worker/background-storage";

export interface BackgroundDeps {
  browser: WxtBrowser;
  connection: ConnectionStorage;
  /** Calls back when the pairing in extension storage changes. */
  watchConnection(onChange: () => void): void;
  store: BackgroundStore;
  /** The person's consent to in-tab runs (issue #21). */
  inTabRuns: InTabConsent;
  /** The tab lent to an in-tab run, kept in session storage across a worker stop. */
  leasedTab: { save(tabId: number | null): Promise<void>; load(): Promise<number | null> };
  openSocket(url: string): SocketLike;
  fetch: typeof fetch;
  timers: Timers;
  randomBytes(bytes: Uint8Array): void;
  newId(): string;
  now(): Date;
}

/**
 * What the composition root's parts share (background-app.ts): the deps, where failures are
 * recorded, the socket (made after the parts that call it, so reached late), and what wants the
 * link kept up — a capture, a run in a lent tab, or events waiting in the outbox.
 */
export interface BackgroundContext {
  deps: BackgroundDeps;
  failed(where: string): (error: unknown) => void;
  socket(): AgentSocket;
  demand: { captureActive: boolean; runActive: boolean; queued: number };
  wantsLink(): boolean;
  /** Something that wants the link changed: the keepalive alarm and the socket follow. */
  linkWantChanged(): void;
}
