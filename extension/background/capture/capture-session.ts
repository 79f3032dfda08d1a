import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import { TYPED_VALUES_MAX, type CaptureConfig } from "../../observation/capture-messages";
import { badgeForSession, showBadge, type BadgeSurface } from "./capture-badge";
import { captureConfigFor, isActiveCapture } from "./capture-config";
import type { CaptureScripts } from "./capture-scripts";
import type { BackgroundStore } from "../worker/background-storage";
import { hashKeyForSession, type RandomBytes } from "./hash-key";
import { originPatternsForWhitelist, releaseOriginPatterns, type OriginPermissionRemove } from "./site-permissions";

export interface CaptureSessionDeps {
  store: BackgroundStore;
  scripts: CaptureScripts;
  action: BadgeSurface;
  releaseSites: OriginPermissionRemove;
  randomBytes: RandomBytes;
  now(): Date;
  /** Told whether a capture is on, so the keepalive and the socket's heartbeat follow it. */
  onActiveChange(active: boolean): void;
}

export interface CaptureSession {
  /** The agent said what the current session is (`welcome` or `session` frame). */
  apply(session: CaptureSessionState | null): Promise<void>;
  /** Service-worker start: badge, registration and keepalive from the mirrored state, before the agent answers. */
  restore(): Promise<void>;
  /** Site access changed (granted or revoked in Chrome): register for what is granted now. */
  permissionsChanged(): Promise<void>;
  current(): Promise<CaptureSessionState | null>;
  /** The config for a page at `url`, or null when that page must not be observed. */
  configForPage(url: string | undefined): Promise<CaptureConfig | null>;
  /**
   * A page at `url` learned typed values: kept in memory for the session under the page's site
   * (resolved once kept) and told to every open page of that site, never to another site's.
   */
  addTypedValues(sessionId: string, url: string, values: readonly string[]): Promise<void>;
  /** Values typed in the session on sites other than `url`'s (for the service worker's own check; never told to that page). */
  foreignValues(sessionId: string, url: string): Promise<string[]>;
  /** Configs wait for this work (a `capture/typed-values` message being handled), registered as the message arrives. */
  holdConfigsFor(work: Promise<unknown>): void;
}

/**
 * Mirrors the agent's current learning session into the extension (issue #4): the badge is the
 * observation banner, the content script runs only on the session's granted sites and only while
 * it is armed, capturing or paused, and every tab there is told each change. The mirror lives in
 * `chrome.storage.session` so all of it comes back after a service-worker restart.
 */
export function createCaptureSession(deps: CaptureSessionDeps): CaptureSession {
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work, work);
    chain = next.catch(() => undefined);
    return next;
  };

  // One key per session even when a page asks for its config while a change is being applied:
  // concurrent askers share the same pending lookup instead of each making a key.
  const keyLookups = new Map<string, Promise<string>>();
  const keyFor = (sessionId: string): Promise<string> => {
    let lookup = keyLookups.get(sessionId);
    if (lookup === undefined) {
      lookup = hashKeyForSession(deps.store, sessionId, deps.randomBytes);
      keyLookups.clear();
      keyLookups.set(sessionId, lookup);
      lookup.catch(() => keyLookups.delete(sessionId));
    }
    return lookup;
  };

  /** Typed values on their way into the store: a page's config is made only once they are there. */
  const valuesArriving = new Set<Promise<unknown>>();
  /** The values typed on the site of `url` (every allow-list entry it matches) in this session. */
  const typedValuesFor = async (session: CaptureSessionState, url: string): Promise<string[]> => {
    const record = await deps.store.loadTypedValues();
    if (record?.learn_session_id !== session.learn_session_id) return [];
    const values = new Set<string>();
    for (const site of sitesOf(url, session.target_app_whitelist)) for (const value of record.by_site[site] ?? []) values.add(value);
    return [...values];
  };

  /** The config for a page at `url` (null: observe nothing); its typed values are its own site's. */
  const configAt = async (session: CaptureSessionState | null, url: string): Promise<CaptureConfig | null> => {
    if (!isActiveCapture(session)) return null;
    return captureConfigFor(session, await keyFor(session.learn_session_id), await typedValuesFor(session, url));
  };
  const configsOf = (session: CaptureSessionState | null) => (url: string) => configAt(session, url);

  const storeTypedValues = async (sessionId: string, url: string, values: readonly string[]): Promise<boolean> => {
    const session = await deps.store.loadMirror();
    if (!isActiveCapture(session) || session.learn_session_id !== sessionId) return false;
    const sites = sitesOf(url, session.target_app_whitelist);
    const record = await deps.store.loadTypedValues();
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
    await deps.store.saveTypedValues({ learn_session_id: sessionId, by_site: bySite });
    return true;
  };

  /** Brings badge, registration and tabs in line with `session`, given what was mirrored before. */
  const reconcile = async (previous: CaptureSessionState | null, session: CaptureSessionState | null, options: { injectMissing: boolean }) => {
    const active = isActiveCapture(session);
    deps.onActiveChange(active);
    await showBadge(deps.action, badgeForSession(session));
    if (active) {
      await deps.scripts.register(session.target_app_whitelist);
      await deps.scripts.broadcast(configsOf(session), session.target_app_whitelist, options);
      // Sites dropped from the allow-list mid-session are told to stop too.
      if (previous !== null && previous.learn_session_id === session.learn_session_id) {
        const dropped = previous.target_app_whitelist.filter((site) => !session.target_app_whitelist.includes(site));
        if (dropped.length > 0) await deps.scripts.broadcast(observeNothing, dropped, { injectMissing: false });
      }
      if (previous !== null && previous.learn_session_id !== session.learn_session_id) await end(previous, session.target_app_whitelist);
      return;
    }
    if (previous !== null) await end(previous, []);
    else await deps.scripts.unregister();
    keyLookups.clear();
    await deps.store.forgetHashKey();
    await deps.store.forgetTypedValues();
  };

  /** A capture is over: pages stop observing first, then the script goes, then the site access. */
  const end = async (previous: CaptureSessionState, stillAllowed: readonly string[]) => {
    const keep = new Set(stillAllowed);
    const over = previous.target_app_whitelist.filter((site) => !keep.has(site));
    await deps.scripts.broadcast(observeNothing, over, { injectMissing: false });
    if (keep.size === 0) await deps.scripts.unregister();
    if (!isActiveCapture(previous)) return;
    const kept = new Set(originPatternsForWhitelist(stillAllowed));
    const release = originPatternsForWhitelist(over).filter((pattern) => !kept.has(pattern));
    await releaseOriginPatterns(release, deps.releaseSites);
  };

  return {
    apply: (session) =>
      serial(async () => {
        const previous = await deps.store.loadMirror();
        await deps.store.saveMirror(session, deps.now());
        await reconcile(previous, session, { injectMissing: true });
      }),
    restore: () =>
      serial(async () => {
        const session = await deps.store.loadMirror();
        const active = isActiveCapture(session);
        deps.onActiveChange(active);
        await showBadge(deps.action, badgeForSession(session));
        if (active) await deps.scripts.register(session.target_app_whitelist);
        else await deps.scripts.unregister();
      }),
    permissionsChanged: () =>
      serial(async () => {
        const session = await deps.store.loadMirror();
        if (!isActiveCapture(session)) return;
        await deps.scripts.register(session.target_app_whitelist);
        await deps.scripts.broadcast(configsOf(session), session.target_app_whitelist, { injectMissing: true });
      }),
    current: () => deps.store.loadMirror(),
    // Not on the serial chain: applying a change waits for the pages to take the new config, and
    // a page flushing its last events then asks here; queueing behind that change would deadlock.
    async configForPage(url) {
      const session = await deps.store.loadMirror();
      if (!isActiveCapture(session) || url === undefined || !urlMatchesAllowList(url, session.target_app_whitelist)) return null;
      await Promise.allSettled([...valuesArriving]);
      return configAt(session, url);
    },
    holdConfigsFor(work) {
      valuesArriving.add(work);
      void work.finally(() => valuesArriving.delete(work)).catch(() => undefined);
    },
    async foreignValues(sessionId, url) {
      const session = await deps.store.loadMirror();
      const record = await deps.store.loadTypedValues();
      if (!isActiveCapture(session) || record?.learn_session_id !== sessionId) return [];
      const own = new Set(await typedValuesFor(session, url));
      const foreign = new Set<string>();
      for (const values of Object.values(record.by_site)) for (const value of values) if (!own.has(value)) foreign.add(value);
      return [...foreign];
    },
    async addTypedValues(sessionId, url, values) {
      if (!(await storeTypedValues(sessionId, url, values))) return;
      // Told to the open pages of that site in turn with other changes; a page asking meanwhile reads the store.
      void serial(async () => {
        const session = await deps.store.loadMirror();
        if (!isActiveCapture(session) || session.learn_session_id !== sessionId) return;
        await deps.scripts.broadcast(configsOf(session), sitesOf(url, session.target_app_whitelist), { injectMissing: false });
      }).catch(() => undefined);
    },
  };
}

/** Stop observing: the config every page of a site that is no longer watched is told. */
const observeNothing = async (): Promise<null> => null;

/**
 * The site a page is on, as the person allowed it: every allow-list entry its URL matches (a wildcard
 * entry covers its subdomains, so a sign-in on `login.example.com` and the app on `app.example.com`
 * share the entry `*.example.com`). Values typed there are kept and told under each.
 */
export function sitesOf(url: string, whitelist: readonly string[]): string[] {
  return whitelist.filter((site) => urlMatchesAllowList(url, [site]));
}
