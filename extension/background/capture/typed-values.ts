import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import { TYPED_VALUES_MAX } from "../../observation/common/capture-messages";
import type { BackgroundStore } from "../worker/background-storage";
import { isActiveCapture } from "./capture-config";

// Values the person typed in a session, kept per allowed site in `chrome.storage.session` so a
// page's config carries its own site's values and never another site's (capture-session.ts).

/**
 * The site a page is on, as the person allowed it: every allow-list entry its URL matches (a wildcard
 * entry covers its subdomains, so a sign-in on `login.example.com` and the app on `app.example.com`
 * share the entry `*.example.com`). Values typed there are kept and told under each.
 */
export function sitesOf(url: string, allowList: readonly string[]): string[] {
  return allowList.filter((site) => urlMatchesAllowList(url, [site]));
}

/** The values typed on the site of `url` (every allow-list entry it matches) in this session. */
export async function typedValuesFor(store: BackgroundStore, session: CaptureSessionState, url: string): Promise<string[]> {
  const record = await store.loadTypedValues();
  if (record?.learn_session_id !== session.learn_session_id) return [];
  const values = new Set<string>();
  for (const site of sitesOf(url, session.target_app_whitelist)) for (const value of record.by_site[site] ?? []) values.add(value);
  return [...values];
}

/** Adds values typed at `url` under its sites; false when nothing new was kept (or the session is not on). */
export async function storeTypedValues(store: BackgroundStore, sessionId: string, url: string, values: readonly string[]): Promise<boolean> {
  const session = await store.loadMirror();
  if (!isActiveCapture(session) || session.learn_session_id !== sessionId) return false;
  const sites = sitesOf(url, session.target_app_whitelist);
  const record = await store.loadTypedValues();
  const bySite = record?.learn_session_id === sessionId ? { ...record.by_site } : {};
  let added = false;
  for (const site of sites) {
    const known = bySite[site] ?? [];
    const fresh = values.filter((value) => !known.includes(value));
    if (fresh.length === 0) continue;
    // Bounded: the newest values are kept (a session typing more than this is rare; see the README).
    bySite[site] = [...known, ...fresh].slice(-TYPED_VALUES_MAX);
    added = true;
  }
  if (!added) return false;
  await store.saveTypedValues({ learn_session_id: sessionId, by_site: bySite });
  return true;
}

/** Values typed in the session on sites other than `url`'s. */
export async function foreignTypedValues(store: BackgroundStore, sessionId: string, url: string): Promise<string[]> {
  const session = await store.loadMirror();
  const record = await store.loadTypedValues();
  if (!isActiveCapture(session) || record?.learn_session_id !== sessionId) return [];
  const own = new Set(await typedValuesFor(store, session, url));
  const foreign = new Set<string>();
  for (const values of Object.values(record.by_site)) for (const value of values) if (!own.has(value)) foreign.add(value);
  return [...foreign];
}
