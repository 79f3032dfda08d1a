import type { Browser } from "wxt/browser";

export const KEEPALIVE_ALARM = "elnor-capture-keepalive";
/** Chrome's shortest alarm period (30 s since Chrome 120; 1 min before, which it rounds up to). */
const PERIOD_MINUTES = 0.5;

export interface Keepalive {
  /** Starts or stops the periodic wake-up; idempotent, and it never restarts a running alarm's clock. */
  set(wanted: boolean): Promise<void>;
}

/**
 * MV3 service workers sleep after 30 s without events. While a capture is on (or events wait for
 * the agent), an alarm wakes the worker every 30 s to re-open the socket and drain the outbox if
 * it slept anyway; the socket's own heartbeat keeps it awake while the link is up. With nothing to
 * do, the alarm is cleared and the worker is let sleep.
 */
export function createKeepalive(alarms: Pick<typeof Browser.alarms, "get" | "create" | "clear">): Keepalive {
  return {
    async set(wanted) {
      const existing = await alarms.get(KEEPALIVE_ALARM);
      if (wanted && existing === undefined) {
        await alarms.create(KEEPALIVE_ALARM, { periodInMinutes: PERIOD_MINUTES, delayInMinutes: PERIOD_MINUTES });
      } else if (!wanted && existing !== undefined) {
        await alarms.clear(KEEPALIVE_ALARM);
      }
    },
  };
}
