import type { CoachingRead } from "../../../shared/observation/coaching-read";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import { TAB_GUARD_ERROR_CODE, type AgentTabFrame, type ClientTabFrame } from "../../../shared/observation/tab-relay-protocol";
import { endLease, hostOf, isAllowedInLease, type Lease, type LeaseContext } from "./lease-context";
import { RUN_STOP_BINDING, RUN_WORLD } from "./run-indicator";

export const STOP_BINDING_PARAMS = { name: RUN_STOP_BINDING, executionContextName: RUN_WORLD };

/** A CDP event from the lent tab: Stop pressed, a request the site guard holds, a navigation off the sites, or relayed. */
export function onDebuggerEvent(context: LeaseContext, source: { tabId?: number; sessionId?: string }, method: string, params?: object): void {
  const { deps } = context;
  const current = context.lease;
  if (current === undefined || current.ending || source.tabId !== current.tabId) return;
  const values = (params ?? {}) as Record<string, unknown>;
  current.children.observe(method, values);
  if (method === "Runtime.bindingCalled" && values.name === RUN_STOP_BINDING) {
    void endLease(context, "user_stop", "the person pressed Stop in the page");
    return;
  }
  if (source.sessionId === undefined && method === "Fetch.requestPaused" && current.guard !== undefined) {
    void current.guard.paused(values).then((agents) => {
      if (agents && context.lease === current && !current.ending) deps.send({ type: "tab_cdp_event", lease_id: current.leaseId, method, params: values });
    });
    return;
  }
  if (source.sessionId === undefined) {
    const leaving = offSiteNavigation(method, values, current);
    if (leaving !== undefined) {
      // Stop the load if it has not committed yet, then give the tab back: the run may not follow it.
      void deps
        .debuggerApi()
        ?.sendCommand({ tabId: current.tabId }, "Page.stopLoading")
        .catch(() => undefined);
      void endLease(context, "off_site", `the tab went to ${leaving}, which this run may not touch`);
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
}

export function onDebuggerDetach(context: LeaseContext, source: { tabId?: number }, reason: string): void {
  if (context.lease === undefined || source.tabId !== context.lease.tabId) return;
  const closed = reason === "target_closed";
  void endLease(context, closed ? "tab_closed" : "debugger_detached", closed ? "the tab was closed" : "Chrome's debugging bar was cancelled");
}

/** An agent's CDP command for the lent tab, checked here too (the extension does not take the agent's word for it). */
export async function relayCdp(context: LeaseContext, frame: Extract<AgentTabFrame, { type: "tab_cdp" }>): Promise<void> {
  const current = context.lease;
  const reply = (body: Pick<Extract<ClientTabFrame, { type: "tab_cdp_result" }>, "result" | "error">) =>
    void context.deps.send({ type: "tab_cdp_result", lease_id: frame.lease_id, id: frame.id, ...body });
  if (current === undefined || current.ending || current.leaseId !== frame.lease_id)
    return reply({ error: { message: "The tab is no longer lent to this run." } });
  const api = context.deps.debuggerApi();
  if (api === undefined) return reply({ error: { message: "The debugger permission was taken back." } });
  const refused = refusedCommand(current, frame);
  if (refused !== undefined) return reply({ error: { code: TAB_GUARD_ERROR_CODE, message: refused } });
  const target = { tabId: current.tabId, ...(frame.session_id === undefined ? {} : { sessionId: frame.session_id }) };
  // The tab has one debugger session, shared with the bar, whose Stop needs Runtime enabled
  // (bindingCalled is only sent then). So the agent's Runtime.disable is answered without
  // disabling, and its Runtime.enable restarts the domain, so that Chrome reports the page's
  // execution contexts again (a second enable reports nothing, and puppeteer would wait for ever).
  // Restarting the domain drops the bar's binding for documents loaded afterwards: it is added again.
  if (frame.session_id === undefined && frame.method === "Runtime.disable") return reply({ result: {} });
  const folded = frame.session_id === undefined ? current.guard?.agentCommand(frame.method, frame.params) : undefined;
  const restartsRuntime = frame.session_id === undefined && frame.method === "Runtime.enable";
  try {
    if (folded !== undefined) return reply({ result: await folded });
    if (restartsRuntime) await api.sendCommand(target, "Runtime.disable").catch(() => undefined);
    const result = await api.sendCommand(target, frame.method, frame.params);
    if (restartsRuntime) await api.sendCommand(target, "Runtime.addBinding", STOP_BINDING_PARAMS);
    reply({ result: (result ?? {}) as Record<string, unknown> });
  } catch (error) {
    reply({ error: { message: (error instanceof Error ? error.message : String(error)).slice(0, 2000) } });
  }
}

/** Why a command may not run: it drives another site's frame or a worker (issue #30), or navigates off the sites. */
function refusedCommand(current: Lease, frame: Extract<AgentTabFrame, { type: "tab_cdp" }>): string | undefined {
  const toChild = current.children.refusal(frame.method, frame.session_id);
  if (toChild !== undefined) return toChild;
  if (frame.method === "Page.navigate" && frame.session_id === undefined) {
    const url = typeof frame.params?.url === "string" ? frame.params.url : "";
    if (!urlMatchesAllowList(url, current.allowedSites)) return `SITE_NOT_ALLOWED: ${hostOf(url)} is not one of the sites this run may touch.`;
  }
  return undefined;
}

/** Coaching leases only: the agent reads what the content script let through, never the raw page. */
export async function readLentPage(context: LeaseContext, frame: Extract<AgentTabFrame, { type: "tab_read" }>): Promise<void> {
  const current = context.lease;
  const answer = (read: CoachingRead | null, why?: string) =>
    void context.deps.send({ type: "tab_read_result", lease_id: frame.lease_id, id: frame.id, read, ...(why === undefined ? {} : { why }) });
  if (current === undefined || current.ending || current.leaseId !== frame.lease_id) return answer(null, "the tab is no longer lent");
  if (current.coachingSessionId === undefined) return answer(null, "only the Coaching Agent reads a lent page this way");
  try {
    const result = await context.deps.readRecorded(current.tabId, frame.highlight);
    return result === null ? answer(null, "no recorder of the page answered") : answer(result);
  } catch {
    return answer(null, "no recorder of the page answered");
  }
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
