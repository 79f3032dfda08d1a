import type { CoachingHighlight, CoachingRead } from "../../shared/observation/coaching-read";
import { urlMatchesAllowList } from "../../shared/observation/site-allowlist";
import {
  TAB_GUARD_ERROR_CODE,
  type AgentTabFrame,
  type ClientTabFrame,
  type TabEndReason,
  type TabRefusalCode,
} from "../../shared/observation/tab-relay-protocol";
import { showBadge, type BadgeSurface } from "./capture-badge";
import { REMOVE_RUN_INDICATOR, RUN_STOP_BINDING, RUN_WORLD, runBadge, runIndicatorScript } from "./run-indicator";
import { createChildTargetGuard, createTabSiteGuard, type ChildTargetGuard, type TabSiteGuard } from "./tab-site-guard";

/**
 * The extension's end of an in-tab run (issue #21 "in my browser"). The agent asks to borrow a
 * tab; this attaches `chrome.debugger` to it, relays CDP both ways, shows that the assistant is
 * acting, and takes the tab back at once on Stop, on Chrome's own Cancel, when the tab leaves the
 * lease's sites, when a demonstration starts recording, or when the agent's link goes.
 *
 * Privacy (DESIGN §4): a run is refused while a demonstration is being recorded (armed, capturing
 * or paused), and a lease ends the moment one starts, so nothing the executor types in the tab is
 * ever captured by our content script as a demonstration. The one exception is the Coaching Agent
 * (issue #16) of the session being recorded: it takes turns with the person in the tab, only clicks
 * what the person agreed to and types nothing, and what it clicks is recorded as the demonstration.
 */

/** The part of `chrome.debugger` used here. */
export interface DebuggerApi {
  attach(target: { tabId: number }, version: string): Promise<void>;
  detach(target: { tabId: number }): Promise<void>;
  sendCommand(target: { tabId: number; sessionId?: string }, method: string, params?: Record<string, unknown>): Promise<object | undefined>;
  getTargets(): Promise<Array<{ type: string; tabId?: number; url: string }>>;
  onEvent: { addListener(listener: (source: { tabId?: number; sessionId?: string }, method: string, params?: object) => void): void };
  onDetach: { addListener(listener: (source: { tabId?: number }, reason: string) => void): void };
}

export interface TabLeaseDeps {
  /** `chrome.debugger`, or undefined when Chrome withholds it. */
  debuggerApi(): DebuggerApi | undefined;
  /** The person's consent to in-tab runs (asked in the side panel at the first one). */
  inTabAllowed(): Promise<boolean>;
  /** A new tab for a run that named none (about:blank, in front: the person sees it). */
  createTab(): Promise<number>;
  action: BadgeSurface;
  /** Puts the observation badge back as the current session wants it. */
  restoreBadge(): Promise<void>;
  /** Whether a demonstration is being recorded (armed, capturing or paused). */
  recordingActive(): Promise<boolean>;
  /** The id of the session being recorded, when one is (Coaching Agent leases take turns with it). */
  recordingSessionId?(): Promise<string | undefined>;
  send(frame: ClientTabFrame): boolean;
  /**
   * The Coaching Agent's read of the lent tab (shared/observation/coaching-read.ts): asks the tab's
   * content script over the extension's own messaging (`tabs.sendMessage`, top frame); resolves to
   * its scrubbed read, or null when no recorder of that page answered.
   */
  readRecorded(tabId: number, highlight: CoachingHighlight | null): Promise<CoachingRead | null>;
  onActiveChange(active: boolean): void;
  failed(where: string): (error: unknown) => void;
  /** Which tab is lent, in `chrome.storage.session`: a worker that stopped mid-lease gives it back when it starts. */
  leasedTab: { save(tabId: number | null): Promise<void>; load(): Promise<number | null> };
}

export interface TabLeases {
  handle(frame: AgentTabFrame): void;
  /** The capture mirror changed: a recording that starts ends the lease (resolves once the tab is given back). */
  recordingChanged(active: boolean): Promise<void>;
  /** The agent's link went down: the run cannot be driven, so the tab is given back. */
  linkLost(): void;
  /**
   * Worker start: a tab lent when the last worker stopped is given back (its run ended with the
   * socket: the agent saw the link go). Detached, and the badge put back as the capture wants it.
   */
  restore(): Promise<void>;
  active(): boolean;
}

interface Lease {
  leaseId: string;
  tabId: number;
  allowedSites: string[];
  mainFrameId?: string;
  guard?: TabSiteGuard;
  /** Frames of other sites and workers in the tab: never driven (issue #30). */
  children: ChildTargetGuard;
  ending: boolean;
  /** Coaching Agent (issue #16): the recording this lease takes turns with; it does not end the lease. */
  coachingSessionId?: string;
}

type Refusal = { code: TabRefusalCode; message: string };

/** Pages a lent tab may show besides its sites: a blank tab, and Chrome's error page for a load that failed. */
export function isAllowedInLease(url: string, allowedSites: readonly string[]): boolean {
  if (url === "" || url === "about:blank" || url.startsWith("chrome-error://")) return true;
  return urlMatchesAllowList(url, allowedSites);
}

export function createTabLeases(deps: TabLeaseDeps): TabLeases {
  let lease: Lease | undefined;
  /** A `tab_open` being answered: a second one meanwhile is refused as busy, not raced. */
  let opening = false;
  let listening = false;

  const refuse = (leaseId: string, refusal: Refusal) => void deps.send({ type: "tab_refused", lease_id: leaseId, ...refusal });

  const end = async (reason: TabEndReason, message: string) => {
    const current = lease;
    if (current === undefined || current.ending) return;
    current.ending = true;
    const api = deps.debuggerApi();
    if (api !== undefined && reason !== "debugger_detached" && reason !== "tab_closed") {
      await api.sendCommand({ tabId: current.tabId }, "Runtime.evaluate", { expression: REMOVE_RUN_INDICATOR }).catch(() => undefined);
      await api.detach({ tabId: current.tabId }).catch(() => undefined);
    }
    lease = undefined;
    deps.onActiveChange(false);
    await deps.leasedTab.save(null).catch(deps.failed("in-tab run"));
    await deps.restoreBadge().catch(deps.failed("run badge"));
    deps.send({ type: "tab_ended", lease_id: current.leaseId, reason, message });
  };

  const onEvent = (source: { tabId?: number; sessionId?: string }, method: string, params?: object) => {
    const current = lease;
    if (current === undefined || current.ending || source.tabId !== current.tabId) return;
    const values = (params ?? {}) as Record<string, unknown>;
    current.children.observe(method, values);
    if (method === "Runtime.bindingCalled" && values.name === RUN_STOP_BINDING) {
      void end("user_stop", "the person pressed Stop in the page");
      return;
    }
    if (source.sessionId === undefined && method === "Fetch.requestPaused" && current.guard !== undefined) {
      void current.guard.paused(values).then((agents) => {
        if (agents && lease === current && !current.ending) deps.send({ type: "tab_cdp_event", lease_id: current.leaseId, method, params: values });
      });
      return;
    }
    if (source.sessionId === undefined) {
      const leaving = offSiteNavigation(method, values, current);
      if (leaving !== undefined) {
        // Stop the load if it has not committed yet, then give the tab back: the run may not follow it.
        void deps.debuggerApi()?.sendCommand({ tabId: current.tabId }, "Page.stopLoading").catch(() => undefined);
        void end("off_site", `the tab went to ${leaving}, which this run may not touch`);
        return;
      }
    }
    deps.send({
      type: "tab_cdp_event",
      lease_id: current.leaseId,
      method,
      params: values,
      ...(source.sessionId === undefined ? {} : { session_id: source.sessionId }),
    });
  };

  const onDetach = (source: { tabId?: number }, reason: string) => {
    if (lease === undefined || source.tabId !== lease.tabId) return;
    void end(reason === "target_closed" ? "tab_closed" : "debugger_detached", reason === "target_closed" ? "the tab was closed" : "Chrome's debugging bar was cancelled");
  };

  const open = async (frame: Extract<AgentTabFrame, { type: "tab_open" }>): Promise<Refusal | undefined> => {
    if (lease !== undefined) return { code: "TAB_BUSY", message: "The assistant is already acting in a tab; wait for that run to end or stop it." };
    if (!(await deps.inTabAllowed())) {
      return {
        code: "IN_TAB_NOT_ALLOWED",
        message: "Running in your browser is not allowed yet: start the run from the side panel's Run button and allow the assistant to act in your tabs.",
      };
    }
    const api = deps.debuggerApi();
    if (api === undefined) return { code: "DEBUGGER_UNAVAILABLE", message: "Chrome does not let the extension act in tabs here (the debugger API is withheld, for example by a policy)." };
    // Coaching Agent (issue #16): the one recording a lease may share the tab with is the coaching
    // session it serves; the agent only clicks there what the person agreed to, and types nothing.
    const coaching = frame.coaching_session_id !== undefined && frame.coaching_session_id === (await deps.recordingSessionId?.());
    if (!coaching && (await deps.recordingActive())) {
      return { code: "RECORDING_ACTIVE", message: "A demonstration is being recorded; stop it before running an ability in your browser, so the run's typed values are never recorded." };
    }
    if (!listening) {
      api.onEvent.addListener(onEvent);
      api.onDetach.addListener(onDetach);
      listening = true;
    }
    let tabId = frame.tab_id;
    if (tabId === undefined) tabId = await deps.createTab();
    const target = (await api.getTargets()).find((candidate) => candidate.type === "page" && candidate.tabId === tabId);
    if (target === undefined) return { code: "TAB_NOT_FOUND", message: `No tab ${tabId} that can be driven (it was closed, or it is a browser page).` };
    if (!isAllowedInLease(target.url, frame.allowed_sites)) {
      return { code: "SITE_NOT_ALLOWED", message: `The tab shows ${hostOf(target.url)}, which is not one of the sites this run may touch (${frame.allowed_sites.join(", ")}).` };
    }
    try {
      await api.attach({ tabId }, "1.3");
    } catch (error) {
      return { code: "ATTACH_FAILED", message: `The extension could not act in that tab: ${error instanceof Error ? error.message : String(error)}`.slice(0, 400) };
    }
    const current: Lease = { leaseId: frame.lease_id, tabId, allowedSites: [...frame.allowed_sites], children: createChildTargetGuard(), ending: false, ...(coaching ? { coachingSessionId: frame.coaching_session_id } : {}) };
    lease = current;
    await deps.leasedTab.save(tabId).catch(deps.failed("in-tab run"));
    deps.onActiveChange(true);
    await showBadge(deps.action, runBadge(frame.label)).catch(deps.failed("run badge"));
    try {
      await showIndicator(api, current, frame.label);
      const guard = createTabSiteGuard({
        send: (method, params) => api.sendCommand({ tabId: current.tabId }, method, params),
        allowed: (url) => isAllowedInLease(url, current.allowedSites),
        isMainFrame: (frameId) => frameId === current.mainFrameId,
        onRefused: (url) => void end("off_site", `the tab was about to go to ${hostOf(url)}, which this run may not touch; that page was not loaded`),
      });
      await guard.start();
      current.guard = guard;
    } catch (error) {
      // Acting unseen is not an option: without the bar, the tab is given back.
      await end("released", "the in-page indicator could not be shown");
      return { code: "ATTACH_FAILED", message: `The in-page indicator could not be shown: ${error instanceof Error ? error.message : String(error)}`.slice(0, 400) };
    }
    deps.send({ type: "tab_opened", lease_id: frame.lease_id, tab_id: tabId, url: target.url.slice(0, 4000) });
    return undefined;
  };

  const relay = async (frame: Extract<AgentTabFrame, { type: "tab_cdp" }>) => {
    const current = lease;
    const reply = (body: Pick<Extract<ClientTabFrame, { type: "tab_cdp_result" }>, "result" | "error">) =>
      void deps.send({ type: "tab_cdp_result", lease_id: frame.lease_id, id: frame.id, ...body });
    if (current === undefined || current.ending || current.leaseId !== frame.lease_id) return reply({ error: { message: "The tab is no longer lent to this run." } });
    const api = deps.debuggerApi();
    if (api === undefined) return reply({ error: { message: "The debugger permission was taken back." } });
    // The agent's transport checks these too; the extension does not take its word for it.
    const toChild = current.children.refusal(frame.method, frame.session_id);
    if (toChild !== undefined) return reply({ error: { code: TAB_GUARD_ERROR_CODE, message: toChild } });
    if (frame.method === "Page.navigate" && frame.session_id === undefined) {
      const url = typeof frame.params?.url === "string" ? frame.params.url : "";
      if (!urlMatchesAllowList(url, current.allowedSites)) {
        return reply({ error: { code: TAB_GUARD_ERROR_CODE, message: `SITE_NOT_ALLOWED: ${hostOf(url)} is not one of the sites this run may touch.` } });
      }
    }
    const target = { tabId: current.tabId, ...(frame.session_id === undefined ? {} : { sessionId: frame.session_id }) };
    // The tab has one debugger session, shared with the bar, whose Stop needs Runtime enabled
    // (bindingCalled is only sent then). So the agent's Runtime.disable is answered without
    // disabling, and its Runtime.enable restarts the domain, so that Chrome reports the page's
    // execution contexts again (a second enable reports nothing, and puppeteer would wait for ever).
    // Restarting the domain drops the bar's binding for documents loaded afterwards: it is added again.
    if (frame.session_id === undefined && frame.method === "Runtime.disable") return reply({ result: {} });
    const folded = frame.session_id === undefined ? current.guard?.agentCommand(frame.method, frame.params) : undefined;
    if (folded !== undefined) {
      try {
        return reply({ result: await folded });
      } catch (error) {
        return reply({ error: { message: (error instanceof Error ? error.message : String(error)).slice(0, 2000) } });
      }
    }
    const restartsRuntime = frame.session_id === undefined && frame.method === "Runtime.enable";
    if (restartsRuntime) await api.sendCommand(target, "Runtime.disable").catch(() => undefined);
    try {
      const result = await api.sendCommand(target, frame.method, frame.params);
      if (restartsRuntime) await api.sendCommand(target, "Runtime.addBinding", STOP_BINDING_PARAMS);
      reply({ result: (result ?? {}) as Record<string, unknown> });
    } catch (error) {
      reply({ error: { message: (error instanceof Error ? error.message : String(error)).slice(0, 2000) } });
    }
  };

  /** Coaching leases only: the agent reads what the content script let through, never the raw page. */
  const read = async (frame: Extract<AgentTabFrame, { type: "tab_read" }>) => {
    const current = lease;
    const answer = (read: CoachingRead | null, why?: string) =>
      void deps.send({ type: "tab_read_result", lease_id: frame.lease_id, id: frame.id, read, ...(why === undefined ? {} : { why }) });
    if (current === undefined || current.ending || current.leaseId !== frame.lease_id) return answer(null, "the tab is no longer lent");
    if (current.coachingSessionId === undefined) return answer(null, "only the Coaching Agent reads a lent page this way");
    try {
      const result = await deps.readRecorded(current.tabId, frame.highlight);
      return result === null ? answer(null, "no recorder of the page answered") : answer(result);
    } catch {
      return answer(null, "no recorder of the page answered");
    }
  };

  return {
    handle(frame) {
      switch (frame.type) {
        case "tab_open":
          if (opening) return refuse(frame.lease_id, { code: "TAB_BUSY", message: "The assistant is already being lent a tab." });
          opening = true;
          void open(frame)
            .then((refusal) => refusal && refuse(frame.lease_id, refusal))
            .catch((error: unknown) => {
              deps.failed("in-tab run")(error);
              refuse(frame.lease_id, { code: "ATTACH_FAILED", message: "The extension could not lend the tab." });
            })
            .finally(() => (opening = false));
          return;
        case "tab_cdp":
          void relay(frame);
          return;
        case "tab_read":
          void read(frame);
          return;
        case "tab_release":
          if (lease?.leaseId === frame.lease_id) void end("released", "the run gave the tab back");
          else deps.send({ type: "tab_ended", lease_id: frame.lease_id, reason: "released", message: "the tab was not lent" });
          return;
        default:
          return assertNever(frame);
      }
    },
    async recordingChanged(active) {
      if (active && lease !== undefined && lease.coachingSessionId === undefined) await end("recording_started", "a demonstration started recording");
    },
    linkLost() {
      if (lease !== undefined) void end("link_lost", "the extension's connection to the agent was lost");
    },
    active: () => lease !== undefined,
    async restore() {
      const tabId = await deps.leasedTab.load();
      if (tabId === null || lease !== undefined) return;
      await deps.debuggerApi()?.detach({ tabId }).catch(() => undefined);
      await deps.leasedTab.save(null);
      await deps.restoreBadge();
    },
  };
}

const STOP_BINDING_PARAMS = { name: RUN_STOP_BINDING, executionContextName: RUN_WORLD };

/** The bar in the page now and in every document the tab loads while lent, and the Stop binding it calls. */
async function showIndicator(api: DebuggerApi, lease: Lease, label: string): Promise<void> {
  const tab = { tabId: lease.tabId };
  const source = runIndicatorScript(label);
  await api.sendCommand(tab, "Page.enable");
  await api.sendCommand(tab, "Runtime.enable");
  await api.sendCommand(tab, "Runtime.addBinding", STOP_BINDING_PARAMS);
  await api.sendCommand(tab, "Page.addScriptToEvaluateOnNewDocument", { source, worldName: RUN_WORLD });
  const tree = (await api.sendCommand(tab, "Page.getFrameTree")) as { frameTree: { frame: { id: string } } };
  lease.mainFrameId = tree.frameTree.frame.id;
  const world = (await api.sendCommand(tab, "Page.createIsolatedWorld", { frameId: lease.mainFrameId, worldName: RUN_WORLD })) as { executionContextId: number };
  await api.sendCommand(tab, "Runtime.evaluate", { expression: source, contextId: world.executionContextId });
}

/** The host a main-frame navigation is taking the tab to, when that is off the lease's sites. */
function offSiteNavigation(method: string, params: Record<string, unknown>, lease: Lease): string | undefined {
  let url: unknown;
  if (method === "Page.frameRequestedNavigation" || method === "Page.frameStartedNavigating") {
    if (params.frameId !== lease.mainFrameId) return undefined;
    url = params.url;
  } else if (method === "Page.frameNavigated") {
    const frame = params.frame as { parentId?: string; url?: string } | undefined;
    if (frame === undefined || frame.parentId !== undefined) return undefined;
    url = frame.url;
  } else {
    return undefined;
  }
  if (typeof url !== "string" || isAllowedInLease(url, lease.allowedSites)) return undefined;
  return hostOf(url);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || "that address";
  } catch {
    return "that address";
  }
}

function assertNever(value: never): never {
  throw new Error(`Unhandled tab frame ${JSON.stringify(value)}`);
}
