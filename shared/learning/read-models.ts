import { z } from "zod";
import { CheckpointVerificationReceiptSchema } from "./checkpoints/checkpoint-receipt";
import { SkillBundleProposalSchema } from "../skills/proposal";
import { ValidationRunSchema } from "./proposals/validation-run";
import { LearnSessionEventSchema } from "./route-contracts";

/**
 * §0C.16E `GET /api/learn/sessions/:sessionId/observation-scope`. Transcribed as written, although
 * its `observation_mode` values (`watch_actions`, …) are not ObservationModeSchema's and §0C.16A
 * maps the same route to ObservationScopeRuntimeSchema.
 */
export const LearnObservationScopeResponseSchema = z.object({
  session_id: z.string().uuid(),
  observation_mode: z.enum(["none", "watch_actions", "watch_with_audio", "watch_with_notes"]),
  capture_state: z.enum(["idle", "capturing", "paused", "stopped"]),
  active_runtime: z.enum(["none", "openclaw_native", "bridge_observer"]).default("none"),
  started_at: z.string().datetime().optional(),
  stopped_at: z.string().datetime().optional(),
  schema_version: z.literal(1),
});
/** §0C.16E */
export type LearnObservationScopeResponse = z.infer<typeof LearnObservationScopeResponseSchema>;

/** §0C.16E `GET /api/learn/sessions/:sessionId/checkpoint-receipts` (paginated form of §0C.16A's row). */
export const LearnCheckpointReceiptsResponseSchema = z.object({
  receipts: z.array(CheckpointVerificationReceiptSchema).default([]),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(100),
  schema_version: z.literal(1),
});
/** §0C.16E */
export type LearnCheckpointReceiptsResponse = z.infer<typeof LearnCheckpointReceiptsResponseSchema>;

/** §0C.16E `GET /api/learn/proposals` */
export const LearnProposalsListResponseSchema = z.object({
  proposals: z.array(SkillBundleProposalSchema).default([]),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(100),
  schema_version: z.literal(1),
});
/** §0C.16E */
export type LearnProposalsListResponse = z.infer<typeof LearnProposalsListResponseSchema>;

/** §0C.16E `GET /api/learn/proposals/:proposalId/validation-runs` */
export const ValidationRunsListResponseSchema = z.object({
  runs: z.array(ValidationRunSchema).default([]),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(100),
  schema_version: z.literal(1),
});
/** §0C.16E */
export type ValidationRunsListResponse = z.infer<typeof ValidationRunsListResponseSchema>;

/**
 * §0C.16E One SSE message: `event` repeats the SSE event name (a LearnStreamEventKind, where
 * `"error"` must surface as a degraded banner) and `data` is the §0C.16A event.
 */
export const LearnSessionEventEnvelopeSchema = z.object({
  event: z.string().max(80),
  data: LearnSessionEventSchema,
  schema_version: z.literal(1),
});
/** §0C.16E */
export type LearnSessionEventEnvelope = z.infer<typeof LearnSessionEventEnvelopeSchema>;
