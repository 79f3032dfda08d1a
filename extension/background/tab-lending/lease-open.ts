import type { AgentTabFrame } from "../../../shared/observation/tab-relay-protocol";
import { showBadge } from "../capture/capture-badge";
import { endLease, hostOf, isAllowedInLease, type DebuggerApi, type Lease, type LeaseContext, type Refusal } from "./lease-context";
import { onDebuggerDetach, onDebuggerEvent, STOP_BINDING_PARAMS } from "./lease-relay";
import { RUN_WORLD, runBadge, runIndicatorScript } from "./run-indicator";
import { createChildTargetGuard, createTabSiteGuard } from "./tab-site-guard";

type OpenFrame = Extract<AgentTabFrame, { type: "tab_open" }>;

/** Lends the tab a `tab_open` asks for, or says why not (the refusal the agent is sent). */
export async function openLease(context: LeaseContext, frame: OpenFrame): Promise<Refusal | undefined> {
  const { deps } = context;
  const checked = await mayLend(context, frame);
  if ("code" in checked) return checked;
  const { api, coaching } = checked;
  if (!context.listening) {
    api.onEvent.addListener((source, method, params) => onDebuggerEvent(context, source, method, params));
    api.onDetach.addListener((source, reason) => onDebuggerDetach(context, source, reason));
    context.listening = true;
  }
  const tabId = frame.tab_id ?? (await deps.createTab());
  const target = (await api.getTargets()).find((candidate) => candidate.type === "page" && candidate.tabId === tabId);
  if (target === undefined) return { code: "TAB_NOT_FOUND", message: `No tab ${tabId} that can be driven (it was closed, or it is a browser page).` };
  if (!isAllowedInLease(target.url, frame.allowed_sites)) {
    return {
      code: "SITE_NOT_ALLOWED",
      message: `The tab shows ${hostOf(target.url)}, which is not one of the sites this run may touch (${frame.allowed_sites.join(", ")}).`,
    };
  }
  try {
    await api.attach({ tabId }, "1.3");
  } catch (error) {
    return {
      code: "ATTACH_FAILED",
      message: `The extension could not act in that tab: ${error instanceof Error ? error.message : String(error)}`.slice(0, 400),
    };
  }
  const current: Lease = {
    leaseId: frame.lease_id,
    tabId,
    allowedSites: [...frame.allowed_sites],
    children: createChildTargetGuard(),
    ending: false,
    ...(coaching ? { coachingSessionId: frame.coaching_session_id } : {}),
  };
  context.lease = current;
  await deps.leasedTab.save(tabId).catch(deps.failed("in-tab run"));
  deps.onActiveChange(true);
  await showBadge(deps.action, runBadge(frame.label)).catch(deps.failed("run badge"));
  const refusal = await guardLentTab(context, api, current, frame.label);
  if (refusal !== undefined) return refusal;
  deps.send({ type: "tab_opened", lease_id: frame.lease_id, tab_id: tabId, url: target.url.slice(0, 4000) });
  return undefined;
}

/** The checks before any tab is touched: one lease at a time, the person's consent, the debugger, no recording. */
async function mayLend(context: LeaseContext, frame: OpenFrame): Promise<Refusal | { api: DebuggerApi; coaching: boolean }> {
  const { deps } = context;
  if (context.lease !== undefined) return { code: "TAB_BUSY", message: "The assistant is already acting in a tab; wait for that run to end or stop it." };
  if (!(await deps.inTabAllowed())) {
    return {
      code: "IN_TAB_NOT_ALLOWED",
      message: "Running in your browser is not allowed yet: start the run from the side panel's Run button and allow the assistant to act in your tabs.",
    };
  }
  const api = deps.debuggerApi();
  if (api === undefined)
    return {
      code: "DEBUGGER_UNAVAILABLE",
      message: "Chrome does not let the extension act in tabs here (the debugger API is withheld, for example by a policy).",
    };
  // Coaching Agent (issue #16): the one recording a lease may share the tab with is the coaching
  // session it serves; the agent only clicks there what the person agreed to, and types nothing.
  const coaching = frame.coaching_session_id !== undefined && frame.coaching_session_id === (await deps.recordingSessionId?.());
  if (!coaching && (await deps.recordingActive())) {
    return {
      code: "RECORDING_ACTIVE",
      message: "A demonstration is being recorded; stop it before running an ability in your browser, so the run's typed values are never recorded.",
    };
  }
  return { api, coaching };
}

/** The bar with Stop and the site guard; acting unseen is not an option, so without the bar the tab is given back. */
async function guardLentTab(context: LeaseContext, api: DebuggerApi, current: Lease, label: string): Promise<Refusal | undefined> {
  try {
    await showIndicator(api, current, label);
    const guard = createTabSiteGuard({
      send: (method, params) => api.sendCommand({ tabId: current.tabId }, method, params),
      allowed: (url) => isAllowedInLease(url, current.allowedSites),
      isMainFrame: (frameId) => frameId === current.mainFrameId,
      onRefused: (url) =>
        void endLease(context, "off_site", `the tab was about to go to ${hostOf(url)}, which this run may not touch; that page was not loaded`),
    });
    await guard.start();
    current.guard = guard;
    return undefined;
  } catch (error) {
    await endLease(context, "released", "the in-page indicator could not be shown");
    return {
      code: "ATTACH_FAILED",
      message: `The in-page indicator could not be shown: ${error instanceof Error ? error.message : String(error)}`.slice(0, 400),
    };
  }
}

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
  const world = (await api.sendCommand(tab, "Page.createIsolatedWorld", { frameId: lease.mainFrameId, worldName: RUN_WORLD })) as {
    executionContextId: number;
  };
  await api.sendCommand(tab, "Runtime.evaluate", { expression: source, contextId: world.executionContextId });
}
