import type { Browser } from "wxt/browser";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-action";
import { SnapshotUploadSchema } from "../../../shared/observation/capture-protocol";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import { z } from "zod";
import { ContentMessageSchema, type BackgroundToContentMessage, type ContentMessage } from "../../observation/capture-messages";
import {
  PanelRequestSchema,
  type AgentLinkState,
  type CaptureControlReply,
  type CaptureEventsReply,
  type CaptureStatusReply,
  type EnsureConnectedReply,
  type TabRunAccessReply,
  type LastControl,
  type BackgroundFailure,
  type OutboxStatus,
} from "../../../shared/observation/panel-messages";
import { isActiveCapture } from "../capture/capture-config";
import type { CaptureSession } from "../capture/capture-session";
import { cutForeignEchoes } from "../capture/cross-site-echoes";
import type { AddResult } from "../outbox/outbox-db";
import type { OutboxSender } from "../outbox/outbox-sender";
import type { ParkedBatches } from "../outbox/parked-batches";
import type { CaptureControl } from "../capture/capture-control-plan";

/** The outline of a `capture/events` message whose events did not pass the contract. */
const InvalidEventsMessageSchema = z.object({ type: z.literal("capture/events"), events: z.array(z.unknown()), snapshots: z.array(z.unknown()).default([]) });

/** The events and snapshots of a batch that pass the contract on their own (at most as many as a valid batch holds). */
function salvageBatch(batch: z.infer<typeof InvalidEventsMessageSchema>): Extract<ContentMessage, { type: "capture/events" }> {
  const events = batch.events.flatMap((item) => {
    const parsed = ObservedActionEventWithDetailSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
  const snapshots = batch.snapshots.flatMap((item) => {
    const parsed = SnapshotUploadSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
  return { type: "capture/events", events: events.slice(0, 200), snapshots: snapshots.slice(0, 20) };
}

export interface MessageRouterDeps {
  extensionId: string;
  capture: CaptureSession;
  outbox(): Promise<OutboxSender>;
  control(control: CaptureControl, source: "user_click" | "hotkey"): Promise<CaptureControlReply>;
  ensureConnected(timeoutMs: number): Promise<AgentLinkState>;
  linkState(): AgentLinkState;
  lastControl(): Promise<LastControl | null>;
  lastFailure(): Promise<BackgroundFailure | null>;
  /** Whether the extension (still) holds site access for the page at this URL. */
  isGranted(url: string): Promise<boolean>;
  /** The person's word on in-tab runs (issue #21), asked at the first one. */
  inTabRuns: { allowed(): Promise<boolean>; set(allowed: boolean): Promise<void> };
  /** Whether Chrome gives the extension `chrome.debugger` (a policy can withhold it). */
  hasDebugger(): boolean;
  /** Whether the assistant is acting in a tab now. */
  runActive(): boolean;
  /** Batches pages parked as they were left (issue #35); taken before any later batch. */
  parked?: ParkedBatches;
}

/**
 * Runtime messages into the background. Content scripts may only speak for a page the current
 * session observes (checked on the sender's URL, which Chrome sets, not on anything the page
 * says); other extension pages (the side panel) may ask for status. Anything else is ignored.
 */
export function createMessageRouter(deps: MessageRouterDeps) {
  const extensionOrigin = `chrome-extension://${deps.extensionId}/`;

  const tabRunAccess = async (timeoutMs: number): Promise<TabRunAccessReply> => {
    const connection = timeoutMs > 0 ? await deps.ensureConnected(timeoutMs) : deps.linkState();
    const allowed = await deps.inTabRuns.allowed();
    const debuggerAvailable = deps.hasDebugger();
    const recordingActive = isActiveCapture(await deps.capture.current());
    const runActive = deps.runActive();
    return {
      ready: connection === "connected" && allowed && debuggerAvailable && !recordingActive && !runActive,
      connection,
      in_tab_allowed: allowed,
      debugger_available: debuggerAvailable,
      recording_active: recordingActive,
      run_active: runActive,
    };
  };

  /**
   * Batches of events are taken one at a time, in the order they arrived: a page that resends what
   * it has not heard back about while it is being left (issue #35) must not overtake its own batch.
   */
  let batches: Promise<unknown> = Promise.resolve();
  const inArrivalOrder = <T>(work: () => Promise<T>): Promise<T> => {
    const next = batches.then(work, work);
    batches = next.catch(() => undefined);
    return next;
  };

  const fromContent = async (request: ContentMessage, sender: Browser.runtime.MessageSender): Promise<unknown> =>
    request.type === "capture/events"
      ? inArrivalOrder(async () => {
          await takeParked();
          return fromContentNow(request, sender);
        })
      : fromContentNow(request, sender);

  /**
   * Parked batches go into the outbox before anything that arrives after them. No sender vouches
   * for them, so each event must belong to the current session and a page it observes (and still
   * has access to); duplicates of what already arrived are dropped by the outbox.
   */
  const takeParked = async (): Promise<void> => {
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
      const events = [];
      for (const event of valid.events) {
        if (event.learn_session_id === session.learn_session_id && (await observes(event.browser_detail?.page_url))) events.push(event);
      }
      const snapshots = valid.snapshots.filter((upload) => upload.learn_session_id === session.learn_session_id);
      if (events.length === 0) continue;
      // Another allowed site's typed values are cut here too (cross-site-echoes.ts).
      const cut = await cutForeignEchoes({ events, snapshots }, await deps.capture.foreignValues(session.learn_session_id, events[0]?.browser_detail?.page_url ?? ""));
      await (await deps.outbox()).enqueue(cut.events, cut.snapshots).catch(() => undefined);
    }
  };

  const fromContentNow = async (request: ContentMessage, sender: Browser.runtime.MessageSender): Promise<unknown> => {
    const session = await deps.capture.current();
    const url = sender.url;
    const observed =
      session !== null && url !== undefined && urlMatchesAllowList(url, session.target_app_whitelist) && (await deps.isGranted(url));
    switch (request.type) {
      case "capture/get-config": {
        const reply: BackgroundToContentMessage = { type: "capture/config", config: observed ? await deps.capture.configForPage(sender.url) : null };
        return reply;
      }
      case "capture/events": {
        const config = observed ? await deps.capture.configForPage(sender.url) : null;
        const sameSession = config !== null && request.events.every((event) => event.learn_session_id === config.learn_session_id);
        if (!sameSession) {
          const reply: CaptureEventsReply = { queued: 0, duplicates: 0, refused: request.events.length, refused_reason: "not_observed" };
          return reply;
        }
        // What another allowed site's typed values would leave in this page's batch is cut here.
        const cut = await cutForeignEchoes(request, await deps.capture.foreignValues(config.learn_session_id, url as string));
        if (cut.found.length > 0) await deps.capture.addTypedValues(config.learn_session_id, url as string, cut.found);
        let result: AddResult;
        try {
          result = await (await deps.outbox()).enqueue(cut.events, cut.snapshots);
        } catch {
          // IndexedDB failed (quota, disk): nothing was kept, and the page is told so.
          const reply: CaptureEventsReply = { queued: 0, duplicates: 0, refused: request.events.length, refused_reason: "outbox_unavailable" };
          return reply;
        }
        const reply: CaptureEventsReply = {
          queued: result.queued,
          duplicates: result.duplicates,
          refused: result.refused,
          ...(result.refused > 0 ? { refused_reason: "outbox_full" as const } : {}),
        };
        return reply;
      }
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
  };

  const fromPanel = async (request: z.infer<typeof PanelRequestSchema>): Promise<unknown> => {
    switch (request.type) {
      case "capture/outbox-status": {
        const status: OutboxStatus = await (await deps.outbox()).status();
        return status;
      }
      case "capture/ensure-connected":
        return { connection: await deps.ensureConnected(request.timeout_ms) } satisfies EnsureConnectedReply;
      case "capture/status":
        return {
          connection: deps.linkState(),
          session: await deps.capture.current(),
          outbox: await (await deps.outbox()).status(),
          last_control: await deps.lastControl(),
          last_failure: await deps.lastFailure(),
        } satisfies CaptureStatusReply;
      case "run/allow-in-tab":
        await deps.inTabRuns.set(request.allowed);
        return tabRunAccess(0);
      case "run/tab-access":
        return tabRunAccess(request.timeout_ms);
      default:
        return assertNever(request);
    }
  };

  return {
    /** Takes what pages parked (a worker start, a storage change), in turn with arriving batches. */
    drainParked(): Promise<void> {
      return inArrivalOrder(takeParked).catch(() => undefined);
    },
    /**
     * Answers a message, or returns undefined when it is not ours to answer (so the caller does
     * not hold the channel open). The promise never rejects: failures answer `{ ok: false }`.
     */
    route(message: unknown, sender: Browser.runtime.MessageSender): Promise<unknown> | undefined {
      if (sender.id !== deps.extensionId) return undefined;
      const isExtensionPage = (sender.url ?? "").startsWith(extensionOrigin);
      if (sender.tab !== undefined && !isExtensionPage) {
        const content = ContentMessageSchema.safeParse(message);
        if (content.success) {
          const work = fromContent(content.data, sender).catch(failure);
          // A page that asks for its config next (the results page of a search) must get these values: it waits for them.
          if (content.data.type === "capture/typed-values") deps.capture.holdConfigsFor(work);
          return work;
        }
        // A batch that does not parse is answered, not ignored: nothing is dropped silently.
        const events = InvalidEventsMessageSchema.safeParse(message);
        if (events.success) {
          // The page does not validate its own output (issue #17: off its main thread): each event
          // and snapshot is checked here, the valid ones are kept and the others counted as refused.
          const valid = salvageBatch(events.data);
          const invalid = events.data.events.length - valid.events.length;
          if (valid.events.length === 0) {
            const reply: CaptureEventsReply = { queued: 0, duplicates: 0, refused: invalid, refused_reason: "invalid" };
            return Promise.resolve(reply);
          }
          return fromContent(valid, sender)
            .then((reply) => {
              const answer = reply as CaptureEventsReply;
              return { ...answer, refused: answer.refused + invalid, refused_reason: answer.refused_reason ?? "invalid" } satisfies CaptureEventsReply;
            })
            .catch(failure);
        }
        return undefined;
      }
      if (isExtensionPage) {
        const panel = PanelRequestSchema.safeParse(message);
        if (panel.success) return fromPanel(panel.data).catch(failure);
      }
      return undefined;
    },
  };
}

function failure(error: unknown): CaptureControlReply {
  return { ok: false, code: "BACKGROUND_ERROR", message: (error instanceof Error ? error.message : String(error)).slice(0, 400) };
}

function assertNever(value: never): never {
  throw new Error(`Unhandled message ${JSON.stringify(value)}`);
}
