import { z } from "zod";
import { ObservationAdapterKindSchema, ObservationAdapterStatusSchema } from "../observed-actions/observation-adapter";
import { ObservedActionEventWithDetailSchema } from "../observed-actions/observed-action";

/**
 * Request bodies of §0C.16 session routes that the spec lists without a schema. All optional:
 * a bare `POST …/start` is valid.
 */

/**
 * `POST /api/learn/sessions/:id/start`. `adapters_requested` lets a client ask for specific
 * observation adapters; asking for a Phase 2/3 one answers `ADAPTER_UNAVAILABLE` with the Phase 1
 * alternative (§0C.22 phase tiering, R11.2-44).
 */
export const StartSessionRequestSchema = z
  .object({
    adapters_requested: z.array(ObservationAdapterKindSchema).max(13).default([]),
  })
  .strict();
export type StartSessionRequest = z.infer<typeof StartSessionRequestSchema>;

/** `POST …/cancel`: an optional human reason, kept on the receipt. */
export const CancelSessionRequestSchema = z
  .object({
    reason: z.string().max(240).optional(),
  })
  .strict();
export type CancelSessionRequest = z.infer<typeof CancelSessionRequestSchema>;

/**
 * Who caused a boundary (§0C.22 `WorkflowBoundary.source`), sent by clients as the
 * `x-boundary-source` header; without it the agent infers `user_click` for the paired extension
 * and `api_call` for everything else. `system_inferred` is the agent's own and cannot be claimed.
 */
export const BoundarySourceHeaderSchema = z.enum(["user_click", "hotkey", "api_call"]);
export type BoundarySourceHeader = z.infer<typeof BoundarySourceHeaderSchema>;

/**
 * `POST /api/observation/adapters/heartbeat`: a local adapter (desktop CLI, wrapper) says it is
 * alive; the agent counts it healthy while heartbeats keep coming (§0C.22 adapter status).
 */
export const AdapterHeartbeatRequestSchema = z
  .object({
    adapter_id: z.string().regex(/^[A-Za-z0-9._:-]{1,80}$/),
    kind: ObservationAdapterKindSchema,
    enabled: z.boolean().default(true),
    last_error_code: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
export type AdapterHeartbeatRequest = z.infer<typeof AdapterHeartbeatRequestSchema>;

/** `GET /api/observation/adapters`. */
export const ObservationAdaptersResponseSchema = z.object({
  adapters: z.array(ObservationAdapterStatusSchema),
  schema_version: z.literal(1),
});
export type ObservationAdaptersResponse = z.infer<typeof ObservationAdaptersResponseSchema>;

/**
 * `POST /api/learn/sessions/:sessionId/retain-observations`: §0C.16D's `retain=true` flag. Raw
 * observations are purged 7 days after a session ends unless the user keeps them; `false` takes
 * the flag back, and the next retention run purges them if they are already due.
 */
export const RetainObservationsRequestSchema = z
  .object({
    retain: z.boolean(),
  })
  .strict();
export type RetainObservationsRequest = z.infer<typeof RetainObservationsRequestSchema>;

/** Answer of `POST …/retain-observations`: the flag as now stored. */
export const RetainObservationsResponseSchema = z.object({
  learn_session_id: z.string().uuid(),
  retain: z.boolean(),
});
export type RetainObservationsResponse = z.infer<typeof RetainObservationsResponseSchema>;

/** The stored flag, `system/learning/observation_retention/<sessionId>.json` (§0C.16D). */
export const ObservationRetentionRecordSchema = z.object({
  retain: z.boolean(),
  set_at: z.string().datetime(),
});
export type ObservationRetentionRecord = z.infer<typeof ObservationRetentionRecordSchema>;

/** `GET /api/learn/sessions/:id/observations`: the captured events, oldest first, after a cursor. */
export const SessionObservationsQuerySchema = z.object({
  after: z.string().uuid().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(200),
});
export type SessionObservationsQuery = z.infer<typeof SessionObservationsQuerySchema>;

export const SessionObservationsResponseSchema = z.object({
  events: z.array(ObservedActionEventWithDetailSchema),
  total: z.number().int().min(0),
  excluded_event_ids: z.array(z.string().uuid()),
  schema_version: z.literal(1),
});
export type SessionObservationsResponse = z.infer<typeof SessionObservationsResponseSchema>;

/**
 * `POST /api/learn/sessions/:id/exclude-events`: leave events out of the proposal (issue #7
 * "exclude events") or put them back; the events themselves are kept until the session's purge.
 */
export const ExcludeEventsRequestSchema = z
  .object({
    event_ids: z.array(z.string().uuid()).min(1).max(500),
    excluded: z.boolean().default(true),
  })
  .strict();
export type ExcludeEventsRequest = z.infer<typeof ExcludeEventsRequestSchema>;

/** `GET /api/learn/proposals/:id/skill-md`: the current draft SKILL.md, as text. */
export const ProposalSkillMarkdownResponseSchema = z.object({
  proposal_id: z.string().uuid(),
  markdown: z.string().max(200_000),
  schema_version: z.literal(1),
});
export type ProposalSkillMarkdownResponse = z.infer<typeof ProposalSkillMarkdownResponseSchema>;

/** `POST /api/abilities/:id/quarantine`: why (kept on the receipt and shown in Skills). */
export const QuarantineAbilityRequestSchema = z.object({ reason: z.string().min(1).max(240) }).strict();
export type QuarantineAbilityRequest = z.infer<typeof QuarantineAbilityRequestSchema>;

/**
 * `POST /api/learn/proposals/:id/validate`: §0C.28's StartValidationRunRequest plus the values
 * the rehearsal types into the skill's inputs. They are the user's test values, given now —
 * never values from the demonstration — and they are used for the run only, never stored.
 */
export const ValidateProposalRequestSchema = z
  .object({
    run_label: z.string().max(120).optional(),
    selected_tests: z.array(z.enum(["lint", "trigger", "dependency_check", "rehearsal"])).default([]),
    client_request_id: z.string().max(120).optional(),
    test_values: z.record(z.string().regex(/^[a-z0-9_]{1,60}$/), z.string().max(1000)).default({}),
    schema_version: z.literal(1),
  })
  .strict();
export type ValidateProposalRequest = z.infer<typeof ValidateProposalRequestSchema>;
