import type { BackgroundStore } from "./background-storage";

/**
 * Where the background's own failures go. A service worker has no page to show them on and must
 * not die of them, so each is recorded (what failed, its message, when) in
 * `chrome.storage.session` for the side panel's status, instead of vanishing in a console.
 */
export function createFailureRecorder(store: Pick<BackgroundStore, "saveLastFailure">, now: () => Date) {
  return (where: string) =>
    (error: unknown): void => {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 400);
      // If storage itself fails there is nowhere left to record it.
      void store.saveLastFailure({ where, message, at: now().toISOString() }).catch(() => undefined);
    };
}
