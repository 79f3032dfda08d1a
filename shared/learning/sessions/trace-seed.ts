import { z } from "zod";
import { DISPATCH_ID_PATTERN } from "../../common/dispatch-id";

/**
 * §0B.6 "Learn From This launches a new `LearnSession` from a completed run, trace set, receipt, or
 * recent action" (§1.1N: "on a successful or failed workflow → selects traces for proposal
 * creation"). The trace a new session starts from, named as the spec names each thing: a run by its
 * `dispatch_id` (§0.8), a session by its `learn_session_id`, a receipt by its `receipt_id` (a
 * learning receipt names its session, a checkpoint receipt of a run its `dispatch_id`).
 */
export const SourceTraceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), dispatch_id: z.string().regex(DISPATCH_ID_PATTERN) }).strict(),
  z.object({ kind: z.literal("learn_session"), learn_session_id: z.string().uuid() }).strict(),
  z.object({ kind: z.literal("receipt"), receipt_id: z.string().uuid() }).strict(),
]);
export type SourceTrace = z.infer<typeof SourceTraceSchema>;

/**
 * What a session was seeded with (the answer to `POST /api/learn/sessions` with `source_trace`, and
 * `GET /api/learn/sessions/:id/seed`): the trace's steps, pages and checkpoints by their labels —
 * never a typed value (a seeded field edit is always masked).
 */
export const TraceSeedSummarySchema = z.object({
  source: SourceTraceSchema,
  /** The run or session the trace came from, in words ("Failed run of Sign up"). */
  title: z.string().max(240),
  /** The ability a run was of. */
  ability_id: z.string().max(160).optional(),
  /** Step labels taken into the new session, in order. */
  steps: z.array(z.string().max(240)).max(200),
  /** Pages the trace passed through (URL with query values masked, title). */
  pages: z.array(z.object({ url: z.string().max(2048), title: z.string().max(200).optional() })).max(50),
  /** Hosts the trace touched: the sites the new session may watch. */
  sites: z.array(z.string().max(160)).max(20),
  /** Checkpoints the trace proved, and the one it did not, by goal. */
  checkpoints: z.array(z.object({ goal: z.string().max(240), status: z.enum(["reached", "failed", "not_reached"]) })).max(40),
  /** Where a failed run stopped: the step it could not do and why. */
  stopped_at: z.object({ step_label: z.string().max(240).optional(), message: z.string().max(1000) }).optional(),
  seeded_at: z.string().datetime(),
  schema_version: z.literal(1),
});
export type TraceSeedSummary = z.infer<typeof TraceSeedSummarySchema>;

/** `GET /api/learn/sessions/:sessionId/seed`: `seed` is null for a session that was not seeded. */
export const SessionSeedResponseSchema = z.object({
  learn_session_id: z.string().uuid(),
  seed: TraceSeedSummarySchema.nullable(),
  schema_version: z.literal(1),
});
export type SessionSeedResponse = z.infer<typeof SessionSeedResponseSchema>;
