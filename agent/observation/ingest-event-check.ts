import { z } from "zod";
import { ObservedActionEventWithDetailSchema, type ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import type { LearnSession } from "../../shared/learning/sessions/learn-session";
import { urlRefusal } from "../../shared/observation/url-rule";
import { SNAPSHOT_REF_PREFIX } from "../../shared/observation/page-snapshot";
import { watchesThisComputer } from "../../shared/learning/observed-actions/desktop-detail";
import { maskCommandArguments } from "../../shared/observation/command-masking";
import { urlMatchesAllowList } from "../../shared/observation/site-allowlist";
import { DESKTOP_PHASE_1_KINDS } from "./adapter-registry";
import type { ObservedSessions } from "./observed-sessions";

export const EventIdSchema = z.object({ event_id: z.string() }).passthrough();
const ACCEPTING: ReadonlySet<LearnSession["state"]> = new Set(["armed", "capturing"]);
/** States right after capturing in which late deliveries of earlier actions still belong to the trace. */
const JUST_LEFT_CAPTURE: ReadonlySet<LearnSession["state"]> = new Set(["paused", "stopped"]);

export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.join(".") || "event"}: ${issue?.message ?? "invalid"}`.slice(0, 240);
}

/** What becomes of one event of a batch, before de-duplication. */
export type EventVerdict =
  | { kind: "rejected"; eventId: string | undefined; code: string; reason: string }
  | { kind: "refused"; eventId: string }
  | { kind: "off_target"; eventId: string; sessionId: string }
  | { kind: "in_scope"; event: ObservedActionEventWithDetail; session: LearnSession };

/** One event checked on its own: shape, session, masking, state refs, capture state, allow-list. */
export async function checkEvent(sessions: ObservedSessions, raw: unknown): Promise<EventVerdict> {
  const rawId = EventIdSchema.safeParse(raw).success ? (raw as { event_id: string }).event_id : undefined;
  const parsed = ObservedActionEventWithDetailSchema.safeParse(raw);
  if (!parsed.success) return { kind: "rejected", eventId: rawId, code: "REQUEST_INVALID", reason: firstIssue(parsed.error) };
  const event = parsed.data;
  let session: LearnSession;
  try {
    session = sessions.get(event.learn_session_id);
  } catch {
    return { kind: "rejected", eventId: event.event_id, code: "LEARN_SESSION_NOT_FOUND", reason: "No such learning session." };
  }
  const unmasked = await maskingProblem(sessions, session, event);
  if (unmasked !== undefined) return { kind: "rejected", eventId: event.event_id, code: "OBSERVATION_NOT_MASKED", reason: unmasked };
  if ([event.before_state_ref, event.after_state_ref].some((ref) => ref !== undefined && !ref.startsWith(SNAPSHOT_REF_PREFIX))) {
    return { kind: "rejected", eventId: event.event_id, code: "REQUEST_INVALID", reason: "State refs must be snapshot:<sha256>." };
  }
  // An event made before Pause/Stop but delivered after it (agent down, outbox draining) is
  // part of the demonstration; one made after it is not.
  const deliveredLate = JUST_LEFT_CAPTURE.has(session.state) && event.created_at <= sessions.stateSince(session.learn_session_id).toISOString();
  if (!ACCEPTING.has(session.state) && !deliveredLate) return { kind: "refused", eventId: event.event_id };
  if (!onTarget(session, event)) return { kind: "off_target", eventId: event.event_id, sessionId: session.learn_session_id };
  return { kind: "in_scope", event, session };
}

/** Defence in depth: the page and the adapters mask; the agent refuses anything that arrives unmasked anyway. */
async function maskingProblem(sessions: ObservedSessions, session: LearnSession, event: ObservedActionEventWithDetail): Promise<string | undefined> {
  const scope = await sessions.observationScope(session.learn_session_id);
  const textMode = scope.redaction_modes.text_entry ?? "mask_text";
  const detail = event.browser_detail;
  const urlRefused = detail === undefined ? undefined : urlRefusal(detail.page_url);
  if (urlRefused !== undefined) return `page_url refused: ${urlRefused} (mask it with shared/observation/url-rule before sending).`;
  // The same for a command line: an adapter masks its arguments; the agent refuses a command
  // whose arguments the shared masking rule would still change (a password after -p, user:password…).
  const command = event.desktop_detail;
  if (
    command !== undefined &&
    (/^[A-Za-z_][A-Za-z0-9_]*=/.test(command.program) || JSON.stringify(maskCommandArguments(command.args, command.program)) !== JSON.stringify(command.args))
  ) {
    return "desktop_detail carries an unmasked argument: mask it with shared/observation/command-masking before sending.";
  }
  if ((detail?.masked_field?.value !== undefined || event.redaction_mode === "none") && textMode !== "none") {
    return "A typed value arrived but this session did not consent to recording text.";
  }
  return undefined;
}

/** Whether a scoped session's allow-list takes the event (a session that watches this computer takes its desktop events). */
function onTarget(session: LearnSession, event: ObservedActionEventWithDetail): boolean {
  const scoped = session.observation_mode === "outside_agent" || session.observation_mode === "mixed";
  // A session that watches this computer takes its desktop events whatever sites it lists.
  const desktopInScope = DESKTOP_PHASE_1_KINDS.includes(event.adapter_kind) && watchesThisComputer(session);
  if (!scoped || session.target_app_whitelist.length === 0 || desktopInScope) return true;
  const detail = event.browser_detail;
  return detail !== undefined
    ? urlMatchesAllowList(detail.page_url, session.target_app_whitelist)
    : event.app_family !== undefined && session.target_app_whitelist.includes(event.app_family.toLowerCase());
}
