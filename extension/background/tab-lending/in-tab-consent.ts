import { storage } from "wxt/utils/storage";
import { z } from "zod";

/**
 * The person's consent to in-tab runs (issue #21), asked in the side panel at the first one and
 * withdrawable there. It stands in for the optional permission Chrome will not offer for
 * `debugger` (see panel-messages `run/allow-in-tab`): without it, no tab is ever lent.
 */
export interface InTabConsent {
  allowed(): Promise<boolean>;
  set(allowed: boolean): Promise<void>;
}

const ConsentSchema = z.object({ allowed: z.boolean(), at: z.string().datetime() });

export function createInTabConsent(now: () => Date): InTabConsent {
  // Local, not sync: the consent is for this browser only.
  const item = storage.defineItem<unknown>("local:inTabRunsConsent", { fallback: null, version: 1 });
  return {
    async allowed() {
      const parsed = ConsentSchema.safeParse(await item.getValue());
      return parsed.success && parsed.data.allowed;
    },
    async set(allowed) {
      if (allowed) await item.setValue(ConsentSchema.parse({ allowed: true, at: now().toISOString() }));
      else await item.removeValue();
    },
  };
}

/** The tab lent to an in-tab run (session storage: gone with the browser session, never on disk). */
export function createLeasedTabStore() {
  const item = storage.defineItem<unknown>("session:inTabLeasedTab", { fallback: null, version: 1 });
  const TabIdSchema = z.number().int().min(0);
  return {
    async load(): Promise<number | null> {
      const parsed = TabIdSchema.safeParse(await item.getValue());
      return parsed.success ? parsed.data : null;
    },
    save: (tabId: number | null) => (tabId === null ? item.removeValue() : item.setValue(tabId)),
  };
}
