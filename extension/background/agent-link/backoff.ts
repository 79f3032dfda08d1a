export const BACKOFF_FIRST_MS = 1_000;
export const BACKOFF_MAX_MS = 30_000;

/** Delay before reconnect attempt `attempt` (0-based): 1 s, 2 s, 4 s, … capped at 30 s. */
export function reconnectDelayMs(attempt: number): number {
  const safe = Math.max(0, Math.min(attempt, 16));
  return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** safe);
}
