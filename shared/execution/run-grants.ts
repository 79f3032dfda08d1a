import { z } from "zod";

/**
 * Issue #33 "Standing approvals bound to terms": when the person answers a step with consequences,
 * they may allow it for good under stated terms. A later run of the same skill proceeds past that
 * step without asking only while every term holds:
 * - the skill (`ability_id`) and its installed `skill_version` (a new version asks again);
 * - the step (`step_id` and its `step_label`);
 * - the site the page is on when the step is asked about (`site_host`, host and port);
 * - the inputs: `exact` (the run's non-secret input values, held only as keyed hashes — HMAC-SHA-256
 *   under a per-install key in `system/agent/grant_key`, mode 0600; never the values; secret inputs
 *   are never part of the terms) or `any`;
 * - the delete/pay classes the step belongs to (`consequence_classes`): a step that deletes or pays is
 *   covered only when the person ticked that class explicitly;
 * - not revoked, and not past `expires_at` when one was given.
 *
 * Routes (behind the pairing token, in the OpenAPI description):
 * - `POST /api/runs/:dispatchId/confirm` with `always_allow` ({@link StandingGrantTermsSchema}) creates one;
 * - `GET  /api/abilities/:abilityId/grants` lists an ability's grants ({@link RunGrantListResponseSchema});
 * - `POST /api/abilities/:abilityId/grants/:grantId/revoke` revokes one at once ({@link RunGrantResponseSchema}).
 * The MCP server offers no way to create a grant: only the person does, in the side panel.
 */

export const GRANT_ID_PATTERN = /^grant-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * What a step does that no grant covers unless the person ticked it: it deletes, or it pays. The
 * executor reads it from the words of the control the step presses (agent/execution/replay/flow-plan.ts,
 * the same word list that makes it ask at all).
 */
export const ConsequenceClassSchema = z.enum(["deletes", "pays"]);
export type ConsequenceClass = z.infer<typeof ConsequenceClassSchema>;

/** Which input values a grant holds to: the run's exact (non-secret) values, or any. */
export const GrantInputsModeSchema = z.enum(["exact", "any"]);
export type GrantInputsMode = z.infer<typeof GrantInputsModeSchema>;

/** What the person chooses in "Always allow this step for this skill"; the rest of the terms come from the step asked about. */
export const StandingGrantTermsSchema = z
  .object({
    inputs: GrantInputsModeSchema,
    /** Every delete/pay class of the step must be ticked here, or the grant is refused (REQUEST_INVALID). */
    consequence_classes: z.array(ConsequenceClassSchema).max(2).default([]),
    /** Optional expiry, in the future. */
    expires_at: z.string().datetime().optional(),
  })
  .strict();
export type StandingGrantTerms = z.infer<typeof StandingGrantTermsSchema>;

const INPUT_NAME = z.string().regex(/^[A-Za-z0-9_.-]{1,80}$/);
const KEYED_HASH = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * One grant as the agent keeps it (`system/execution/grants/grants_current.json`): the terms and
 * their bookkeeping. `input_hashes` (exact inputs only) maps each non-secret input's name to the
 * keyed hash of its value; the values themselves are never kept.
 */
export const StoredRunGrantSchema = z.object({
  grant_id: z.string().regex(GRANT_ID_PATTERN),
  ability_id: z.string().max(160),
  ability_title: z.string().max(160),
  skill_version: z.string().max(32),
  step_id: z.string().max(160),
  step_label: z.string().max(240),
  site_host: z.string().max(200),
  inputs: GrantInputsModeSchema,
  /** The non-secret inputs the terms hold to (exact), by name. */
  input_names: z.array(INPUT_NAME).max(100),
  input_hashes: z.record(INPUT_NAME, KEYED_HASH).optional(),
  consequence_classes: z.array(ConsequenceClassSchema).max(2),
  /** The run whose confirmation created it. */
  created_from_dispatch_id: z.string().max(200),
  created_at: z.string().datetime(),
  expires_at: z.string().datetime().optional(),
  last_used_at: z.string().datetime().optional(),
  use_count: z.number().int().min(0),
  revoked_at: z.string().datetime().optional(),
  schema_version: z.literal(1),
});
export type StoredRunGrant = z.infer<typeof StoredRunGrantSchema>;

/** A grant as the API shows it: its terms in words a panel can spell out, never the keyed hashes. */
export const RunGrantSchema = StoredRunGrantSchema.omit({ input_hashes: true }).extend({
  state: z.enum(["active", "expired", "revoked"]),
});
export type RunGrant = z.infer<typeof RunGrantSchema>;

export const RunGrantListResponseSchema = z.object({
  ability_id: z.string().max(160),
  /** Newest first; revoked grants are left out. */
  grants: z.array(RunGrantSchema),
  schema_version: z.literal(1),
});
export type RunGrantListResponse = z.infer<typeof RunGrantListResponseSchema>;

export const RunGrantResponseSchema = z.object({ grant: RunGrantSchema, schema_version: z.literal(1) });
export type RunGrantResponse = z.infer<typeof RunGrantResponseSchema>;

export const RevokeRunGrantRequestSchema = z.object({ schema_version: z.literal(1) }).strict();

/** One line of `system/execution/grants/grants.jsonl`: what happened to a grant, append-only. */
export const RunGrantLogEntrySchema = z.discriminatedUnion("event", [
  z.object({ event: z.literal("grant.created"), grant: StoredRunGrantSchema, at: z.string().datetime() }),
  z.object({
    event: z.literal("grant.used"),
    grant_id: z.string().regex(GRANT_ID_PATTERN),
    ability_id: z.string().max(160),
    dispatch_id: z.string().max(200),
    step_id: z.string().max(160),
    at: z.string().datetime(),
  }),
  z.object({
    event: z.literal("grant.revoked"),
    grant_id: z.string().regex(GRANT_ID_PATTERN),
    ability_id: z.string().max(160),
    reason: z.enum(["person", "ability_deleted"]),
    at: z.string().datetime(),
  }),
]);
export type RunGrantLogEntry = z.infer<typeof RunGrantLogEntrySchema>;

/** What the panel shows before the person chooses "Always allow": the terms a grant would have. */
export const GrantOfferSchema = z.object({
  skill_version: z.string().max(32),
  step_id: z.string().max(160),
  site_host: z.string().max(200),
  /** The non-secret inputs an "exact inputs" grant would hold to. */
  input_names: z.array(INPUT_NAME).max(100),
  /** The delete/pay classes the step belongs to: each must be ticked for a grant to cover it. */
  consequence_classes: z.array(ConsequenceClassSchema).max(2),
});
export type GrantOffer = z.infer<typeof GrantOfferSchema>;
