import { z } from "zod";
import { ApiErrorEnvelopeSchema } from "../common/error-envelope";
import { AgentRunNoticeFrameSchema } from "../execution/run-notice";
import { LearnSessionStateSchema } from "../learning/sessions/learn-session";
import { ObservationAdapterKindSchema } from "../learning/observed-actions/observation-adapter";
import { ObservedActionEventWithDetailSchema } from "../learning/observed-actions/observed-action";
import { PageSnapshotSchema } from "./page-snapshot";
import { AgentTabFrameSchema, ClientTabFrameSchema } from "./tab-relay-protocol";

/**
 * How observations travel to the agent (issue #4): the same batch over one WebSocket (the
 * extension) or `POST /api/observations/events` (desktop adapters). Each event is acknowledged
 * individually, only once it is durable, so a sender keeps in its outbox exactly what was not.
 */

/** A snapshot sent along with the events that reference it; the agent checks the hash. */
export const SnapshotUploadSchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  learn_session_id: z.string().uuid(),
  snapshot: PageSnapshotSchema,
});
export type SnapshotUpload = z.infer<typeof SnapshotUploadSchema>;

/**
 * A batch as sent. Events are `unknown` here on purpose: the agent validates each one on its own,
 * so one bad event is rejected with its reason while the rest of the batch is kept.
 */
export const ObservationBatchRequestSchema = z.object({
  batch_id: z.string().uuid(),
  events: z.array(z.unknown()).max(500),
  snapshots: z.array(z.unknown()).max(50).default([]),
  schema_version: z.literal(1),
});
export type ObservationBatchRequest = z.infer<typeof ObservationBatchRequestSchema>;

export const RejectedEventSchema = z.object({
  index: z.number().int().min(0),
  event_id: z.string().max(80).optional(),
  code: z.string().max(80),
  reason: z.string().max(240),
});
export type RejectedEvent = z.infer<typeof RejectedEventSchema>;

/**
 * The agent's answer to a batch. `accepted` and `duplicates` are durable (fsynced) and may leave
 * the sender's outbox; so may `dropped_off_target` and `refused` — they are counted, never stored —
 * and `rejected`, which will never become valid by resending.
 */
export const ObservationBatchAckSchema = z.object({
  batch_id: z.string().uuid(),
  accepted: z.array(z.string().uuid()),
  duplicates: z.array(z.string().uuid()),
  dropped_off_target: z.array(z.string().uuid()),
  /** Events for a session that is paused, stopped or finished: refused and counted. */
  refused: z.array(z.string().uuid()),
  rejected: z.array(RejectedEventSchema),
  snapshots_stored: z.array(z.string().regex(/^[0-9a-f]{64}$/)),
  /** Snapshots that will never be stored (bad hash, too large, unmasked URL, unknown session). */
  snapshots_rejected: z.array(z.object({ index: z.number().int().min(0), reason: z.string().max(240) })),
  schema_version: z.literal(1),
});
export type ObservationBatchAck = z.infer<typeof ObservationBatchAckSchema>;

/** The session facts a capturing client needs to mirror (badge, allow-list, masking). */
export const CaptureSessionStateSchema = z.object({
  learn_session_id: z.string().uuid(),
  state: LearnSessionStateSchema,
  target_app_whitelist: z.array(z.string().max(160)),
  redaction_modes: z.record(z.string(), z.string()),
});
export type CaptureSessionState = z.infer<typeof CaptureSessionStateSchema>;

/**
 * Client → agent over the WebSocket `GET /api/observations/stream`. The first frame must be `hello`.
 * The `tab_*` frames are the in-tab run relay (tab-relay-protocol.ts).
 */
export const ClientFrameSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    token: z.string().min(1).max(512),
    adapter_id: z.string().regex(/^[A-Za-z0-9._:-]{1,80}$/),
    adapter_kinds: z.array(ObservationAdapterKindSchema).min(1).max(13),
    schema_version: z.literal(1),
  }),
  z.object({ type: z.literal("batch"), batch: ObservationBatchRequestSchema }),
  z.object({ type: z.literal("heartbeat") }),
  ...ClientTabFrameSchema.options,
]);
export type ClientFrame = z.infer<typeof ClientFrameSchema>;

/**
 * Agent → client. `session` is pushed whenever the current learning session changes (null: none).
 * The `tab_*` frames are the in-tab run relay; `run_notice(s)` say which runs wait for the person (run-notice.ts).
 */
export const AgentFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("welcome"), agent_version: z.string().max(40), session: CaptureSessionStateSchema.nullable() }),
  z.object({ type: z.literal("ack"), ack: ObservationBatchAckSchema }),
  z.object({ type: z.literal("session"), session: CaptureSessionStateSchema.nullable() }),
  z.object({ type: z.literal("error"), envelope: ApiErrorEnvelopeSchema }),
  ...AgentTabFrameSchema.options,
  ...AgentRunNoticeFrameSchema.options,
]);
export type AgentFrame = z.infer<typeof AgentFrameSchema>;

/** WebSocket close codes the agent uses (4000–4999 are the application's). */
export const CAPTURE_CLOSE_CODES = {
  /** The first frame was not a valid hello with the right token. */
  unauthorized: 4401,
  /** A frame was not valid JSON or not a known frame. */
  badFrame: 4400,
  /** No hello within the time allowed. */
  helloTimeout: 4408,
} as const;

/** What ObservedActionEventWithDetail a batch event must parse as (re-exported for senders). */
export const BatchEventSchema = ObservedActionEventWithDetailSchema;

/**
 * `PUT /api/learn/sessions/:id/redaction`: the text-entry masking mode the user chose for this
 * session (§0C.22 privacy rule 4). `none` needs `consent: true`, recorded with a receipt;
 * secrets stay masked whatever the mode.
 */
export const SetRedactionRequestSchema = z
  .object({
    text_entry: z.enum(["mask_text", "hash_only", "none"]),
    consent: z.boolean().default(false),
  })
  .strict()
  .refine((request) => request.text_entry !== "none" || request.consent, {
    message: "Recording typed text (none) needs the user's explicit consent for this session",
    path: ["consent"],
  });
export type SetRedactionRequest = z.infer<typeof SetRedactionRequestSchema>;
