import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import type { CaptureConfig } from "../../observation/common/capture-messages";
import { badgeForSession, showBadge } from "./capture-badge";
import { isActiveCapture } from "./capture-config";
import type { CaptureSessionDeps } from "./capture-session";
import { originPatternsForAllowList, releaseOriginPatterns } from "./site-permissions";

export interface ReconcileContext {
  deps: CaptureSessionDeps;
  /** The config each page of a session is told (by URL). */
  configsOf(session: CaptureSessionState | null): (url: string) => Promise<CaptureConfig | null>;
  /** Forgets the per-session hash key lookups once no capture is on. */
  forgetKeys(): void;
}

/** Stop observing: the config every page of a site that is no longer watched is told. */
export const observeNothing = async (): Promise<null> => null;

/** Brings badge, registration and tabs in line with `session`, given what was mirrored before. */
export async function reconcile(
  context: ReconcileContext,
  previous: CaptureSessionState | null,
  session: CaptureSessionState | null,
  options: { injectMissing: boolean },
): Promise<void> {
  const { deps } = context;
  const active = isActiveCapture(session);
  deps.onActiveChange(active);
  await showBadge(deps.action, badgeForSession(session));
  if (active) {
    await deps.scripts.register(session.target_app_whitelist);
    await deps.scripts.broadcast(context.configsOf(session), session.target_app_whitelist, options);
    // Sites dropped from the allow-list mid-session are told to stop too.
    if (previous !== null && previous.learn_session_id === session.learn_session_id) {
      const dropped = previous.target_app_whitelist.filter((site) => !session.target_app_whitelist.includes(site));
      if (dropped.length > 0) await deps.scripts.broadcast(observeNothing, dropped, { injectMissing: false });
    }
    if (previous !== null && previous.learn_session_id !== session.learn_session_id) await endCapture(deps, previous, session.target_app_whitelist);
    return;
  }
  if (previous !== null) await endCapture(deps, previous, []);
  else await deps.scripts.unregister();
  context.forgetKeys();
  await deps.store.forgetHashKey();
  await deps.store.forgetTypedValues();
}

/** A capture is over: pages stop observing first, then the script goes, then the site access. */
async function endCapture(deps: CaptureSessionDeps, previous: CaptureSessionState, stillAllowed: readonly string[]): Promise<void> {
  const keep = new Set(stillAllowed);
  const over = previous.target_app_whitelist.filter((site) => !keep.has(site));
  await deps.scripts.broadcast(observeNothing, over, { injectMissing: false });
  if (keep.size === 0) await deps.scripts.unregister();
  if (!isActiveCapture(previous)) return;
  const kept = new Set(originPatternsForAllowList(stillAllowed));
  const release = originPatternsForAllowList(over).filter((pattern) => !kept.has(pattern));
  await releaseOriginPatterns(release, deps.releaseSites);
}
