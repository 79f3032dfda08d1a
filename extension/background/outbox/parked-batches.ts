import { PARKED_BATCH_PREFIX } from "../../observation/common/capture-messages";

/** The part of `chrome.storage.local` the parked batches need. */
export interface ParkedStorage {
  get(keys: null): Promise<Record<string, unknown>>;
  remove(keys: string[]): Promise<void>;
}

export interface ParkedBatches {
  /** A storage change: a parked batch may have arrived. */
  noteChange(changedKeys: readonly string[]): void;
  /** The parked batches, oldest first, removed from storage; none read when none can be there. */
  take(): Promise<unknown[]>;
}

/**
 * What pages left behind in storage (capture-messages.ts, PARKED_BATCH_PREFIX). Storage is read
 * only after a worker start or a change that added such a key, not on every batch.
 */
export function createParkedBatches(storage: ParkedStorage): ParkedBatches {
  let mayHold = true;
  return {
    noteChange(changedKeys) {
      if (changedKeys.some((key) => key.startsWith(PARKED_BATCH_PREFIX))) mayHold = true;
    },
    async take() {
      if (!mayHold) return [];
      mayHold = false;
      const all = await storage.get(null);
      // Keys are the parking time (zero-padded) and an id: in key order is in parking order.
      const keys = Object.keys(all)
        .filter((key) => key.startsWith(PARKED_BATCH_PREFIX))
        .sort();
      if (keys.length === 0) return [];
      await storage.remove(keys);
      return keys.flatMap((key) => {
        const value = all[key];
        return Array.isArray(value) ? value : [];
      });
    },
  };
}
