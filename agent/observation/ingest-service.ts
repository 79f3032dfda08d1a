import { createHash } from "node:crypto";
import type { ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import { SnapshotUploadSchema, type ObservationBatchAck, type ObservationBatchRequest } from "../../shared/observation/capture-protocol";
import { urlRefusal } from "../../shared/observation/url-rule";
import { canonicalJson, PAGE_SNAPSHOT_MAX_BYTES } from "../../shared/observation/page-snapshot";
import { checkEvent, EventIdSchema, firstIssue } from "./ingest-event-check";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import type { ObservedSessions } from "./observed-sessions";

export interface IngestService {
  /** Validates, scopes, de-duplicates and stores a batch; resolves only once accepted events are fsynced. */
  ingest(batch: ObservationBatchRequest): Promise<ObservationBatchAck>;
}

/** The data class an event adds to the session's observation scope (§0C.8 `data_classes_observed`). */
function dataClassOf(event: ObservedActionEventWithDetail): string {
  switch (event.adapter_kind) {
    case "browser_dom":
      return event.browser_detail?.masked_field === undefined ? "page_actions" : "form_entries_masked";
    case "browser_snapshot":
      return "page_structure";
    case "terminal_command":
      return "terminal_commands";
    case "process_launch":
      return "process_launches";
    default:
      return event.adapter_kind;
  }
}

/** §0A.12: page loads and snapshots alone do not start a capture; a user's action does. */
function isMeaningful(event: ObservedActionEventWithDetail): boolean {
  if (event.adapter_kind === "browser_snapshot") return false;
  return event.browser_detail?.dom_event_kind !== "navigation";
}

/**
 * The agent side of observation (issue #4): every event is checked on its own — shape, masking,
 * session, allow-list (`ingest-event-check.ts`) — so one bad event never costs the good ones of its
 * batch, and nothing is acknowledged before it is on disk.
 */
export function createIngestService(deps: IngestDeps): IngestService {
  const state: IngestState = { deps, seen: new Map<string, Set<string>>() };
  return { ingest: (batch) => ingest(state, batch) };
}

interface IngestDeps {
  memory: MemoryStore;
  sessions: ObservedSessions;
}

interface IngestState {
  deps: IngestDeps;
  /** Each session's stored event ids, read once from its events file. */
  seen: Map<string, Set<string>>;
}

/** A batch's accepted events by session, what they add to each scope, and how many fell off target. */
interface Sorted {
  toStore: Map<string, ObservedActionEventWithDetail[]>;
  offTarget: Map<string, number>;
  classes: Map<string, Set<string>>;
}

async function seenFor(state: IngestState, sessionId: string): Promise<Set<string>> {
  let ids = state.seen.get(sessionId);
  if (ids === undefined) {
    ids = new Set((await state.deps.memory.readJsonl(MemoryPaths.observationEvents(sessionId), EventIdSchema)).map((event) => event.event_id));
    state.seen.set(sessionId, ids);
  }
  return ids;
}

async function ingest(state: IngestState, batch: ObservationBatchRequest): Promise<ObservationBatchAck> {
  const ack: ObservationBatchAck = {
    batch_id: batch.batch_id,
    accepted: [],
    duplicates: [],
    dropped_off_target: [],
    refused: [],
    rejected: [],
    snapshots_stored: [],
    snapshots_rejected: [],
    schema_version: 1,
  };
  // Snapshots first, so the events of this batch may reference them.
  for (const [index, raw] of batch.snapshots.entries()) {
    const outcome = await storeSnapshot(state.deps, raw);
    if ("reason" in outcome) ack.snapshots_rejected.push({ index, reason: outcome.reason });
    else ack.snapshots_stored.push(outcome.sha);
  }
  const sorted: Sorted = { toStore: new Map(), offTarget: new Map(), classes: new Map() };
  for (const [index, raw] of batch.events.entries()) await sortEvent(state, ack, sorted, index, raw);
  await storeSorted(state, ack, sorted);
  return ack;
}

/** One event of the batch into the ack (rejected, refused, off target, duplicate) or the events to store. */
async function sortEvent(state: IngestState, ack: ObservationBatchAck, sorted: Sorted, index: number, raw: unknown): Promise<void> {
  const verdict = await checkEvent(state.deps.sessions, raw);
  switch (verdict.kind) {
    case "rejected":
      ack.rejected.push({
        index,
        code: verdict.code,
        reason: verdict.reason.slice(0, 240),
        ...(verdict.eventId === undefined ? {} : { event_id: verdict.eventId.slice(0, 80) }),
      });
      return;
    case "refused":
      ack.refused.push(verdict.eventId);
      return;
    case "off_target":
      ack.dropped_off_target.push(verdict.eventId);
      sorted.offTarget.set(verdict.sessionId, (sorted.offTarget.get(verdict.sessionId) ?? 0) + 1);
      return;
    case "in_scope":
      break;
  }
  const { event, session } = verdict;
  const ids = await seenFor(state, session.learn_session_id);
  const pending = sorted.toStore.get(session.learn_session_id) ?? [];
  if (ids.has(event.event_id) || pending.some((queued) => queued.event_id === event.event_id)) {
    ack.duplicates.push(event.event_id);
    return;
  }
  const stored: ObservedActionEventWithDetail = {
    ...event,
    // §0C.22: a state change is what the before and after snapshots say, not what the sender claims.
    caused_state_change:
      event.before_state_ref !== undefined && event.after_state_ref !== undefined
        ? event.before_state_ref !== event.after_state_ref
        : event.caused_state_change,
  };
  pending.push(stored);
  sorted.toStore.set(session.learn_session_id, pending);
  const set = sorted.classes.get(session.learn_session_id) ?? new Set<string>();
  set.add(dataClassOf(stored));
  sorted.classes.set(session.learn_session_id, set);
}

/** The accepted events appended (fsynced) per session, then each session's scope told what it observed. */
async function storeSorted(state: IngestState, ack: ObservationBatchAck, { toStore, offTarget, classes }: Sorted): Promise<void> {
  const { deps } = state;
  for (const [sessionId, events] of toStore) {
    await deps.memory.appendMany(MemoryPaths.observationEvents(sessionId), events);
    const ids = await seenFor(state, sessionId);
    for (const event of events) {
      ids.add(event.event_id);
      ack.accepted.push(event.event_id);
    }
    const first = events.find(isMeaningful);
    if (first !== undefined) await deps.sessions.noteMeaningfulEvent(sessionId, first.event_id);
  }
  for (const sessionId of new Set([...classes.keys(), ...offTarget.keys()])) {
    await deps.sessions.recordIngest(sessionId, {
      dataClasses: [...(classes.get(sessionId) ?? [])],
      offTargetDropped: offTarget.get(sessionId) ?? 0,
    });
  }
}

/** Stores one snapshot content-addressed under its session, or says why it will not be. */
async function storeSnapshot(deps: IngestDeps, raw: unknown): Promise<{ sha: string } | { reason: string }> {
  const parsed = SnapshotUploadSchema.safeParse(raw);
  if (!parsed.success) return { reason: firstIssue(parsed.error) };
  const upload = parsed.data;
  const text = canonicalJson(upload.snapshot);
  const sha = createHash("sha256").update(text).digest("hex");
  if (sha !== upload.sha256) return { reason: "sha256 does not match the snapshot's canonical JSON." };
  if (Buffer.byteLength(text) > PAGE_SNAPSHOT_MAX_BYTES) return { reason: "Snapshot is larger than 32 KB." };
  const urlRefused = urlRefusal(upload.snapshot.url);
  if (urlRefused !== undefined) return { reason: `Snapshot URL refused: ${urlRefused}.` };
  if (!deps.sessions.all().some((session) => session.learn_session_id === upload.learn_session_id)) {
    return { reason: "No such learning session." };
  }
  const path = MemoryPaths.observationSnapshot(upload.learn_session_id, sha);
  if (!(await deps.memory.exists(path))) await deps.memory.writeText(path, text);
  return { sha };
}
