import { createHash } from "node:crypto";
import { z } from "zod";
import { ObservedActionEventWithDetailSchema, type ObservedActionEventWithDetail } from "../../shared/learning/observed-action";
import type { LearnSession } from "../../shared/learning/learn-session";
import { SnapshotUploadSchema, type ObservationBatchAck, type ObservationBatchRequest, type RejectedEvent } from "../../shared/observation/capture-protocol";
import { urlRefusal } from "../../shared/observation/url-rule";
import { canonicalJson, PAGE_SNAPSHOT_MAX_BYTES, SNAPSHOT_REF_PREFIX } from "../../shared/observation/page-snapshot";
import { watchesThisComputer } from "../../shared/learning/desktop-detail";
import { maskCommandArguments } from "../../shared/observation/command-masking";
import { urlMatchesAllowList } from "../../shared/observation/site-allowlist";
import { DESKTOP_PHASE_1_KINDS } from "./adapter-registry";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import type { ObservedSessions } from "./observed-sessions";

export interface IngestService {
  /** Validates, scopes, de-duplicates and stores a batch; resolves only once accepted events are fsynced. */
  ingest(batch: ObservationBatchRequest): Promise<ObservationBatchAck>;
}

const EventIdSchema = z.object({ event_id: z.string() }).passthrough();
const ACCEPTING: ReadonlySet<LearnSession["state"]> = new Set(["armed", "capturing"]);
/** States right after capturing in which late deliveries of earlier actions still belong to the trace. */
const JUST_LEFT_CAPTURE: ReadonlySet<LearnSession["state"]> = new Set(["paused", "stopped"]);

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

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.join(".") || "event"}: ${issue?.message ?? "invalid"}`.slice(0, 240);
}

/**
 * The agent side of observation (issue #4): every event is checked on its own — shape, masking,
 * session, allow-list — so one bad event never costs the good ones of its batch, and nothing is
 * acknowledged before it is on disk.
 */
export function createIngestService(deps: { memory: MemoryStore; sessions: ObservedSessions }): IngestService {
  const seen = new Map<string, Set<string>>();
  const seenFor = async (sessionId: string): Promise<Set<string>> => {
    let ids = seen.get(sessionId);
    if (ids === undefined) {
      ids = new Set((await deps.memory.readJsonl(MemoryPaths.observationEvents(sessionId), EventIdSchema)).map((event) => event.event_id));
      seen.set(sessionId, ids);
    }
    return ids;
  };

  /** Stores one snapshot content-addressed under its session, or says why it will not be. */
  const storeSnapshot = async (raw: unknown): Promise<{ sha: string } | { reason: string }> => {
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
  };

  return {
    async ingest(batch) {
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
      const reject = (index: number, eventId: string | undefined, code: string, reason: string) => {
        const entry: RejectedEvent = { index, code, reason: reason.slice(0, 240), ...(eventId === undefined ? {} : { event_id: eventId.slice(0, 80) }) };
        ack.rejected.push(entry);
      };

      // Snapshots first, so the events of this batch may reference them.
      for (const [index, raw] of batch.snapshots.entries()) {
        const outcome = await storeSnapshot(raw);
        if ("reason" in outcome) ack.snapshots_rejected.push({ index, reason: outcome.reason });
        else ack.snapshots_stored.push(outcome.sha);
      }

      const toStore = new Map<string, ObservedActionEventWithDetail[]>();
      const offTarget = new Map<string, number>();
      const classes = new Map<string, Set<string>>();
      for (const [index, raw] of batch.events.entries()) {
        const rawId = EventIdSchema.safeParse(raw).success ? (raw as { event_id: string }).event_id : undefined;
        const parsed = ObservedActionEventWithDetailSchema.safeParse(raw);
        if (!parsed.success) {
          reject(index, rawId, "REQUEST_INVALID", firstIssue(parsed.error));
          continue;
        }
        const event = parsed.data;
        let session: LearnSession;
        try {
          session = deps.sessions.get(event.learn_session_id);
        } catch {
          reject(index, event.event_id, "LEARN_SESSION_NOT_FOUND", "No such learning session.");
          continue;
        }
        const scope = deps.sessions.observationScope(session.learn_session_id);
        const textMode = scope.redaction_modes.text_entry ?? "mask_text";
        const detail = event.browser_detail;
        // Defence in depth: the page masks; the agent refuses anything that arrives unmasked anyway.
        const urlRefused = detail === undefined ? undefined : urlRefusal(detail.page_url);
        if (urlRefused !== undefined) {
          reject(index, event.event_id, "OBSERVATION_NOT_MASKED", `page_url refused: ${urlRefused} (mask it with shared/observation/url-rule before sending).`);
          continue;
        }
        // The same for a command line: an adapter masks its arguments; the agent refuses a command
        // whose arguments the shared masking rule would still change (a password after -p, user:password…).
        const command = event.desktop_detail;
        if (
          command !== undefined &&
          (/^[A-Za-z_][A-Za-z0-9_]*=/.test(command.program) ||
            JSON.stringify(maskCommandArguments(command.args, command.program)) !== JSON.stringify(command.args))
        ) {
          reject(
            index,
            event.event_id,
            "OBSERVATION_NOT_MASKED",
            "desktop_detail carries an unmasked argument: mask it with shared/observation/command-masking before sending.",
          );
          continue;
        }
        if ((detail?.masked_field?.value !== undefined || event.redaction_mode === "none") && textMode !== "none") {
          reject(index, event.event_id, "OBSERVATION_NOT_MASKED", "A typed value arrived but this session did not consent to recording text.");
          continue;
        }
        if ([event.before_state_ref, event.after_state_ref].some((ref) => ref !== undefined && !ref.startsWith(SNAPSHOT_REF_PREFIX))) {
          reject(index, event.event_id, "REQUEST_INVALID", "State refs must be snapshot:<sha256>.");
          continue;
        }
        // An event made before Pause/Stop but delivered after it (agent down, outbox draining) is
        // part of the demonstration; one made after it is not.
        const deliveredLate = JUST_LEFT_CAPTURE.has(session.state) && event.created_at <= deps.sessions.stateSince(session.learn_session_id).toISOString();
        if (!ACCEPTING.has(session.state) && !deliveredLate) {
          ack.refused.push(event.event_id);
          continue;
        }
        const scoped = session.observation_mode === "outside_agent" || session.observation_mode === "mixed";
        // A session that watches this computer takes its desktop events whatever sites it lists.
        const desktopInScope = DESKTOP_PHASE_1_KINDS.includes(event.adapter_kind) && watchesThisComputer(session);
        if (scoped && session.target_app_whitelist.length > 0 && !desktopInScope) {
          const onList =
            detail !== undefined
              ? urlMatchesAllowList(detail.page_url, session.target_app_whitelist)
              : event.app_family !== undefined && session.target_app_whitelist.includes(event.app_family.toLowerCase());
          if (!onList) {
            ack.dropped_off_target.push(event.event_id);
            offTarget.set(session.learn_session_id, (offTarget.get(session.learn_session_id) ?? 0) + 1);
            continue;
          }
        }
        const ids = await seenFor(session.learn_session_id);
        const pending = toStore.get(session.learn_session_id) ?? [];
        if (ids.has(event.event_id) || pending.some((queued) => queued.event_id === event.event_id)) {
          ack.duplicates.push(event.event_id);
          continue;
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
        toStore.set(session.learn_session_id, pending);
        const set = classes.get(session.learn_session_id) ?? new Set<string>();
        set.add(dataClassOf(stored));
        classes.set(session.learn_session_id, set);
      }

      for (const [sessionId, events] of toStore) {
        await deps.memory.appendMany(MemoryPaths.observationEvents(sessionId), events);
        const ids = await seenFor(sessionId);
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
      return ack;
    },
  };
}
