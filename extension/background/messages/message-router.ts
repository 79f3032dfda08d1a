import type { Browser } from "wxt/browser";
import { PanelRequestSchema, type CaptureControlReply, type CaptureEventsReply } from "../../../shared/observation/panel-messages";
import { ContentMessageSchema, type ContentMessage } from "../../observation/common/capture-messages";
import { InvalidEventsMessageSchema, salvageBatch } from "./batch-salvage";
import { answerContent, takeParked, type ContentRequestDeps } from "./content-requests";
import { answerPanel, type PanelRequestDeps } from "./panel-requests";

export type MessageRouterDeps = ContentRequestDeps & PanelRequestDeps & { extensionId: string };

/**
 * Runtime messages into the background. Content scripts may only speak for a page the current
 * session observes (checked on the sender's URL, which Chrome sets, not on anything the page
 * says); other extension pages (the side panel) may ask for status. Anything else is ignored.
 */
export function createMessageRouter(deps: MessageRouterDeps) {
  const extensionOrigin = `chrome-extension://${deps.extensionId}/`;

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
          await takeParked(deps);
          return answerContent(deps, request, sender);
        })
      : answerContent(deps, request, sender);

  const fromPage = (message: unknown, sender: Browser.runtime.MessageSender): Promise<unknown> | undefined => {
    const content = ContentMessageSchema.safeParse(message);
    if (content.success) {
      const work = fromContent(content.data, sender).catch(failure);
      // A page that asks for its config next (the results page of a search) must get these values: it waits for them.
      if (content.data.type === "capture/typed-values") deps.capture.holdConfigsFor(work);
      return work;
    }
    // A batch that does not parse is answered, not ignored: nothing is dropped silently.
    const events = InvalidEventsMessageSchema.safeParse(message);
    if (!events.success) return undefined;
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
  };

  return {
    /** Takes what pages parked (a worker start, a storage change), in turn with arriving batches. */
    drainParked(): Promise<void> {
      return inArrivalOrder(() => takeParked(deps)).catch(() => undefined);
    },
    /**
     * Answers a message, or returns undefined when it is not ours to answer (so the caller does
     * not hold the channel open). The promise never rejects: failures answer `{ ok: false }`.
     */
    route(message: unknown, sender: Browser.runtime.MessageSender): Promise<unknown> | undefined {
      if (sender.id !== deps.extensionId) return undefined;
      const isExtensionPage = (sender.url ?? "").startsWith(extensionOrigin);
      if (sender.tab !== undefined && !isExtensionPage) return fromPage(message, sender);
      if (isExtensionPage) {
        const panel = PanelRequestSchema.safeParse(message);
        if (panel.success) return answerPanel(deps, panel.data).catch(failure);
      }
      return undefined;
    },
  };
}

function failure(error: unknown): CaptureControlReply {
  return { ok: false, code: "BACKGROUND_ERROR", message: (error instanceof Error ? error.message : String(error)).slice(0, 400) };
}
