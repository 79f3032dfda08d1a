import { z } from "zod";
import { CoachingHighlightSchema, CoachingReadSchema } from "./coaching-read";

/**
 * "In my browser" (issue #21): the executor acts in a tab of the person's own Chrome. The agent
 * drives it with the Chrome DevTools Protocol, relayed over the extension's one WebSocket
 * (capture-protocol's `ClientFrame` / `AgentFrame` carry these frames too); the extension holds
 * the tab through Chrome's debugger API and guards it: only the lease's sites, visibly (badge `RUN`,
 * in-page bar with Stop), and never while a demonstration is being recorded — except the Coaching
 * Agent's lease for the session being recorded (issue #16), which only clicks.
 */

export const TAB_LEASE_ID_PATTERN = /^[A-Za-z0-9-]{8,80}$/;
const LeaseIdSchema = z.string().regex(TAB_LEASE_ID_PATTERN);

/**
 * Why the extension would not lend a tab. `IN_TAB_NOT_ALLOWED`: the person has not allowed in-tab
 * runs (the side panel asks at the first one; panel-messages `run/allow-in-tab`).
 * `DEBUGGER_UNAVAILABLE`: Chrome gives the extension no Chrome's debugger API (a policy withholds it).
 * `RECORDING_ACTIVE`: a demonstration is being recorded; the run is refused so the values it types
 * are never captured as a demonstration. `EXTENSION_NOT_CONNECTED` is the agent's own.
 */
export const TabRefusalCodeSchema = z.enum([
  "IN_TAB_NOT_ALLOWED",
  "DEBUGGER_UNAVAILABLE",
  "SITE_NOT_ALLOWED",
  "TAB_NOT_FOUND",
  "TAB_BUSY",
  "RECORDING_ACTIVE",
  "ATTACH_FAILED",
  "EXTENSION_NOT_CONNECTED",
]);
export type TabRefusalCode = z.infer<typeof TabRefusalCodeSchema>;

/**
 * Why a lent tab was taken back. `user_stop`: Stop in the page; `debugger_detached`: the person
 * pressed Cancel on Chrome's "is debugging this browser" bar (or DevTools took over); `tab_closed`;
 * `off_site`: the tab went to a site the lease does not allow; `recording_started`: a
 * demonstration began; `released`: the agent gave it back; `link_lost`: the WebSocket went down.
 */
export const TabEndReasonSchema = z.enum(["user_stop", "debugger_detached", "tab_closed", "off_site", "recording_started", "released", "link_lost"]);
export type TabEndReason = z.infer<typeof TabEndReasonSchema>;

/** A CDP method name (`Domain.method`). */
const CdpMethodSchema = z
  .string()
  .regex(/^[A-Za-z]+\.[A-Za-z]+$/)
  .max(80);
const CdpSessionIdSchema = z.string().max(120);
const CdpParamsSchema = z.record(z.string(), z.unknown());

/** Agent → extension. */
export const AgentTabFrameSchema = z.discriminatedUnion("type", [
  /** Lend a tab: `tab_id`, or a new tab when absent. Answered by `tab_opened` or `tab_refused`. */
  z.object({
    type: z.literal("tab_open"),
    lease_id: LeaseIdSchema,
    tab_id: z.number().int().min(0).optional(),
    /** Allow-list entries (shared/observation/site-allowlist): the only sites the tab may show while lent. */
    allowed_sites: z.array(z.string().max(160)).min(1).max(40),
    /** What the in-page bar says is being done (the ability's title). */
    label: z.string().max(160),
    /**
     * Coaching Agent (issue #16): the session whose recording this lease takes turns with. Lent
     * while that session records (the agent only clicks what the person agreed to, never types),
     * and not taken back when it starts recording; any other recording still refuses the lease.
     */
    coaching_session_id: z.string().uuid().optional(),
  }),
  /** One CDP command for the tab (or a child session of it), answered by `tab_cdp_result` with the same id. */
  z.object({
    type: z.literal("tab_cdp"),
    lease_id: LeaseIdSchema,
    id: z.number().int().min(0),
    method: CdpMethodSchema,
    params: CdpParamsSchema.optional(),
    session_id: CdpSessionIdSchema.optional(),
  }),
  /**
   * Coaching Agent leases only (shared/observation/coaching-read.ts): the content script of the lent
   * tab reads the page and cuts out what was typed; answered by `tab_read_result` with the same id.
   */
  z.object({ type: z.literal("tab_read"), lease_id: LeaseIdSchema, id: z.number().int().min(0), highlight: CoachingHighlightSchema.nullable() }),
  /** Give the tab back: detach, take the bar and badge away. Answered by `tab_ended` (`released`). */
  z.object({ type: z.literal("tab_release"), lease_id: LeaseIdSchema }),
]);
export type AgentTabFrame = z.infer<typeof AgentTabFrameSchema>;

/** Extension → agent. */
export const ClientTabFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("tab_opened"), lease_id: LeaseIdSchema, tab_id: z.number().int().min(0), url: z.string().max(4000) }),
  z.object({ type: z.literal("tab_refused"), lease_id: LeaseIdSchema, code: TabRefusalCodeSchema, message: z.string().max(400) }),
  z.object({
    type: z.literal("tab_cdp_result"),
    lease_id: LeaseIdSchema,
    id: z.number().int().min(0),
    result: CdpParamsSchema.optional(),
    error: z.object({ code: z.number().int().optional(), message: z.string().max(2000) }).optional(),
  }),
  z.object({
    type: z.literal("tab_cdp_event"),
    lease_id: LeaseIdSchema,
    method: CdpMethodSchema,
    params: CdpParamsSchema.optional(),
    session_id: CdpSessionIdSchema.optional(),
  }),
  /** `read` null: nothing was read (not a coaching lease, the page is not recorded, no content script answered); `why` says which. */
  z.object({
    type: z.literal("tab_read_result"),
    lease_id: LeaseIdSchema,
    id: z.number().int().min(0),
    read: CoachingReadSchema.nullable(),
    why: z.string().max(400).optional(),
  }),
  z.object({ type: z.literal("tab_ended"), lease_id: LeaseIdSchema, reason: TabEndReasonSchema, message: z.string().max(400) }),
]);
export type ClientTabFrame = z.infer<typeof ClientTabFrameSchema>;

/** The CDP error code a command refused by a guard carries (JSON-RPC "server error" range). */
export const TAB_GUARD_ERROR_CODE = -32_001;
