/** Lengths of time in milliseconds, named once (grants' durations, schedules, retention windows). */
export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
