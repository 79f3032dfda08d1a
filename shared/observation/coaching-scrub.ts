import { z } from "zod";

/**
 * How the Coaching Agent's page reader (agent/learning/coaching/coaching-page.ts, run in the page's
 * main world through CDP) has what it read cut by the content script's privacy boundary
 * (extension/observation/privacy-boundary.ts) before anything leaves the page (issue #16, DESIGN §8).
 *
 * The DOM is shared between worlds and DOM events dispatch synchronously across them, but objects
 * are not shared: the reader dispatches `REQUEST` on `document` with the raw strings as a JSON
 * string in `detail`; the content script, while it records the page, answers at once with `REPLY`
 * carrying the scrubbed strings, as a JSON string too. No answer: the page is not recorded (or not
 * yet), and the reader returns nothing it read.
 */
export const COACHING_SCRUB_REQUEST = "elnor-coaching-scrub";
export const COACHING_SCRUB_REPLY = "elnor-coaching-scrubbed";

/** At most this many strings per request (a page's controls, headings, states). */
export const COACHING_SCRUB_MAX_STRINGS = 5_000;

export const CoachingScrubRequestSchema = z.object({
  /** Page text: control names, headings, the title, control states. */
  texts: z.array(z.string().max(2_000)).max(COACHING_SCRUB_MAX_STRINGS),
  /** Addresses: masked as every URL that leaves the page. */
  urls: z.array(z.string().max(8_000)).max(16),
});
export type CoachingScrubRequest = z.infer<typeof CoachingScrubRequestSchema>;

/** Same lengths and order as the request. */
export const CoachingScrubReplySchema = z.object({ texts: z.array(z.string()), urls: z.array(z.string()) });
export type CoachingScrubReply = z.infer<typeof CoachingScrubReplySchema>;
