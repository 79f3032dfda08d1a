import { browser } from "wxt/browser";
import { defineContentScript } from "wxt/utils/define-content-script";
import { CoachingReadMessageSchema, type CoachingReadReply } from "../../shared/observation/coaching-read";
import { BackgroundToContentMessageSchema, CaptureConfigSchema, PARKED_BATCH_PREFIX, type ContentMessage } from "../observation/common/capture-messages";
import { createContentCapture, type ContentCapture } from "../observation/content-capture";

/**
 * The observation content script (browser_dom, browser_snapshot; issue #4). It is registered at
 * runtime, only for the sites a session allows and only between Start and Stop (DESIGN §4), so the
 * manifest never lists it. It only wires: ask for the config, follow `capture/config`, and hand
 * the capture's messages to the background. The work is in extension/observation/.
 */
export default defineContentScript({
  matches: [],
  registration: "runtime",
  main(ctx) {
    // The top frame observes its same-origin frames itself; a copy inside a frame would double every event.
    if (window.top !== window) return;
    // A second injection (registration plus executeScript, or an update) takes over from the first.
    const slot = globalThis as { __elnorContentCapture?: ContentCapture };
    slot.__elnorContentCapture?.destroy();

    /** Bumped by every pushed config, so an answer requested before a push never overrides it. */
    let pushes = 0;
    const requestConfig = async (): Promise<void> => {
      const pushesBefore = pushes;
      const request: ContentMessage = { type: "capture/get-config" };
      let config: unknown = null;
      try {
        const reply: unknown = await browser.runtime.sendMessage(request);
        // The background answers with a BackgroundToContentMessage; a bare config (or null) is accepted too.
        const asMessage = BackgroundToContentMessageSchema.safeParse(reply);
        config = asMessage.success ? asMessage.data.config : (CaptureConfigSchema.nullable().safeParse(reply).data ?? null);
      } catch {
        // No background to answer (the extension is reloading): observe nothing.
      }
      if (pushes === pushesBefore) await capture.setConfig(config);
    };

    const capture = createContentCapture({
      send: async (message: ContentMessage) => {
        const reply: unknown = await browser.runtime.sendMessage(message);
        // The pill pauses and stops the page at once; the background's answer is what holds.
        if (message.type === "capture/control") void requestConfig();
        return reply;
      },
      // Written by the browser, not the worker: kept even when the worker starts after this page is gone.
      park: (messages) => {
        const key = `${PARKED_BATCH_PREFIX}${String(Date.now()).padStart(15, "0")}:${crypto.randomUUID()}`;
        void browser.storage.local.set({ [key]: messages }).catch(() => undefined);
      },
    });
    slot.__elnorContentCapture = capture;

    const onMessage = (message: unknown, _sender: unknown, sendResponse: (response: unknown) => void): boolean | undefined => {
      // The Coaching Agent's read (issue #30): asked and answered over the extension's own messaging only.
      const read = CoachingReadMessageSchema.safeParse(message);
      if (read.success) {
        let reply: CoachingReadReply = { read: null };
        try {
          reply = { read: capture.coachingRead(read.data.highlight) };
        } catch {
          // Nothing read leaves: the agent is told the page could not be read.
        }
        sendResponse(reply);
        return undefined;
      }
      const parsed = BackgroundToContentMessageSchema.safeParse(message);
      if (!parsed.success) return undefined;
      pushes += 1;
      // Answered once what was seen before a pause or stop has been handed to the background.
      void capture.setConfig(parsed.data.config).then(() => sendResponse({ ok: true }));
      return true;
    };
    browser.runtime.onMessage.addListener(onMessage);
    // Back in view from the back/forward cache: the capture may have been paused or stopped meanwhile.
    const onPageShow = (event: PageTransitionEvent): void => {
      if (event.persisted) void requestConfig();
    };
    window.addEventListener("pageshow", onPageShow);
    ctx.onInvalidated(() => {
      browser.runtime.onMessage.removeListener(onMessage);
      window.removeEventListener("pageshow", onPageShow);
      capture.destroy();
    });

    void requestConfig();
  },
});
