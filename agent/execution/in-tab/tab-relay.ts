import type { CoachingHighlight, CoachingRead } from "../../../shared/observation/coaching-read";
import type { AgentTabFrame, ClientTabFrame, TabEndReason, TabRefusalCode } from "../../../shared/observation/tab-relay-protocol";
import { BrowserUnavailable } from "../contract/executor-contract";
import { assertNever } from "../../../shared/common/assert-never";

/**
 * The agent's end of the in-tab relay (issue #21 "in my browser"): it knows which extension
 * sockets are up, lends out tabs through the newest one, and routes the extension's answers back
 * to the lease they belong to. One lease per tab at a time; the extension enforces the same.
 */

/** An extension socket that said hello with the token (agent/observation/ingest-routes). */
export interface TabRelayLink {
  send(frame: AgentTabFrame): boolean;
}

/** A tab lent by the extension: raw CDP in and out, and the word when it is taken back. */
export interface TabChannel {
  readonly leaseId: string;
  readonly tabId: number;
  /** The tab's address when it was lent. */
  readonly url: string;
  sendCdp(command: { id: number; method: string; params?: Record<string, unknown>; session_id?: string }): boolean;
  onCdp(listener: (frame: Extract<ClientTabFrame, { type: "tab_cdp_result" | "tab_cdp_event" }>) => void): void;
  /**
   * Coaching Agent leases only (shared/observation/coaching-read.ts): the page as the tab's content
   * script read it, every typed value cut out; null when nothing was read (`why` says so). Rejects
   * when the tab is taken back or no answer comes within `timeoutMs`.
   */
  readRecorded(highlight: CoachingHighlight | null, timeoutMs?: number): Promise<{ read: CoachingRead | null; why?: string | undefined }>;
  /** Called once, when the tab is taken back for any reason (Stop in the page, link lost, released). */
  onEnded(listener: (end: { reason: TabEndReason; message: string }) => void): void;
  ended(): { reason: TabEndReason; message: string } | undefined;
  /** Asks the extension to give the tab back and waits (at most `timeoutMs`) for it to say so. */
  release(timeoutMs?: number): Promise<void>;
}

/** The extension would not lend the tab, or no extension is there to ask; `code` says which. */
export class TabRunRefused extends BrowserUnavailable {
  override name = "TabRunRefused";
  constructor(
    readonly code: TabRefusalCode,
    message: string,
  ) {
    super(message);
  }
}

export interface TabOpenRequest {
  tabId?: number | undefined;
  allowedSites: readonly string[];
  label: string;
  /** Coaching Agent (issue #16): the recording session this lease takes turns with. */
  coachingSessionId?: string | undefined;
  /** Epoch ms by which the tab must be lent. */
  deadline: number;
}

export interface TabRelay {
  /** An extension socket is up; the returned function says it went down (its leases end as `link_lost`). */
  connect(link: TabRelayLink): () => void;
  /** A `tab_*` frame from that socket. */
  receive(link: TabRelayLink, frame: ClientTabFrame): void;
  /** Whether an extension is connected now. */
  connected(): boolean;
  open(request: TabOpenRequest): Promise<TabChannel>;
}

interface Lease {
  link: TabRelayLink;
  cdpListeners: Array<Parameters<TabChannel["onCdp"]>[0]>;
  endListeners: Array<Parameters<TabChannel["onEnded"]>[0]>;
  /** `tab_read`s waiting for their `tab_read_result`, by id. */
  reads: Map<number, (answer: { read: CoachingRead | null; why?: string | undefined }) => void>;
  end?: { reason: TabEndReason; message: string };
  opening?: { resolve(opened: { tabId: number; url: string }): void; reject(error: Error): void };
}

/** How long a coaching read waits for the extension's answer. */
const READ_TIMEOUT_MS = 10_000;

/** How long `open` waits for an extension socket to come up when none is there yet. */
const LINK_WAIT_MS = 3_000;

const messages: Record<TabEndReason, string> = {
  user_stop: "the person pressed Stop in the page",
  debugger_detached: "Chrome's debugging bar was cancelled",
  tab_closed: "the tab was closed",
  off_site: "the tab went to a site this run may not touch",
  recording_started: "a demonstration started recording",
  released: "the run gave the tab back",
  link_lost: "the extension's connection to the agent was lost",
};

/** The relay's state, passed to each of its parts. */
interface Relay {
  readonly now: () => number;
  readonly newId: () => string;
  /** Extension sockets up, oldest first: tabs are lent through the newest. */
  readonly links: TabRelayLink[];
  readonly leases: Map<string, Lease>;
  /** `open`s waiting for a socket to come up. */
  readonly linkWaiters: Set<() => void>;
  nextReadId: number;
}

export function createTabRelay(deps: { newId: () => string; now?: () => number }): TabRelay {
  const relay: Relay = { now: deps.now ?? Date.now, newId: deps.newId, links: [], leases: new Map(), linkWaiters: new Set(), nextReadId: 0 };
  return {
    connect(link) {
      relay.links.push(link);
      for (const wake of relay.linkWaiters) wake();
      relay.linkWaiters.clear();
      return () => {
        const index = relay.links.indexOf(link);
        if (index >= 0) relay.links.splice(index, 1);
        for (const [leaseId, lease] of [...relay.leases]) if (lease.link === link) endLease(relay, leaseId, "link_lost", messages.link_lost);
      };
    },
    receive: (link, frame) => receiveFrame(relay, link, frame),
    connected: () => relay.links.length > 0,
    open: (request) => openTab(relay, request),
  };
}

/** The lease ends (once): an open still waiting is refused, and every listener is told. */
function endLease(relay: Relay, leaseId: string, reason: TabEndReason, message: string): void {
  const lease = relay.leases.get(leaseId);
  if (lease === undefined || lease.end !== undefined) return;
  lease.end = { reason, message: message || messages[reason] };
  relay.leases.delete(leaseId);
  lease.opening?.reject(new TabRunRefused("ATTACH_FAILED", `The tab was taken back before the run could start: ${lease.end.message}.`));
  for (const listener of lease.endListeners) listener(lease.end);
}

async function waitForLink(relay: Relay, deadline: number): Promise<TabRelayLink | undefined> {
  const { now } = relay;
  const until = Math.min(deadline, now() + LINK_WAIT_MS);
  while (relay.links.length === 0 && now() < until) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, until - now()));
      relay.linkWaiters.add(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  return relay.links.at(-1);
}

function receiveFrame(relay: Relay, link: TabRelayLink, frame: ClientTabFrame): void {
  const lease = relay.leases.get(frame.lease_id);
  // A frame for a lease this socket does not hold (stale, or another socket's) is ignored.
  if (lease === undefined || lease.link !== link) return;
  switch (frame.type) {
    case "tab_opened":
      lease.opening?.resolve({ tabId: frame.tab_id, url: frame.url });
      lease.opening = undefined;
      return;
    case "tab_refused":
      relay.leases.delete(frame.lease_id);
      lease.opening?.reject(new TabRunRefused(frame.code, frame.message));
      lease.opening = undefined;
      return;
    case "tab_cdp_result":
    case "tab_cdp_event":
      for (const listener of lease.cdpListeners) listener(frame);
      return;
    case "tab_read_result": {
      const waiting = lease.reads.get(frame.id);
      lease.reads.delete(frame.id);
      waiting?.({ read: frame.read, why: frame.why });
      return;
    }
    case "tab_ended":
      endLease(relay, frame.lease_id, frame.reason, frame.message);
      return;
    default:
      return assertNever(frame);
  }
}

async function openTab(relay: Relay, request: TabOpenRequest): Promise<TabChannel> {
  const link = await waitForLink(relay, request.deadline);
  if (link === undefined) {
    throw new TabRunRefused(
      "EXTENSION_NOT_CONNECTED",
      "The extension is not connected to the agent: open the Ability Learning side panel in Chrome (it connects), then run again.",
    );
  }
  const leaseId = relay.newId();
  const lease: Lease = { link, cdpListeners: [], endListeners: [], reads: new Map() };
  relay.leases.set(leaseId, lease);
  const opened = new Promise<{ tabId: number; url: string }>((resolve, reject) => {
    lease.opening = { resolve, reject };
  });
  const sent = link.send({
    type: "tab_open",
    lease_id: leaseId,
    ...(request.tabId === undefined ? {} : { tab_id: request.tabId }),
    allowed_sites: [...request.allowedSites],
    label: request.label.slice(0, 160),
    ...(request.coachingSessionId === undefined ? {} : { coaching_session_id: request.coachingSessionId }),
  });
  if (!sent) endLease(relay, leaseId, "link_lost", messages.link_lost);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TabRunRefused("ATTACH_FAILED", "The extension did not lend the tab in time.")),
      Math.max(0, request.deadline - relay.now()),
    );
  });
  let tab: { tabId: number; url: string };
  try {
    tab = await Promise.race([opened, timeout]);
  } catch (error) {
    // Whatever the extension does later with this lease, it is given back at once.
    if (relay.leases.has(leaseId)) {
      link.send({ type: "tab_release", lease_id: leaseId });
      relay.leases.delete(leaseId);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return channelOf(relay, leaseId, lease, tab);
}

/** The lent tab, as the transport (tab-transport.ts) and the coaching agent use it. */
function channelOf(relay: Relay, leaseId: string, lease: Lease, tab: { tabId: number; url: string }): TabChannel {
  const { link } = lease;
  return {
    leaseId,
    tabId: tab.tabId,
    url: tab.url,
    sendCdp: (command) => lease.end === undefined && link.send({ type: "tab_cdp", lease_id: leaseId, ...command }),
    onCdp: (listener) => void lease.cdpListeners.push(listener),
    readRecorded: (highlight, timeoutMs = READ_TIMEOUT_MS) => readRecorded(relay, leaseId, lease, highlight, timeoutMs),
    onEnded(listener) {
      if (lease.end !== undefined) listener(lease.end);
      else lease.endListeners.push(listener);
    },
    ended: () => lease.end,
    async release(timeoutMs = 3_000) {
      if (lease.end !== undefined) return;
      const done = new Promise<void>((resolve) => lease.endListeners.push(() => resolve()));
      if (!link.send({ type: "tab_release", lease_id: leaseId })) {
        endLease(relay, leaseId, "link_lost", messages.link_lost);
        return;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      // No answer: forget it here anyway; the extension ends it when its link goes.
      endLease(relay, leaseId, "released", messages.released);
    },
  };
}

function readRecorded(
  relay: Relay,
  leaseId: string,
  lease: Lease,
  highlight: CoachingHighlight | null,
  timeoutMs: number,
): Promise<{ read: CoachingRead | null; why?: string | undefined }> {
  return new Promise((resolve, reject) => {
    if (lease.end !== undefined) return reject(new Error(`The tab was taken back: ${lease.end.message}.`));
    const id = (relay.nextReadId += 1);
    const timer = setTimeout(() => {
      lease.reads.delete(id);
      reject(new Error("The extension did not answer the page read in time."));
    }, timeoutMs);
    const settle = (answer: { read: CoachingRead | null; why?: string | undefined }) => {
      clearTimeout(timer);
      resolve(answer);
    };
    lease.reads.set(id, settle);
    lease.endListeners.push((end) => {
      if (!lease.reads.delete(id)) return;
      clearTimeout(timer);
      reject(new Error(`The tab was taken back: ${end.message}.`));
    });
    if (!lease.link.send({ type: "tab_read", lease_id: leaseId, id, highlight })) {
      lease.reads.delete(id);
      clearTimeout(timer);
      reject(new Error(messages.link_lost));
    }
  });
}
