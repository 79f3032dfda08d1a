import { createTypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";

/** A step that cannot go on, with the reason a person reads. */
export class StepFailure extends Error {
  override name = "StepFailure";
}

/** The browser was had but could not be driven: like a missing browser, the execution did not happen. */
export class BrowserUnusable extends Error {
  override name = "BrowserUnusable";
}

/** The execution was abandoned: its signal was aborted. */
export class Cancelled extends Error {
  override name = "Cancelled";
}

/** The person said no to a step with consequences found only once its element was. */
export class Declined extends Error {
  override name = "Declined";
}

export const POLL_MS = 100;
export const SELECTOR_SHOWN_MAX = 160;

export function clamp(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Bounds a piece of work; the work itself is left to fail when the browser closes. */
export async function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepFailure(message)), Math.max(0, ms));
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A time limit that can be held while someone is asked (their time is not the work's); `promise` rejects with `StepFailure`. */
export interface PausableLimit {
  promise: Promise<never>;
  pause(): void;
  resume(): void;
  clear(): void;
}

export function pausableLimit(ms: number, message: string): PausableLimit {
  let left = Math.max(0, ms);
  let startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let fail: (error: Error) => void = () => undefined;
  const promise = new Promise<never>((_, reject) => {
    fail = reject;
  });
  promise.catch(() => undefined);
  const arm = () => {
    startedAt = Date.now();
    timer = setTimeout(() => fail(new StepFailure(message)), left);
  };
  arm();
  return {
    promise,
    pause() {
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      left = Math.max(0, left - (Date.now() - startedAt));
    },
    resume() {
      if (timer === undefined) arm();
    },
    clear() {
      clearTimeout(timer);
      timer = undefined;
      left = Number.POSITIVE_INFINITY;
    },
  };
}

export function showSelector(parts: readonly string[]): string {
  const shown = parts.length === 1 ? (parts[0] as string) : parts.join(" >>> ");
  return shown.length > SELECTOR_SHOWN_MAX ? `${shown.slice(0, SELECTOR_SHOWN_MAX - 1)}…` : shown;
}

/**
 * Input values never appear in what the executor reports, even where the page echoed them (in any
 * case, spacing or encoding): the shared rule of the extension's privacy boundary, for every value
 * given (a run's inputs and a rehearsal's test values alike).
 */
export function valueRedactor(values: Readonly<Record<string, string>>): (text: string) => string {
  const chosen = Object.values(values).filter((value): value is string => typeof value === "string");
  const scrubber = createTypedValueScrubber(chosen);
  return (text) => scrubber.scrub(text);
}
