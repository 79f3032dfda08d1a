import type { WxtBrowser } from "wxt/browser";
import type { ConnectionStorage } from "../../shared/common/agent-connection";
import type { AgentSocket } from "./agent-link/agent-socket";
import type { SocketLike, Timers } from "./agent-link/socket-port";
import type { InTabConsent } from "./tab-lending/in-tab-consent";
import type { LayeredBadge } from "./run-notices/ask-badge";
import type { NoticeStore } from "./run-notices/notice-store";
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
  /** Questions asked and runs told in notifications (issue #33), kept in session storage across a worker stop. */
  runNoticeStore: NoticeStore;
  /** The run a notification's click asked the side panel to show (issue #33). */
  panelRunFocus: { save(dispatchId: string): Promise<void> };
  openSocket(url: string): SocketLike;
  fetch: typeof fetch;
  timers: Timers;
  randomBytes(bytes: Uint8Array): void;
  newId(): string;
  now(): Date;
}

/**
 * What the composition root's parts share (background-app.ts): the deps, where failures are
 * recorded, the socket (made after the parts that call it, so reached late), the toolbar badge, and
 * what wants the link kept up — a capture, a run in a lent tab, events waiting in the outbox, or a
 * pairing (so that a run waiting for the person reaches them, issue #33).
 */
export interface BackgroundContext {
  deps: BackgroundDeps;
  failed(where: string): (error: unknown) => void;
  socket(): AgentSocket;
  demand: { captureActive: boolean; runActive: boolean; queued: number; paired: boolean };
  /** The one toolbar badge: capture and tab lending draw its base, run notices put ASK over it. */
  badge: LayeredBadge;
  wantsLink(): boolean;
  /** Something that wants the link changed: the keepalive alarm and the socket follow. */
  linkWantChanged(): void;
}
