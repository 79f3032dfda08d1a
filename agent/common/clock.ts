/** Time as the agent sees it; injected everywhere so TTL rules run under a fake clock in tests. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
