import type { Browser } from "wxt/browser";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { CaptureControlReply, CaptureEventsReply } from "../../../shared/observation/panel-messages";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import type { BackgroundToContentMessage, ContentMessage } from "../../observation/common/capture-messages";
import type { CaptureControl } from "../capture/capture-control-plan";
import type { CaptureSession } from "../capture/capture-session";
import { cutForeignEchoes } from "../capture/cross-site-echoes";
import type { AddResult } from "../outbox/outbox-db";
import type { OutboxSender } from "../outbox/outbox-sender";
import type { ParkedBatches } from "../outbox/parked-batches";
import { InvalidEventsMessageSchema, salvageBatch } from "./batch-salvage";
import { assertNever } from "../../../shared/common/assert-never";

export interface ContentRequestDeps {
  capture: CaptureSession;
  outbox(): Promise<OutboxSender>;
  control(control: CaptureControl, source: "user_click" | "hotkey"): Promise<CaptureControlReply>;
  /** Whether the extension (still) holds site access for the page at this URL. */
  isGranted(url: string): Promise<boolean>;
  /** Batches pages parked as they were left (issue #35); taken before any later batch. */
  parked?: ParkedBatches;
}

type EventsMessage = Extract<ContentMessage, { type: "capture/events" }>;

/** A content script's message, answered only for a page the current session observes (the sender's URL, set by Chrome). */
export async function answerContent(deps: ContentRequestDeps, request: ContentMessage, sender: Browser.runtime.MessageSender): Promise<unknown> {
  const session = await deps.capture.current();
  const url = sender.url;
  const observed = session !== null && url !== undefined && urlMatchesAllowList(url, session.target_app_whitelist) && (await deps.isGranted(url));
  switch (request.type) {
    case "capture/get-config": {
      const reply: BackgroundToContentMessage = { type: "capture/config", config: observed ? await deps.capture.configForPage(sender.url) : null };
      return reply;
    }
    case "capture/events":
      return takeEvents(deps, request, observed ? url : undefined);
    case "capture/typed-values": {
      // Kept in the extension for the session's other pages; nothing of it goes to the agent.
      if (observed) await deps.capture.addTypedValues(request.learn_session_id, url, request.values);
      return { ok: true };
    }
    case "capture/control": {
      if (!observed) return { ok: false, code: "NO_CAPTURE", message: "This page is not being recorded." } satisfies CaptureControlReply;
      return deps.control(request.action, "user_click");
    }
    default:
      return assertNever(request);
  }
}

/** A page's batch into the outbox, when it is the current session's; `url` is undefined for a page not observed. */
async function takeEvents(deps: ContentRequestDeps, request: EventsMessage, url: string | undefined): Promise<CaptureEventsReply> {
  const config = url !== undefined ? await deps.capture.configForPage(url) : null;
  const sameSession = config !== null && request.events.every((event) => event.learn_session_id === config.learn_session_id);
  if (!sameSession || url === undefined) return { queued: 0, duplicates: 0, refused: request.events.length, refused_reason: "not_observed" };
  // What another allowed site's typed values would leave in this page's batch is cut here.
  const cut = await cutForeignEchoes(request, await deps.capture.foreignValues(config.learn_session_id, url));
  if (cut.found.length > 0) await deps.capture.addTypedValues(config.learn_session_id, url, cut.found);
  let result: AddResult;
  try {
    result = await (await deps.outbox()).enqueue(cut.events, cut.snapshots);
  } catch {
    // IndexedDB failed (quota, disk): nothing was kept, and the page is told so.
    return { queued: 0, duplicates: 0, refused: request.events.length, refused_reason: "outbox_unavailable" };
  }
  return {
    queued: result.queued,
    duplicates: result.duplicates,
    refused: result.refused,
    ...(result.refused > 0 ? { refused_reason: "outbox_full" as const } : {}),
  };
}

/**
 * Parked batches go into the outbox before anything that arrives after them. No sender vouches
 * for them, so each event must belong to the current session and a page it observes (and still
 * has access to); duplicates of what already arrived are dropped by the outbox.
 */
export async function takeParked(deps: ContentRequestDeps): Promise<void> {
  if (deps.parked === undefined) return;
  const batches = await deps.parked.take();
  if (batches.length === 0) return;
  const session = await deps.capture.current();
  if (session === null) return;
  const granted = new Map<string, boolean>();
  const observes = async (url: string | undefined): Promise<boolean> => {
    if (url === undefined || !urlMatchesAllowList(url, session.target_app_whitelist)) return false;
    const origin = new URL(url).origin;
    if (!granted.has(origin)) granted.set(origin, await deps.isGranted(url));
    return granted.get(origin) === true;
  };
  for (const parked of batches) {
    const batch = InvalidEventsMessageSchema.safeParse(parked);
    if (!batch.success) continue;
    const valid = salvageBatch(batch.data);
    const events: ObservedActionEventWithDetail[] = [];
    for (const event of valid.events) {
      if (event.learn_session_id === session.learn_session_id && (await observes(event.browser_detail?.page_url))) events.push(event);
    }
    const snapshots = valid.snapshots.filter((upload) => upload.learn_session_id === session.learn_session_id);
    if (events.length === 0) continue;
    // Another allowed site's typed values are cut here too (cross-site-echoes.ts).
    const cut = await cutForeignEchoes(
      { events, snapshots },
      await deps.capture.foreignValues(session.learn_session_id, events[0]?.browser_detail?.page_url ?? ""),
    );
    await (await deps.outbox()).enqueue(cut.events, cut.snapshots).catch(() => undefined);
  }
}
