import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { SnapshotUpload } from "../../../shared/observation/capture-protocol";
import { canonicalJson } from "../../../shared/observation/page-snapshot";
import { createTypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";
import { createPrivacyBoundary } from "../../observation/privacy/privacy-boundary";
import { nameSnapshot } from "../../observation/snapshot/snapshot-json";

/**
 * The second line for a value typed on one allowed site and shown by another (issue #30). A page
 * holds only the values typed on its own site (capture-session `sitesOf`), so a sign-in name typed
 * on `sso.example` and greeted on `app.example` would leave the app's page unscrubbed. The service
 * worker, which no page can reach, knows every site's values: it cuts the other sites' values out of
 * what a page sends, with the same boundary the page uses, and renames a snapshot whose text changed
 * (its name is its hash) in the events that point at it. `found` says which values the page showed:
 * the page already knows those, so its own site may be told them from now on.
 */
export async function cutForeignEchoes(
  batch: { events: ObservedActionEventWithDetail[]; snapshots: SnapshotUpload[] },
  foreign: readonly string[],
): Promise<{ events: ObservedActionEventWithDetail[]; snapshots: SnapshotUpload[]; found: string[] }> {
  if (foreign.length === 0) return { ...batch, found: [] };
  const sent = JSON.stringify(batch);
  const found = foreign.filter((value) => createTypedValueScrubber([value]).contains(sent));
  if (found.length === 0) return { ...batch, found };
  const boundary = createPrivacyBoundary();
  boundary.setSessionValues(found);
  const renamed = new Map<string, string>();
  const snapshots: SnapshotUpload[] = [];
  for (const upload of batch.snapshots) {
    const snapshot = boundary.snapshot(upload.snapshot);
    const json = canonicalJson(snapshot);
    if (json === canonicalJson(upload.snapshot)) {
      snapshots.push(upload);
      continue;
    }
    const named = await nameSnapshot(snapshot, json);
    if (named.sha256 === undefined) continue;
    renamed.set(upload.sha256, named.sha256);
    snapshots.push({ ...upload, sha256: named.sha256, snapshot });
  }
  const events = batch.events.map((event) => renameRefs(boundary.event(event), renamed));
  return { events, snapshots, found };
}

/** Points an event's before/after refs at the renamed snapshots. */
function renameRefs(event: ObservedActionEventWithDetail, renamed: ReadonlyMap<string, string>): ObservedActionEventWithDetail {
  if (renamed.size === 0) return event;
  const rename = (ref: string | undefined) => {
    if (ref === undefined) return ref;
    for (const [from, to] of renamed) if (ref.endsWith(from)) return ref.slice(0, -from.length) + to;
    return ref;
  };
  const copy = { ...event } as ObservedActionEventWithDetail & { before_state_ref?: string; after_state_ref?: string };
  if (copy.before_state_ref !== undefined) copy.before_state_ref = rename(copy.before_state_ref);
  if (copy.after_state_ref !== undefined) copy.after_state_ref = rename(copy.after_state_ref);
  return copy;
}
