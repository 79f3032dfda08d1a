/**
 * rrweb's habit: every callback the recorder hands to the page is wrapped, so an error in our code
 * never propagates to the host page and never floods its console. The first error is reported as
 * one prefixed warning; later ones are counted, not printed.
 */
export interface ErrorGuard {
  /** Wraps a callback so it can never throw into its caller (a DOM dispatch, a timer). */
  wrap<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void;
  /** Runs a callback now, swallowing (and reporting) what it throws. */
  run<T>(callback: () => T): T | undefined;
  /** Reports an error caught elsewhere (a rejected promise). */
  report(error: unknown): void;
  /** How many errors were caught (for tests and diagnostics). */
  readonly errorCount: number;
}

export const WARNING_PREFIX = "[elnor-learn]";

export function createErrorGuard(warn: (message: string) => void = (message) => console.warn(message)): ErrorGuard {
  let errorCount = 0;
  const report = (error: unknown): void => {
    errorCount += 1;
    if (errorCount > 1) return;
    // Only the error's kind and our own message: never a stack with page data in it.
    const name = error instanceof Error ? error.name : typeof error;
    const message = error instanceof Error ? error.message.slice(0, 160) : "";
    try {
      warn(`${WARNING_PREFIX} observation error (further errors are not reported): ${name} ${message}`.trim());
    } catch {
      // A broken console must not break the page either; nothing else can be done here.
    }
  };
  return {
    wrap(callback) {
      return (...args) => {
        try {
          callback(...args);
        } catch (error) {
          report(error);
        }
      };
    },
    run(callback) {
      try {
        return callback();
      } catch (error) {
        report(error);
        return undefined;
      }
    },
    report,
    get errorCount() {
      return errorCount;
    },
  };
}
