import type { ConnectionTransport } from "puppeteer-core";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import { TAB_GUARD_ERROR_CODE } from "../../../shared/observation/tab-relay-protocol";
import type { TabChannel } from "./tab-relay";

/**
 * Puppeteer's view of one lent tab. `chrome.debugger` gives an extension a single tab, not a
 * browser, so the browser-level part of CDP that `puppeteer.connect` needs is answered here (as
 * puppeteer's own ExtensionTransport does inside an extension): `Browser.getVersion`, the browser
 * contexts, target discovery, auto-attach to one tab target and its one page target, and extra
 * sessions on that page (`page.createCDPSession()`). Every other command goes to the tab.
 *
 * Guards, before anything reaches the extension (which checks again): `Page.navigate` only to the
 * lease's sites, and no new, closed or other targets — the person's other tabs are not ours.
 */

const TAB_SESSION = "elnor-tab-session";
const PAGE_SESSION = "elnor-page-session";
const TAB_TARGET_ID = "elnor-tab-target";
const PAGE_TARGET_ID = "elnor-page-target";

interface Incoming {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

export interface TabTransportOptions {
  channel: TabChannel;
  allowedSites: readonly string[];
}

/** One lent tab's transport state, passed to each of its parts. */
interface TabState {
  readonly channel: TabChannel;
  readonly allowedSites: readonly string[];
  readonly pageSessions: Set<string>;
  /** Sessions that enabled Fetch get its events; the others would try to answer paused requests too. */
  readonly fetchSessions: Set<string>;
  /** Commands relayed to the tab, by the relay's id: whose they are and on which session. */
  readonly pending: Map<number, { id: number; sessionId: string; method: string }>;
  relayId: number;
  extraSessions: number;
  closed: boolean;
  /** A message to puppeteer (none once closed). */
  emit(message: Record<string, unknown>): void;
}

interface Reply {
  answer(result: Record<string, unknown>): void;
  refuse(text: string): void;
}

export function createTabTransport({ channel, allowedSites }: TabTransportOptions): ConnectionTransport {
  const tab: TabState = {
    channel,
    allowedSites,
    pageSessions: new Set<string>([PAGE_SESSION]),
    fetchSessions: new Set<string>(),
    pending: new Map(),
    relayId: 0,
    extraSessions: 0,
    closed: false,
    emit(message) {
      if (tab.closed) return;
      transport.onmessage?.(JSON.stringify(message));
    },
  };
  const transport: ConnectionTransport = {
    send(raw) {
      if (tab.closed) return;
      const message = JSON.parse(raw) as Incoming;
      const reply: Reply = {
        answer: (result) => tab.emit({ id: message.id, sessionId: message.sessionId, result }),
        refuse: (text) => tab.emit({ id: message.id, sessionId: message.sessionId, error: { code: TAB_GUARD_ERROR_CODE, message: text } }),
      };
      if (!answeredHere(tab, message, reply)) relayToTab(tab, message, reply);
    },
    close() {
      tab.closed = true;
    },
  };
  channel.onCdp((frame) => fromTab(tab, frame));
  channel.onEnded(() => {
    if (tab.closed) return;
    // Commands in flight will never be answered: puppeteer rejects them as the connection closes.
    tab.closed = true;
    transport.onclose?.();
  });
  return transport;
}

function targetInfo(tab: TabState, type: "tab" | "page") {
  return { targetId: type === "tab" ? TAB_TARGET_ID : PAGE_TARGET_ID, type, title: type, url: tab.channel.url, attached: true, canAccessOpener: false };
}

/** The browser-level commands a lent tab answers itself; false for any other. */
function answeredHere(tab: TabState, message: Incoming, { answer, refuse }: Reply): boolean {
  const session = message.sessionId;
  switch (message.method) {
    case "Browser.getVersion":
      answer({ protocolVersion: "1.3", product: "Chrome/user-tab", revision: "", userAgent: "", jsVersion: "" });
      return true;
    case "Target.getBrowserContexts":
      answer({ browserContextIds: [] });
      return true;
    case "Target.setDiscoverTargets":
      tab.emit({ method: "Target.targetCreated", params: { targetInfo: targetInfo(tab, "tab") } });
      tab.emit({ method: "Target.targetCreated", params: { targetInfo: targetInfo(tab, "page") } });
      answer({});
      return true;
    case "Target.setAutoAttach":
      if (session === undefined)
        tab.emit({ method: "Target.attachedToTarget", params: { sessionId: TAB_SESSION, targetInfo: targetInfo(tab, "tab"), waitingForDebugger: false } });
      else if (session === TAB_SESSION)
        tab.emit({
          method: "Target.attachedToTarget",
          sessionId: TAB_SESSION,
          params: { sessionId: PAGE_SESSION, targetInfo: targetInfo(tab, "page"), waitingForDebugger: false },
        });
      // The page's own children (out-of-process frames, workers) are not followed in a lent tab.
      answer({});
      return true;
    case "Target.attachToTarget": {
      if (message.params?.targetId !== PAGE_TARGET_ID) {
        refuse("Only the lent tab's page can be attached to.");
        return true;
      }
      tab.extraSessions += 1;
      const sessionId = `${PAGE_SESSION}-${tab.extraSessions}`;
      tab.pageSessions.add(sessionId);
      tab.emit({ method: "Target.attachedToTarget", params: { sessionId, targetInfo: targetInfo(tab, "page"), waitingForDebugger: false } });
      answer({ sessionId });
      return true;
    }
    case "Target.detachFromTarget": {
      const detached = message.params?.sessionId;
      if (typeof detached === "string" && detached !== PAGE_SESSION && tab.pageSessions.delete(detached)) {
        tab.fetchSessions.delete(detached);
        tab.emit({ method: "Target.detachedFromTarget", params: { sessionId: detached } });
      }
      answer({});
      return true;
    }
    default:
      return false;
  }
}

/** Every other command goes to the tab's page, guarded first. */
function relayToTab(tab: TabState, message: Incoming, { answer, refuse }: Reply): void {
  const session = message.sessionId;
  // The tab target itself runs nothing; puppeteer only tells it to go on.
  if (session === TAB_SESSION && message.method === "Runtime.runIfWaitingForDebugger") return answer({});
  if (message.method.startsWith("Target.") || message.method.startsWith("Browser.")) {
    return refuse(`${message.method} is not available in a lent tab: the run acts in the person's one tab only.`);
  }
  if (session === undefined || !tab.pageSessions.has(session)) return refuse(`${message.method} must be sent to the lent tab's page.`);
  if (message.method === "Page.navigate") {
    const url = typeof message.params?.url === "string" ? message.params.url : "";
    if (!urlMatchesAllowList(url, tab.allowedSites)) return refuse(siteRefusal(url, tab.allowedSites));
  }
  if (message.method === "Fetch.enable") tab.fetchSessions.add(session);
  if (message.method === "Fetch.disable") tab.fetchSessions.delete(session);

  tab.relayId += 1;
  tab.pending.set(tab.relayId, { id: message.id, sessionId: session, method: message.method });
  if (!tab.channel.sendCdp({ id: tab.relayId, method: message.method, ...(message.params === undefined ? {} : { params: message.params }) })) {
    tab.pending.delete(tab.relayId);
    refuse("The lent tab is no longer connected.");
  }
}

/** The tab's answers go back to whoever asked; its events to the page's sessions (Fetch's only to those that enabled it). */
function fromTab(tab: TabState, frame: Parameters<Parameters<TabChannel["onCdp"]>[0]>[0]): void {
  if (frame.type === "tab_cdp_result") {
    const asked = tab.pending.get(frame.id);
    if (asked === undefined) return;
    tab.pending.delete(frame.id);
    if (frame.error !== undefined)
      tab.emit({ id: asked.id, sessionId: asked.sessionId, error: { code: frame.error.code ?? -32_000, message: frame.error.message } });
    else tab.emit({ id: asked.id, sessionId: asked.sessionId, result: frame.result ?? {} });
    return;
  }
  // Child sessions are not followed (see Target.setAutoAttach above): their events have no page here.
  if (frame.session_id !== undefined) return;
  const targets = frame.method.startsWith("Fetch.") ? tab.fetchSessions : tab.pageSessions;
  for (const sessionId of targets) tab.emit({ method: frame.method, sessionId, params: frame.params ?? {} });
}

/** The refusal a run sees for an address outside its sites (never the address's path or query). */
export function siteRefusal(url: string, allowedSites: readonly string[]): string {
  let where = "that address";
  try {
    where = new URL(url).host || where;
  } catch {
    // Not a URL: said as "that address".
  }
  return `SITE_NOT_ALLOWED: ${where} is not one of the sites this run may touch (${allowedSites.join(", ")}).`;
}
