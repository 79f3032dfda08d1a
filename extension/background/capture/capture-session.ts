import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import type { CaptureConfig } from "../../observation/common/capture-messages";
import { badgeForSession, showBadge, type BadgeSurface } from "./capture-badge";
import { captureConfigFor, isActiveCapture } from "./capture-config";
import { reconcile, type ReconcileContext } from "./capture-reconcile";
import type { CaptureScripts } from "./capture-scripts";
import type { BackgroundStore } from "../worker/background-storage";
import { hashKeyForSession, type RandomBytes } from "./hash-key";
import type { OriginPermissionRemove } from "./site-permissions";
import { foreignTypedValues, sitesOf, storeTypedValues, typedValuesFor } from "./typed-values";

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

  /** The config for a page at `url` (null: observe nothing); its typed values are its own site's. */
  const configAt = async (session: CaptureSessionState | null, url: string): Promise<CaptureConfig | null> => {
    if (!isActiveCapture(session)) return null;
    return captureConfigFor(session, await keyFor(session.learn_session_id), await typedValuesFor(deps.store, session, url));
  };
  const reconciling: ReconcileContext = { deps, configsOf: (session) => (url) => configAt(session, url), forgetKeys: () => keyLookups.clear() };

  return {
    apply: (session) =>
      serial(async () => {
        const previous = await deps.store.loadMirror();
        await deps.store.saveMirror(session, deps.now());
        await reconcile(reconciling, previous, session, { injectMissing: true });
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
        await deps.scripts.broadcast(reconciling.configsOf(session), session.target_app_whitelist, { injectMissing: true });
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
    foreignValues: (sessionId, url) => foreignTypedValues(deps.store, sessionId, url),
    async addTypedValues(sessionId, url, values) {
      if (!(await storeTypedValues(deps.store, sessionId, url, values))) return;
      // Told to the open pages of that site in turn with other changes; a page asking meanwhile reads the store.
      void serial(async () => {
        const session = await deps.store.loadMirror();
        if (!isActiveCapture(session) || session.learn_session_id !== sessionId) return;
        await deps.scripts.broadcast(reconciling.configsOf(session), sitesOf(url, session.target_app_whitelist), { injectMissing: false });
      }).catch(() => undefined);
    },
  };
}
