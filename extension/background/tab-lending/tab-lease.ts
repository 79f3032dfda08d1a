import type { AgentTabFrame } from "../../../shared/observation/tab-relay-protocol";
import { endLease, type LeaseContext, type Refusal, type TabLeaseDeps } from "./lease-context";
import { openLease } from "./lease-open";
import { readLentPage, relayCdp } from "./lease-relay";
import { assertNever } from "../../../shared/common/assert-never";

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

export function createTabLeases(deps: TabLeaseDeps): TabLeases {
  const context: LeaseContext = { deps, lease: undefined, opening: false, listening: false };
  const refuse = (leaseId: string, refusal: Refusal) => void deps.send({ type: "tab_refused", lease_id: leaseId, ...refusal });

  return {
    handle(frame) {
      switch (frame.type) {
        case "tab_open":
          if (context.opening) return refuse(frame.lease_id, { code: "TAB_BUSY", message: "The assistant is already being lent a tab." });
          context.opening = true;
          void openLease(context, frame)
            .then((refusal) => refusal && refuse(frame.lease_id, refusal))
            .catch((error: unknown) => {
              deps.failed("in-tab run")(error);
              refuse(frame.lease_id, { code: "ATTACH_FAILED", message: "The extension could not lend the tab." });
            })
            .finally(() => (context.opening = false));
          return;
        case "tab_cdp":
          void relayCdp(context, frame);
          return;
        case "tab_read":
          void readLentPage(context, frame);
          return;
        case "tab_release":
          if (context.lease?.leaseId === frame.lease_id) void endLease(context, "released", "the run gave the tab back");
          else deps.send({ type: "tab_ended", lease_id: frame.lease_id, reason: "released", message: "the tab was not lent" });
          return;
        default:
          return assertNever(frame);
      }
    },
    async recordingChanged(active) {
      if (active && context.lease !== undefined && context.lease.coachingSessionId === undefined) {
        await endLease(context, "recording_started", "a demonstration started recording");
      }
    },
    linkLost() {
      if (context.lease !== undefined) void endLease(context, "link_lost", "the extension's connection to the agent was lost");
    },
    active: () => context.lease !== undefined,
    async restore() {
      const tabId = await deps.leasedTab.load();
      if (tabId === null || context.lease !== undefined) return;
      await deps
        .debuggerApi()
        ?.detach({ tabId })
        .catch(() => undefined);
      await deps.leasedTab.save(null);
      await deps.restoreBadge();
    },
  };
}
