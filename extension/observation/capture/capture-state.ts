import type { CaptureConfig } from "../common/capture-messages";
import type { DomObserver } from "../observers/dom-observer";
import type { ErrorGuard } from "../common/error-guard";
import { createFieldMasker, type FieldMasker } from "../privacy/field-masking";
import type { Indicator } from "./indicator";
import type { PrivacyBoundary } from "../privacy/privacy-boundary";

/**
 * What the parts of a capture (this folder, wired by ../content-capture.ts) share, as rrweb's
 * observers share theirs: the page's window, the error guard, the privacy boundary every outgoing
 * string passes through, the session's config, the DOM observer while observing, and the hashing
 * under way (awaited before everything is delivered).
 */
export interface CaptureState {
  readonly win: Window;
  readonly guard: ErrorGuard;
  /** Everything that leaves this page passes through it (privacy-boundary.ts). */
  readonly boundary: PrivacyBoundary;
  readonly newId: () => string;
  /** The background's config; null while nothing is recorded here. */
  config: CaptureConfig | null;
  /** The page's observers while observing (dom-observer.ts). */
  observer: DomObserver | undefined;
  /** The session's masker: replaced when the session's mode or key changes. */
  masker: FieldMasker;
  /** The masker the observers are given: it always asks the session's current one. */
  readonly currentMasker: FieldMasker;
  indicator: Indicator | undefined;
  /** Stops listening for the page being left (observers/navigation.ts). */
  stopListening: (() => void) | undefined;
  /** The URL this document was last observed at; "" until the first start ("Open" is reported then). */
  observedUrl: string;
  /** The controls of the Coaching Agent's last read of this page (its highlight names one by place). */
  coachingControls: Element[];
  /** Counts a promise (a hash being computed) as under way until it settles. */
  track<T>(promise: Promise<T>): Promise<T>;
  /** Resolves once nothing is under way any more (what settles may start more). */
  settled(): Promise<void>;
}

export interface CaptureStateOptions {
  win: Window;
  guard: ErrorGuard;
  boundary: PrivacyBoundary;
  newId: () => string;
}

export function createCaptureState(options: CaptureStateOptions): CaptureState {
  const inFlight = new Set<Promise<unknown>>();
  const state: CaptureState = {
    ...options,
    config: null,
    observer: undefined,
    // Replaced by the session's own masker before anything is observed.
    masker: createFieldMasker({ text_entry_mode: "mask_text", hash_key: "no-session-key-yet" }),
    currentMasker: {
      get mode() {
        return state.masker.mode;
      },
      mask: (value, hints) => state.masker.mask(value, hints),
      maskNow: (value, hints) => state.masker.maskNow(value, hints),
      pin: () => state.masker,
    },
    indicator: undefined,
    stopListening: undefined,
    observedUrl: "",
    coachingControls: [],
    track(promise) {
      inFlight.add(promise);
      void promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
      return promise;
    },
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
  return state;
}
