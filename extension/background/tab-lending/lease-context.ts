import type { CoachingHighlight, CoachingRead } from "../../../shared/observation/coaching-read";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import type { ClientTabFrame, TabEndReason, TabRefusalCode } from "../../../shared/observation/tab-relay-protocol";
import type { BadgeSurface } from "../capture/capture-badge";
import { REMOVE_RUN_INDICATOR } from "./run-indicator";
import type { ChildTargetGuard, TabSiteGuard } from "./tab-site-guard";

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

export interface Lease {
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

/** The one lease there can be, and what its parts (open, relay, end) share. */
export interface LeaseContext {
  deps: TabLeaseDeps;
  lease: Lease | undefined;
  /** A `tab_open` being answered: a second one meanwhile is refused as busy, not raced. */
  opening: boolean;
  /** Whether the debugger's event and detach listeners are added (once per worker). */
  listening: boolean;
}

export type Refusal = { code: TabRefusalCode; message: string };

/** Pages a lent tab may show besides its sites: a blank tab, and Chrome's error page for a load that failed. */
export function isAllowedInLease(url: string, allowedSites: readonly string[]): boolean {
  if (url === "" || url === "about:blank" || url.startsWith("chrome-error://")) return true;
  return urlMatchesAllowList(url, allowedSites);
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host || "that address";
  } catch {
    return "that address";
  }
}

/** Gives the tab back: the bar removed, the debugger detached, the badge restored, the agent told why. */
export async function endLease(context: LeaseContext, reason: TabEndReason, message: string): Promise<void> {
  const { deps } = context;
  const current = context.lease;
  if (current === undefined || current.ending) return;
  current.ending = true;
  const api = deps.debuggerApi();
  if (api !== undefined && reason !== "debugger_detached" && reason !== "tab_closed") {
    await api.sendCommand({ tabId: current.tabId }, "Runtime.evaluate", { expression: REMOVE_RUN_INDICATOR }).catch(() => undefined);
    await api.detach({ tabId: current.tabId }).catch(() => undefined);
  }
  context.lease = undefined;
  deps.onActiveChange(false);
  await deps.leasedTab.save(null).catch(deps.failed("in-tab run"));
  await deps.restoreBadge().catch(deps.failed("run badge"));
  deps.send({ type: "tab_ended", lease_id: current.leaseId, reason, message });
}
