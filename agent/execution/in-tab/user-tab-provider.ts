import type { BrowserProvider } from "../contract/executor-contract";

/**
 * Acting in a tab of the user's own Chrome through the extension (issue #21 "in my browser"). The
 * in-tab engineer's driver implements it; the run service only asks whether an extension is there
 * and leases a provider for one run, limited to the run's sites.
 */
export interface UserTabProvider {
  /** Whether a paired extension is connected now and can act in a tab. */
  connected(): boolean;
  /** A browser provider for one run: in `tab_id`, or in a new tab when none is named. */
  lease(request: {
    dispatch_id: string;
    allowed_domains: readonly string[];
    tab_id?: number;
    /** What the in-page bar says is being done (the ability's title). */ label?: string;
    /** Coaching Agent (issue #16): the recording session this lease takes turns with. */ coaching_session_id?: string;
  }): BrowserProvider;
}
