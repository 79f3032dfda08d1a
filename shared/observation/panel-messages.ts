import { z } from "zod";
import { CaptureSessionStateSchema } from "./capture-protocol";

/**
 * The contract between the extension's service worker and the pages that talk to it (STYLE habit
 * 12): what the side panel may ask the background and what the background answers on runtime
 * messaging. Both sides import it from here; `ui/` never imports from `extension/`. Requests from content scripts are `ContentMessage`
 * (extension/observation/capture-messages); `capture/get-config` is answered with a
 * `BackgroundToContentMessage` (`{ type: "capture/config", config }`), the same shape that is
 * pushed to the tabs on every change.
 */

/** Answer to `capture/events`: how many events went into the outbox, and why any did not. */
export const CaptureEventsReplySchema = z.object({
  queued: z.number().int().min(0),
  /** Already in the outbox (a resend after a lost reply): kept once, not counted again. */
  duplicates: z.number().int().min(0),
  refused: z.number().int().min(0),
  /**
   * Why events were refused: the outbox is full (counted in the outbox status), the page is not
   * one the current session observes, the events broke the contract, or IndexedDB failed.
   */
  refused_reason: z.enum(["outbox_full", "not_observed", "invalid", "outbox_unavailable"]).optional(),
});
export type CaptureEventsReply = z.infer<typeof CaptureEventsReplySchema>;

/** Answer to `capture/control` and the result of a keyboard command. */
export const CaptureControlReplySchema = z.object({
  ok: z.boolean(),
  /** The agent's error code, or ours: NO_CAPTURE, NOTHING_TO_PAUSE, NOT_PAIRED, AGENT_UNREACHABLE. */
  code: z.string().max(80).optional(),
  message: z.string().max(400).optional(),
});
export type CaptureControlReply = z.infer<typeof CaptureControlReplySchema>;

/** The background's link to the agent, as the side panel may show it. */
export const AgentLinkStateSchema = z.enum(["unpaired", "connecting", "connected", "disconnected", "token_rejected"]);
export type AgentLinkState = z.infer<typeof AgentLinkStateSchema>;

/** Side panel → background. */
export const PanelRequestSchema = z.discriminatedUnion("type", [
  /** The outbox's size and bound (also kept in the extension's session storage, see background-storage). */
  z.object({ type: z.literal("capture/outbox-status") }),
  /**
   * Open the agent socket now (waking the service worker) and answer once the agent has welcomed
   * it or `timeout_ms` passed. Call before `POST …/start`: the agent only starts a browser capture
   * while the extension is connected as its browser_dom adapter.
   */
  z.object({ type: z.literal("capture/ensure-connected"), timeout_ms: z.number().int().min(0).max(30_000).default(5_000) }),
  /** Everything at once: link, mirrored session, outbox. */
  z.object({ type: z.literal("capture/status") }),
  /**
   * Before an in-tab run (issue #21 "in my browser"): open the agent socket (as `ensure-connected`)
   * and say whether the extension can lend a tab ({@link TabRunAccessReply}).
   */
  z.object({ type: z.literal("run/tab-access"), timeout_ms: z.number().int().min(0).max(30_000).default(5_000) }),
  /**
   * The person's answer to "Let the assistant act in your tabs?", asked in the side panel at the
   * first in-tab run (and withdrawable). Chrome does not let `debugger` be an optional permission
   * (it drops it from `optional_permissions`; `permissions.request` answers "Only permissions
   * specified in the manifest may be requested"), so the manifest holds it and this consent,
   * kept in the extension's local storage, is what gates its use: without it every tab request
   * from the agent is refused with `IN_TAB_NOT_ALLOWED`. Answered with {@link TabRunAccessReply}.
   */
  z.object({ type: z.literal("run/allow-in-tab"), allowed: z.boolean() }),
]);
/** What the side panel sends (defaults may be left out). */
export type PanelRequest = z.input<typeof PanelRequestSchema>;

/** Answer to `run/tab-access`: `ready` only when all of these allow an in-tab run now. */
export const TabRunAccessReplySchema = z.object({
  ready: z.boolean(),
  connection: AgentLinkStateSchema,
  /** The person allowed in-tab runs (`run/allow-in-tab`). */
  in_tab_allowed: z.boolean(),
  /** Chrome gives the extension Chrome's debugger API (an enterprise policy can withhold it). */
  debugger_available: z.boolean(),
  /** A demonstration is being recorded: in-tab runs are refused until it ends (its typed values must not be recorded). */
  recording_active: z.boolean(),
  /** The assistant is already acting in a tab. */
  run_active: z.boolean(),
});
export type TabRunAccessReply = z.infer<typeof TabRunAccessReplySchema>;

export const EnsureConnectedReplySchema = z.object({ connection: AgentLinkStateSchema });
export type EnsureConnectedReply = z.infer<typeof EnsureConnectedReplySchema>;

/** The last control made outside the side panel (keyboard or in-page indicator), and how it went. */
export const LastControlSchema = z.object({
  control: z.enum(["pause", "resume", "stop", "toggle-pause", "mark-step"]),
  source: z.enum(["hotkey", "user_click"]),
  at: z.string().datetime(),
  reply: CaptureControlReplySchema,
});
export type LastControl = z.infer<typeof LastControlSchema>;

/** The background's last own failure (IndexedDB, storage, Chrome API), for diagnostics in the panel. */
export const BackgroundFailureSchema = z.object({
  where: z.string().max(80),
  message: z.string().max(400),
  at: z.string().datetime(),
});
export type BackgroundFailure = z.infer<typeof BackgroundFailureSchema>;

/**
 * What the side panel shows about events waiting for the agent (issue #4 "lossless delivery"):
 * `refused` counts events the outbox could not take because it was full — never dropped silently.
 */
export const OutboxStatusSchema = z.object({
  queued: z.number().int().min(0),
  capacity: z.number().int().min(1),
  near_full: z.boolean(),
  snapshots_queued: z.number().int().min(0),
  /** Events (and snapshots) refused because the outbox was full, since the extension was installed. */
  refused: z.number().int().min(0),
  refused_snapshots: z.number().int().min(0),
});
export type OutboxStatus = z.infer<typeof OutboxStatusSchema>;

export const CaptureStatusReplySchema = z.object({
  connection: AgentLinkStateSchema,
  session: CaptureSessionStateSchema.nullable(),
  outbox: OutboxStatusSchema,
  /** A keyboard command fails without a page to say so; the panel can (e.g. "Agent unreachable"). */
  last_control: LastControlSchema.nullable(),
  last_failure: BackgroundFailureSchema.nullable(),
});
export type CaptureStatusReply = z.infer<typeof CaptureStatusReplySchema>;
