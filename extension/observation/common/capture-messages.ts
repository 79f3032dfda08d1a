import { z } from "zod";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-actions/observed-action";
import { SnapshotUploadSchema } from "../../../shared/observation/capture-protocol";

/**
 * Messages between the extension's own parts during a capture (runtime messaging). The content
 * script masks before it sends anything here; the background only forwards to the agent.
 */

/** Bounds of the session's typed values (a value longer than this is kept by its start: a scrubber needs no more). */
export const TYPED_VALUE_MAX_LENGTH = 4000;
export const TYPED_VALUES_MAX = 500;

/** What the content script on an allowed page needs to know: which session, which state, which masking. */
export const CaptureConfigSchema = z.object({
  learn_session_id: z.string().uuid(),
  state: z.enum(["armed", "capturing", "paused"]),
  /** `mask_text` (default), `hash_only`, or `none` when the user consented for this session. */
  text_entry_mode: z.enum(["mask_text", "hash_only", "none"]),
  /** Per-session HMAC key (base64url) for `hash_only`; it never leaves the extension. */
  hash_key: z.string().min(16).max(128),
  /** Allowed sites of the session, for the page to double-check its own origin. */
  allowed_origins: z.array(z.string().max(200)),
  /**
   * Values typed on the session's pages so far (privacy-boundary.ts): every page of the session cuts
   * them out of what it sends. Kept in the extension's memory only, forgotten when the session ends.
   */
  typed_values: z.array(z.string().max(TYPED_VALUE_MAX_LENGTH)).max(TYPED_VALUES_MAX).default([]),
});
export type CaptureConfig = z.infer<typeof CaptureConfigSchema>;

/** Content script → background. */
export const ContentMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("capture/get-config") }),
  z.object({
    type: z.literal("capture/events"),
    events: z.array(ObservedActionEventWithDetailSchema).max(200),
    snapshots: z.array(SnapshotUploadSchema).max(20),
  }),
  /** The in-page indicator's buttons. */
  z.object({ type: z.literal("capture/control"), action: z.enum(["pause", "resume", "stop"]) }),
  /** Values typed on this page that the session's other pages must cut out too. Never forwarded to the agent. */
  z.object({
    type: z.literal("capture/typed-values"),
    learn_session_id: z.string().uuid(),
    values: z.array(z.string().max(TYPED_VALUE_MAX_LENGTH)).min(1).max(50),
  }),
]);
export type ContentMessage = z.infer<typeof ContentMessageSchema>;

/** Background → content script (tabs.sendMessage): the capture changed; null means stop observing. */
export const BackgroundToContentMessageSchema = z.object({
  type: z.literal("capture/config"),
  config: CaptureConfigSchema.nullable(),
});
export type BackgroundToContentMessage = z.infer<typeof BackgroundToContentMessageSchema>;

/**
 * Batches a page could not hear back about when it was left (issue #35: a stopped service worker
 * starts too late for a page that is already gone): the content script parks them in
 * `chrome.storage.local` under this prefix (masked events, as the outbox holds them), and the
 * background takes them before any later batch, checks them as it checks a page's, and removes them.
 */
export const PARKED_BATCH_PREFIX = "capture-parked:";
