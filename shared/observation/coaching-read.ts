import { z } from "zod";

/**
 * How the Coaching Agent (issue #16) reads the page in the person's tab without anything the person
 * typed reaching it (issue #30, DESIGN §9 "No page-reachable channel answers questions").
 *
 * The reading is done by the content script, where the session's typed values already are: the
 * agent sends `tab_read` over the extension's socket (tab-relay-protocol), the service worker hands
 * it to the content script of the lent tab with `tabs.sendMessage` (the extension's own messaging,
 * which no page script can reach or observe), and the content script reads the page, cuts every
 * value typed on this site out of every string (privacy-boundary.ts) and answers the same way. The
 * page is never asked anything and never answered: it cannot learn from the recorder whether a
 * string it chose was typed.
 */

/** The host element of the frame drawn around the control the agent proposes (a closed shadow root). */
export const COACHING_HIGHLIGHT_TAG = "elnor-coaching-highlight";

/** Frame the control at `order` in the reading order when its (scrubbed) name is still `name`. */
export const CoachingHighlightSchema = z.object({
  order: z.number().int().min(0).max(10_000),
  name: z.string().max(400),
  /** What the agent is about to do, drawn under the frame. */
  label: z.string().max(400),
});
export type CoachingHighlight = z.infer<typeof CoachingHighlightSchema>;

/** A control a person can click: role and accessible name, scrubbed. */
export const CoachingControlSchema = z.object({ role: z.string().max(40), name: z.string().max(400) });

/** What the page shows, every string already through the privacy boundary. */
export const CoachingReadSchema = z.object({
  /** Visible controls in reading order. */
  controls: z.array(CoachingControlSchema).max(5_000),
  facts: z.object({
    /** Origin, path and hash (masked as every URL that leaves a page). */
    address: z.string().max(8_000),
    title: z.string().max(2_000),
    headings: z.array(z.string().max(400)).max(2_000),
    /** Controls with a state (`role:name:aria-pressed=true`, `checked=false`). */
    states: z.array(z.string().max(600)).max(5_000),
  }),
});
export type CoachingRead = z.infer<typeof CoachingReadSchema>;

/** Service worker → content script of the lent tab (`tabs.sendMessage`, top frame). */
export const CoachingReadMessageSchema = z.object({ type: z.literal("coaching/read"), highlight: CoachingHighlightSchema.nullable() });
export type CoachingReadMessage = z.infer<typeof CoachingReadMessageSchema>;

/** The content script's answer: the read, or null when it does not record this page (then nothing was read). */
export const CoachingReadReplySchema = z.object({ read: CoachingReadSchema.nullable() });
export type CoachingReadReply = z.infer<typeof CoachingReadReplySchema>;
