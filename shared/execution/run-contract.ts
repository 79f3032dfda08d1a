import { z } from "zod";
import { DISPATCH_ID_PATTERN } from "../common/dispatch-id";

export { DISPATCH_ID_PATTERN };
import { SkillInputTypeSchema } from "./checkpoint-plan";
import { CheckpointProgressStatusSchema } from "../learning/checkpoints/checkpoint-receipt";
import { TestPolicySchema } from "../learning/sessions/test-policy";
import { GRANT_ID_PATTERN, GrantOfferSchema, StandingGrantTermsSchema } from "./run-grants";

/**
 * Issue #21 "Use it later": a run of an installed ability. R11.2 has no run resource; it has
 * dispatches (§0.8 `dispatch_id`, §0C.9B `GET /api/dispatches/:dispatchId/checkpoint-receipts`),
 * so a run is a dispatch and is named by its `dispatch_id` everywhere: in these routes, in its
 * checkpoint receipts and in its capability-use receipt.
 *
 * Routes (all behind the pairing token, documented in the OpenAPI description):
 * - `GET  /api/abilities/:abilityId/run-spec`   what a run needs ({@link AbilityRunSpec})
 * - `POST /api/runs`                            start ({@link StartRunRequest}) → 202 {@link RunResponse}
 * - `GET  /api/runs`                            past and current runs ({@link RunListResponse})
 * - `GET  /api/runs/:dispatchId`                one run ({@link RunResponse})
 * - `GET  /api/runs/:dispatchId/events`         SSE with `Last-Event-ID` replay ({@link RunEventEnvelope})
 * - `POST /api/runs/:dispatchId/confirm`        the person's answer ({@link ConfirmRunStepRequest})
 * - `POST /api/runs/:dispatchId/cancel`         stop now ({@link CancelRunRequest})
 */

export const ABILITY_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,159}$/;

/** Where the executor acts: a fresh managed headless Chromium (default), or a tab of the user's own Chrome through the extension. */
export const RunWhereSchema = z.enum(["managed", "user_tab"]);
export type RunWhere = z.infer<typeof RunWhereSchema>;

/**
 * Who started the run: the side panel, an assistant on the HTTP API, the MCP server (issue #19), or
 * the agent's own scheduler for one of the person's schedules (issue #33; refused from outside).
 */
export const RunCallerSchema = z.enum(["side_panel", "api", "mcp", "schedule"]);
export type RunCaller = z.infer<typeof RunCallerSchema>;

/**
 * `needs_confirmation`: the run is paused before a step with consequences and waits for the
 * person's answer. `interrupted`: the agent stopped (crash, SIGKILL, restart) while the run was
 * not over; it is never resumed on its own.
 */
export const RunStateSchema = z.enum(["starting", "running", "needs_confirmation", "succeeded", "failed", "cancelled", "interrupted"]);
export type RunState = z.infer<typeof RunStateSchema>;
export const TERMINAL_RUN_STATES: ReadonlySet<RunState> = new Set(["succeeded", "failed", "cancelled", "interrupted"]);

/** One input of an ability, as an assistant must supply it. `secret` values are used and forgotten. */
export const RunInputSpecSchema = z.object({
  name: z.string().max(80),
  label: z.string().max(160),
  type: SkillInputTypeSchema,
  secret: z.boolean(),
  required: z.boolean(),
});
export type RunInputSpec = z.infer<typeof RunInputSpecSchema>;

export const RunCheckpointSpecSchema = z.object({
  checkpoint_id: z.string().max(80),
  goal: z.string().max(240),
  /** Who confirms it: the page (checked by the executor) or a person. */
  verified_by: z.enum(["page", "person"]),
});
export type RunCheckpointSpec = z.infer<typeof RunCheckpointSpecSchema>;

/** `GET /api/abilities/:abilityId/run-spec`: the step between lookup and run. */
export const AbilityRunSpecSchema = z.object({
  ability_id: z.string().max(160),
  title: z.string().max(160),
  description: z.string().max(500),
  /** False when the ability has no flow, is disabled or quarantined; `not_runnable_reason` says which. */
  runnable: z.boolean(),
  not_runnable_reason: z.string().max(240).optional(),
  inputs: z.array(RunInputSpecSchema),
  /** Hosts the ability was learned on: a run may touch only these and the ones allowed for that run. */
  sites: z.array(z.string().max(120)),
  checkpoints: z.array(RunCheckpointSpecSchema),
  checkpoint_health: z.enum(["strong", "moderate", "weak", "no_data", "quarantined"]).optional(),
  /** Step labels that pause for the person's confirmation (send, pay, delete, publish). */
  confirmation_steps: z.array(z.string().max(240)),
  schema_version: z.literal(1),
});
export type AbilityRunSpec = z.infer<typeof AbilityRunSpecSchema>;

/** Input values by input name. A value is at most 10 000 characters; secrets travel only in this request. */
export const RunInputValuesSchema = z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,80}$/), z.string().max(10_000));

/** `POST /api/runs` */
export const StartRunRequestSchema = z
  .object({
    ability_id: z.string().regex(ABILITY_ID_PATTERN),
    inputs: RunInputValuesSchema.default({}),
    where: RunWhereSchema.default("managed"),
    /** `user_tab`: the tab to act in; without it the extension opens a new tab. */
    tab_id: z.number().int().min(0).optional(),
    /** Hosts beyond the ability's own that this run may touch (the person allowed them for this run). */
    allowed_sites: z.array(z.string().max(120)).max(20).default([]),
    /** A run under a §0C.14 test policy obeys it exactly as a rehearsal does. */
    test_policy: TestPolicySchema.optional(),
    caller: RunCallerSchema.default("api"),
    schema_version: z.literal(1),
  })
  .strict();
export type StartRunRequest = z.infer<typeof StartRunRequestSchema>;

/** Why a step waits for the person. */
export const ConfirmationReasonSchema = z.enum(["committing_submit", "destructive", "marked"]);
export type ConfirmationReason = z.infer<typeof ConfirmationReasonSchema>;

export const PendingConfirmationSchema = z.object({
  confirmation_id: z.string().uuid(),
  step_label: z.string().max(240),
  reason: ConfirmationReasonSchema,
  asked_at: z.string().datetime(),
  /**
   * Issue #33: the terms an "Always allow this step for this skill" grant would have (skill version,
   * step, site, the inputs it would hold to, the delete/pay classes to tick), shown before the person
   * chooses. Absent when this step cannot be allowed for good (the skill has no version, the page no site).
   */
  grant_offer: GrantOfferSchema.optional(),
});
export type PendingConfirmation = z.infer<typeof PendingConfirmationSchema>;

/** `POST /api/runs/:dispatchId/confirm`: only the person's answer; the MCP server offers no such tool. */
export const ConfirmRunStepRequestSchema = z
  .object({
    confirmation_id: z.string().uuid(),
    decision: z.enum(["confirm", "decline"]),
    /** Issue #33: with `confirm`, also allow this step for good under these terms (shared/execution/run-grants.ts). */
    always_allow: StandingGrantTermsSchema.optional(),
    schema_version: z.literal(1),
  })
  .strict();
export type ConfirmRunStepRequest = z.infer<typeof ConfirmRunStepRequestSchema>;

/** `POST /api/runs/:dispatchId/cancel` */
export const CancelRunRequestSchema = z.object({ reason: z.string().max(240).optional(), schema_version: z.literal(1) }).strict();
export type CancelRunRequest = z.infer<typeof CancelRunRequestSchema>;

/** One step as the run did it; labels and details never carry an input value. */
export const RunStepResultSchema = z.object({
  step_id: z.string().max(160),
  label: z.string().max(240),
  result: z.enum(["passed", "failed", "skipped"]),
  details: z.string().max(1000),
  /** A target found by similarity after every recorded selector missed. */
  relocated: z.object({ from: z.string().max(240), to: z.string().max(240) }).optional(),
  /**
   * Issue #33: the standing grant that let this step through without asking. §0.8's receipt has no
   * field for it (its `approval_mode` says `standing_order`), so the run record says which grant.
   */
  standing_grant_id: z.string().regex(GRANT_ID_PATTERN).optional(),
});
export type RunStepResult = z.infer<typeof RunStepResultSchema>;

export const RunCheckpointResultSchema = z.object({
  checkpoint_id: z.string().max(80),
  goal: z.string().max(240),
  status: CheckpointProgressStatusSchema,
  evidence: z.string().max(1000).optional(),
});
export type RunCheckpointResult = z.infer<typeof RunCheckpointResultSchema>;

/** What the page showed where a run stopped, so a person sees why (never an input value). */
export const PageSeenSchema = z.object({
  url: z.string().max(2000),
  title: z.string().max(240),
  headings: z.array(z.string().max(160)).max(20),
  buttons: z.array(z.string().max(160)).max(40),
  /** `GET /api/runs/:dispatchId/screenshot` serves it; kept with the run. */
  screenshot_ref: z.string().max(240).optional(),
});
export type PageSeen = z.infer<typeof PageSeenSchema>;

/** A run as stored in `system/execution/runs/<dispatch_id>.json` and returned by every run route. */
export const RunRecordSchema = z.object({
  dispatch_id: z.string().regex(DISPATCH_ID_PATTERN),
  ability_id: z.string().max(160),
  ability_title: z.string().max(160),
  state: RunStateSchema,
  where: RunWhereSchema,
  caller: RunCallerSchema,
  /** Names of the inputs given; values are never stored. */
  input_names: z.array(z.string().max(80)),
  steps: z.array(RunStepResultSchema),
  checkpoints: z.array(RunCheckpointResultSchema),
  pending_confirmation: PendingConfirmationSchema.optional(),
  /** Set once the run is over and did not succeed: the first thing that did not hold. */
  failure: z
    .object({
      code: z.string().max(80),
      message: z.string().max(1000),
      page_seen: PageSeenSchema.optional(),
    })
    .optional(),
  started_at: z.string().datetime(),
  updated_at: z.string().datetime(),
  completed_at: z.string().datetime().optional(),
  schema_version: z.literal(1),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

export const RunResponseSchema = z.object({ run: RunRecordSchema, schema_version: z.literal(1) });
export type RunResponse = z.infer<typeof RunResponseSchema>;

export const RunListResponseSchema = z.object({
  runs: z.array(RunRecordSchema),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1),
  schema_version: z.literal(1),
});
export type RunListResponse = z.infer<typeof RunListResponseSchema>;

/** SSE `event:` names of `GET /api/runs/:dispatchId/events`; every frame carries the whole run as it is now. */
export const RunEventKindSchema = z.enum(["run.state", "run.step", "run.checkpoint", "run.needs_confirmation", "run.finished"]);
export type RunEventKind = z.infer<typeof RunEventKindSchema>;

export const RunEventEnvelopeSchema = z.object({
  event: RunEventKindSchema,
  run: RunRecordSchema,
  schema_version: z.literal(1),
});
export type RunEventEnvelope = z.infer<typeof RunEventEnvelopeSchema>;
