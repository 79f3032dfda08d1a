import { COACHING_SCRUB_REPLY, COACHING_SCRUB_REQUEST, CoachingScrubRequestSchema, type CoachingScrubReply } from "../../shared/observation/coaching-scrub";
import type { PrivacyBoundary } from "./privacy-boundary";

/**
 * The content script's answer to the Coaching Agent's page reader (shared/observation/coaching-scrub.ts):
 * every string the reader took from the page comes back through the privacy boundary, so a page that
 * echoes what the person typed (a chip "canary ×", "Results for canary", `#/search/canary`) gives
 * the agent `•••` instead. Answered only while this page is recorded (`active`): the boundary knows
 * the session's typed values then; otherwise no answer, and the reader keeps nothing it read.
 *
 * The answer goes back on the page's own `document`: the page sees its own text with its own typed
 * values cut out, nothing it could not read already. Returns a function that stops answering.
 */
export function answerCoachingScrubs(options: { document: Document; boundary: PrivacyBoundary; active: () => boolean; onError?: (error: unknown) => void }): () => void {
  const { document, boundary, active } = options;
  const onRequest = (event: Event): void => {
    try {
      if (!active()) return;
      const detail: unknown = (event as CustomEvent<unknown>).detail;
      if (typeof detail !== "string") return;
      const parsed = CoachingScrubRequestSchema.safeParse(JSON.parse(detail));
      if (!parsed.success) return;
      const reply: CoachingScrubReply = { texts: parsed.data.texts.map((text) => boundary.text(text)), urls: parsed.data.urls.map((url) => boundary.url(url)) };
      const view = document.defaultView ?? window;
      document.dispatchEvent(new view.CustomEvent(COACHING_SCRUB_REPLY, { detail: JSON.stringify(reply) }));
    } catch (error) {
      // No answer: the reader fails closed.
      options.onError?.(error);
    }
  };
  document.addEventListener(COACHING_SCRUB_REQUEST, onRequest);
  return () => document.removeEventListener(COACHING_SCRUB_REQUEST, onRequest);
}
