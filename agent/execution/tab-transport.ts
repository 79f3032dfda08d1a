import type { ConnectionTransport } from "puppeteer-core";
import { urlMatchesAllowList } from "../../shared/observation/site-allowlist";
import { TAB_GUARD_ERROR_CODE } from "../../shared/observation/tab-relay-protocol";
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

export function createTabTransport({ channel, allowedSites }: TabTransportOptions): ConnectionTransport {
  const pageSessions = new Set<string>([PAGE_SESSION]);
  /** Sessions that enabled Fetch get its events; the others would try to answer paused requests too. */
  const fetchSessions = new Set<string>();
  const pending = new Map<number, { id: number; sessionId: string; method: string }>();
  let relayId = 0;
  let extraSessions = 0;
  let closed = false;

  const targetInfo = (type: "tab" | "page") => ({
    targetId: type === "tab" ? TAB_TARGET_ID : PAGE_TARGET_ID,
    type,
    title: type,
    url: channel.url,
    attached: true,
    canAccessOpener: false,
  });

  const transport: ConnectionTransport = {
    send(raw) {
      if (closed) return;
      const message = JSON.parse(raw) as Incoming;
      const answer = (result: Record<string, unknown>) => emit({ id: message.id, sessionId: message.sessionId, result });
      const refuse = (text: string) => emit({ id: message.id, sessionId: message.sessionId, error: { code: TAB_GUARD_ERROR_CODE, message: text } });
      const session = message.sessionId;

      switch (message.method) {
        case "Browser.getVersion":
          return answer({ protocolVersion: "1.3", product: "Chrome/user-tab", revision: "", userAgent: "", jsVersion: "" });
        case "Target.getBrowserContexts":
          return answer({ browserContextIds: [] });
        case "Target.setDiscoverTargets":
          emit({ method: "Target.targetCreated", params: { targetInfo: targetInfo("tab") } });
          emit({ method: "Target.targetCreated", params: { targetInfo: targetInfo("page") } });
          return answer({});
        case "Target.setAutoAttach":
          if (session === undefined) emit({ method: "Target.attachedToTarget", params: { sessionId: TAB_SESSION, targetInfo: targetInfo("tab"), waitingForDebugger: false } });
          else if (session === TAB_SESSION) emit({ method: "Target.attachedToTarget", sessionId: TAB_SESSION, params: { sessionId: PAGE_SESSION, targetInfo: targetInfo("page"), waitingForDebugger: false } });
          // The page's own children (out-of-process frames, workers) are not followed in a lent tab.
          return answer({});
        case "Target.attachToTarget": {
          if (message.params?.targetId !== PAGE_TARGET_ID) return refuse("Only the lent tab's page can be attached to.");
          extraSessions += 1;
          const sessionId = `${PAGE_SESSION}-${extraSessions}`;
          pageSessions.add(sessionId);
          emit({ method: "Target.attachedToTarget", params: { sessionId, targetInfo: targetInfo("page"), waitingForDebugger: false } });
          return answer({ sessionId });
        }
        case "Target.detachFromTarget": {
          const detached = message.params?.sessionId;
          if (typeof detached === "string" && detached !== PAGE_SESSION && pageSessions.delete(detached)) {
            fetchSessions.delete(detached);
            emit({ method: "Target.detachedFromTarget", params: { sessionId: detached } });
          }
          return answer({});
        }
        default:
          break;
      }
      // The tab target itself runs nothing; puppeteer only tells it to go on.
      if (session === TAB_SESSION && message.method === "Runtime.runIfWaitingForDebugger") return answer({});
      if (message.method.startsWith("Target.") || message.method.startsWith("Browser.")) {
        return refuse(`${message.method} is not available in a lent tab: the run acts in the person's one tab only.`);
      }
      if (session === undefined || !pageSessions.has(session)) return refuse(`${message.method} must be sent to the lent tab's page.`);
      if (message.method === "Page.navigate") {
        const url = typeof message.params?.url === "string" ? message.params.url : "";
        if (!urlMatchesAllowList(url, allowedSites)) return refuse(siteRefusal(url, allowedSites));
      }
      if (message.method === "Fetch.enable") fetchSessions.add(session);
      if (message.method === "Fetch.disable") fetchSessions.delete(session);

      relayId += 1;
      pending.set(relayId, { id: message.id, sessionId: session, method: message.method });
      if (!channel.sendCdp({ id: relayId, method: message.method, ...(message.params === undefined ? {} : { params: message.params }) })) {
        pending.delete(relayId);
        refuse("The lent tab is no longer connected.");
      }
    },
    close() {
      closed = true;
    },
  };

  const emit = (message: Record<string, unknown>) => {
    if (closed) return;
    transport.onmessage?.(JSON.stringify(message));
  };

  channel.onCdp((frame) => {
    if (frame.type === "tab_cdp_result") {
      const asked = pending.get(frame.id);
      if (asked === undefined) return;
      pending.delete(frame.id);
      if (frame.error !== undefined) emit({ id: asked.id, sessionId: asked.sessionId, error: { code: frame.error.code ?? -32_000, message: frame.error.message } });
      else emit({ id: asked.id, sessionId: asked.sessionId, result: frame.result ?? {} });
      return;
    }
    // Child sessions are not followed (see Target.setAutoAttach above): their events have no page here.
    if (frame.session_id !== undefined) return;
    const targets = frame.method.startsWith("Fetch.") ? fetchSessions : pageSessions;
    for (const sessionId of targets) emit({ method: frame.method, sessionId, params: frame.params ?? {} });
  });

  channel.onEnded(() => {
    if (closed) return;
    // Commands in flight will never be answered: puppeteer rejects them as the connection closes.
    closed = true;
    transport.onclose?.();
  });

  return transport;
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
