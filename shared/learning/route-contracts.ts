import { z } from "zod";
import { LearnSessionSchema } from "./sessions/learn-session";
import { SemanticWorkflowInterpretationSchema } from "./checkpoints/semantic-workflow-interpretation";
import { ValidationRunSchema, ValidationStepResultSchema } from "./proposals/validation-run";
import { TestPolicySchema } from "./sessions/test-policy";
import { SkillBundleProposalSchema } from "../skills/proposal";
import { LearningReceiptSchema } from "./sessions/receipts";
import { SkillDeltaSchema } from "./proposals/skill-delta";

// §0C.16A also imports the runtime snapshot, observation scope, checkpoint receipt and lookup
// schemas, but only to name them in its route table: those routes answer with the schemas
// themselves, so nothing is re-declared here. Failures on every route use ApiErrorEnvelopeSchema.

// --- Session lifecycle ---

/** §0C.16A pause, resume, cancel, mark-goal, mark-step, trim, set-test-policy. */
export const SessionActionResponseSchema = z.object({
  session: LearnSessionSchema,
});
/** §0C.16A */
export type SessionActionResponse = z.infer<typeof SessionActionResponseSchema>;

/** §0C.16A `POST /api/learn/sessions/:sessionId/start` */
export const StartSessionResponseSchema = z.object({
  session: LearnSessionSchema,
  observation_active: z.boolean(),
  adapters_armed: z.array(z.string().max(80)).default([]),
});
/** §0C.16A */
export type StartSessionResponse = z.infer<typeof StartSessionResponseSchema>;

/** §0C.16A `POST /api/learn/sessions/:sessionId/stop` */
export const StopSessionResponseSchema = z.object({
  session: LearnSessionSchema,
  captured_event_count: z.number().int().min(0),
  captured_trace_ids: z.array(z.string().uuid()).default([]),
  next_action: z.enum(["review_captured", "generate_proposal", "cancel"]),
});
/** §0C.16A */
export type StopSessionResponse = z.infer<typeof StopSessionResponseSchema>;

/** §0C.16A `POST /api/learn/sessions/:sessionId/mark-goal` */
export const MarkGoalRequestSchema = z.object({
  goal_description: z.string().max(400),
  at_event_id: z.string().uuid().optional(),
});
/** §0C.16A */
export type MarkGoalRequest = z.infer<typeof MarkGoalRequestSchema>;

/** §0C.16A `POST /api/learn/sessions/:sessionId/mark-step` */
export const MarkStepRequestSchema = z.object({
  step_label: z.string().max(240),
  step_kind_hint: z.enum(["action", "guard", "verification", "decision", "other"]).default("action"),
  at_event_id: z.string().uuid().optional(),
});
/** §0C.16A */
export type MarkStepRequest = z.infer<typeof MarkStepRequestSchema>;

/** §0C.16A `POST /api/learn/sessions/:sessionId/trim` */
export const TrimRequestSchema = z.object({
  trim_kind: z.enum(["trim_start", "trim_end"]),
  to_event_id: z.string().uuid(),
});
/** §0C.16A */
export type TrimRequest = z.infer<typeof TrimRequestSchema>;

/** §0C.16A `POST /api/learn/sessions/:sessionId/answer-questions` */
export const AnswerQuestionsRequestSchema = z.object({
  answers: z
    .array(
      z.object({
        question_id: z.string().max(80),
        answer_text: z.string().max(2000),
      }),
    )
    .min(1),
});
/** §0C.16A */
export type AnswerQuestionsRequest = z.infer<typeof AnswerQuestionsRequestSchema>;

/** §0C.16A */
export const AnswerQuestionsResponseSchema = z.object({
  session: LearnSessionSchema,
  remaining_questions: z.number().int().min(0),
  next_action: z.enum(["more_questions", "generate_proposal", "ready_for_review"]),
});
/** §0C.16A */
export type AnswerQuestionsResponse = z.infer<typeof AnswerQuestionsResponseSchema>;

/** §0C.16A `POST /api/learn/sessions/:sessionId/set-test-policy` */
export const SetTestPolicyRequestSchema = z.object({
  test_policy: TestPolicySchema,
});
/** §0C.16A */
export type SetTestPolicyRequest = z.infer<typeof SetTestPolicyRequestSchema>;

/** §0C.16A `POST /api/learn/sessions/:sessionId/generate-proposal` */
export const GenerateProposalResponseSchema = z.object({
  session: LearnSessionSchema,
  proposal_id: z.string().uuid(),
});
/** §0C.16A */
export type GenerateProposalResponse = z.infer<typeof GenerateProposalResponseSchema>;

// --- Proposal lifecycle ---

/**
 * DESIGN §6 step 4: what the optional model refiner did to a draft revision's wording. `reason`
 * says why the deterministic wording was kept; it is absent when the model's wording is used.
 */
export const RefinementOutcomeSchema = z.object({
  used: z.enum(["model", "deterministic"]),
  model: z.string().max(200).optional(),
  reason: z.string().max(240).optional(),
});

/** §0C.16A detail, revise, approve and reject all answer with this. */
export const ProposalDetailResponseSchema = z.object({
  proposal: SkillBundleProposalSchema,
  interpretation: SemanticWorkflowInterpretationSchema.optional(),
  checkpoint_lint_report: z.unknown().optional(),
  questions: z
    .array(
      z.object({
        question_id: z.string().max(80),
        question_text: z.string().max(400),
        /** Ours, not §0C.16A: the question's `LearningQuestion.required`; the text of an optional one also ends in "(optional)". */
        required: z.boolean().optional(),
        answered: z.boolean(),
        answer_text: z.string().max(2000).optional(),
      }),
    )
    .default([]),
  /** Ours, not §0C.16A: what the optional model refiner did to this revision's wording. */
  wording_refinement: RefinementOutcomeSchema.optional().describe(
    "Present only when a model refiner is configured: whether its wording was used, and if not, why.",
  ),
  /**
   * Ours, not §0C.16A: for a proposal that improves an installed skill (`target_kind =
   * existing_skill`), its changes to that skill (./skill-delta). Absent for a new skill.
   */
  skill_delta: SkillDeltaSchema.optional().describe(
    "Present only when the proposal improves an installed skill (target_kind = existing_skill): its changes to that skill.",
  ),
});
/** §0C.16A */
export type ProposalDetailResponse = z.infer<typeof ProposalDetailResponseSchema>;

/** §0C.16A `POST /api/learn/proposals/:proposalId/revise` */
export const ProposalReviseRequestSchema = z.object({
  revision_instructions: z.string().max(2000),
  edited_fields: z.record(z.string(), z.unknown()).default({}),
});
/** §0C.16A */
export type ProposalReviseRequest = z.infer<typeof ProposalReviseRequestSchema>;

/**
 * §0C.16A `POST /api/learn/proposals/:proposalId/install`. Shared promotion is deliberately not a
 * lane here: it goes through approve / promote-shared, an explicit user action.
 */
export const ProposalInstallRequestSchema = z.object({
  install_lane: z.enum(["experimental_private", "approved_workspace"]),
});
/** §0C.16A */
export type ProposalInstallRequest = z.infer<typeof ProposalInstallRequestSchema>;

/** §0C.16A */
export const ProposalInstallResponseSchema = z.object({
  proposal: SkillBundleProposalSchema,
  ability_id: z.string().max(160),
  saga_id: z.string().uuid(),
});
/** §0C.16A */
export type ProposalInstallResponse = z.infer<typeof ProposalInstallResponseSchema>;

/**
 * §0C.16A `GET /api/learn/proposals/:proposalId/validation-runs`. §0C.16E maps the same route to
 * the paginated ValidationRunsListResponseSchema (./read-models), which has no `steps`.
 */
export const ValidationRunsResponseSchema = z.object({
  runs: z.array(ValidationRunSchema),
  steps: z.array(ValidationStepResultSchema),
});
/** §0C.16A */
export type ValidationRunsResponse = z.infer<typeof ValidationRunsResponseSchema>;

// --- Ability lifecycle ---

/** §0C.16A `GET /api/abilities/availability` */
export const AbilityAvailabilityResponseSchema = z.object({
  abilities: z.array(
    z.object({
      ability_id: z.string().max(160),
      title: z.string().max(200),
      family: z.string().max(80),
      install_lane: z.string(),
      enabled: z.boolean(),
      usable_now: z.boolean(),
      reason_unusable: z.string().max(240).optional(),
      checkpoint_health: z.enum(["strong", "moderate", "weak", "no_data", "quarantined"]).optional(),
      source: z.enum(["learned", "imported", "native", "promoted"]),
      // Ours, beyond §0C.16A (the Skills card shows them): from the §0C.11A entry.
      skill_version: z.string().max(32).optional(),
      last_validated_at: z.string().datetime().optional(),
      last_validation_result: ValidationRunSchema.shape.overall_result.optional(),
    }),
  ),
  snapshot_as_of: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.16A */
export type AbilityAvailabilityResponse = z.infer<typeof AbilityAvailabilityResponseSchema>;

/** §0C.16A `POST /api/abilities/explain-match` */
export const AbilityExplainMatchRequestSchema = z.object({
  user_query: z.string().max(500),
  ability_id: z.string().max(160),
  project_id: z.string().max(120).optional(),
});
/** §0C.16A */
export type AbilityExplainMatchRequest = z.infer<typeof AbilityExplainMatchRequestSchema>;

/** §0C.16A */
export const AbilityExplainMatchResponseSchema = z.object({
  ability_id: z.string().max(160),
  matched: z.boolean(),
  score: z.number().min(0).max(1),
  match_reasons: z.array(z.string().max(240)).default([]),
  rejection_reasons: z.array(z.string().max(240)).default([]),
});
/** §0C.16A */
export type AbilityExplainMatchResponse = z.infer<typeof AbilityExplainMatchResponseSchema>;

// --- History and receipts ---

/** §0C.16A `GET /api/learn/history` */
export const LearnHistoryResponseSchema = z.object({
  items: z.array(
    z.object({
      learn_session_id: z.string().uuid(),
      entry_mode: z.string(),
      state: z.string(),
      title: z.string().max(200).optional(),
      created_at: z.string().datetime(),
      completed_at: z.string().datetime().optional(),
      proposal_id: z.string().uuid().optional(),
      ability_id: z.string().max(160).optional(),
      outcome: z.enum(["approved", "rejected", "cancelled", "in_progress", "quarantined"]).optional(),
    }),
  ),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(100),
});
/** §0C.16A */
export type LearnHistoryResponse = z.infer<typeof LearnHistoryResponseSchema>;

/** §0C.16A `GET /api/learn/receipts` */
export const LearnReceiptsResponseSchema = z.object({
  receipts: z.array(LearningReceiptSchema),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(100),
});
/** §0C.16A */
export type LearnReceiptsResponse = z.infer<typeof LearnReceiptsResponseSchema>;

// --- Events SSE stream ---

/**
 * §0C.16A One `data:` payload on `GET /api/learn/sessions/:sessionId/events`; the SSE `event:` name
 * is a LearnStreamEventKind (./lifecycle-event). The client subscribes on session creation and
 * stops on a terminal state.
 */
export const LearnSessionEventSchema = z.object({
  event_kind: z.string().max(80),
  session_id: z.string().uuid(),
  payload: z.record(z.string(), z.unknown()).default({}),
  timestamp: z.string().datetime(),
});
/** §0C.16A */
export type LearnSessionEvent = z.infer<typeof LearnSessionEventSchema>;

// --- Named forms of the route table's inline shapes (§0C.16A mapping, §0C.16E names) ---

/**
 * §0C.16E name, §0C.16A shape: query of every paginated list route. Query strings arrive as text,
 * hence the coercion; the bounds match the `page` / `page_size` of the list responses.
 */
export const PaginationQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});
/** §0C.16A */
export type PaginationQuery = z.infer<typeof PaginationQuerySchema>;

/** §0C.16E name, §0C.16A shape `{ sessions: LearnSessionSchema[], total, page, page_size }`. */
export const LearnSessionsListResponseSchema = z.object({
  sessions: z.array(LearnSessionSchema),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(100),
});
/** §0C.16E */
export type LearnSessionsListResponse = z.infer<typeof LearnSessionsListResponseSchema>;

/** §0C.16E name; §0C.16A maps `GET …/detail` to the bare LearnSessionSchema. */
export const LearnSessionDetailResponseSchema = LearnSessionSchema;
/** §0C.16E */
export type LearnSessionDetailResponse = z.infer<typeof LearnSessionDetailResponseSchema>;

/** §0C.16A `DELETE /api/learn/sessions/:sessionId` → `{ deleted: true }`. */
export const DeleteSessionResponseSchema = z.object({
  deleted: z.literal(true),
});
/** §0C.16A */
export type DeleteSessionResponse = z.infer<typeof DeleteSessionResponseSchema>;

/** §0C.16A `POST /api/learn/proposals/:proposalId/validate` → `{ validation_run }`. */
export const ValidateProposalResponseSchema = z.object({
  validation_run: ValidationRunSchema,
});
/** §0C.16A */
export type ValidateProposalResponse = z.infer<typeof ValidateProposalResponseSchema>;

/** §0C.16A `POST /api/abilities/:abilityId/activate` → `{ ability_id, enabled: true }`. */
export const AbilityActivateResponseSchema = z.object({
  ability_id: z.string().max(160),
  enabled: z.literal(true),
});
/** §0C.16A */
export type AbilityActivateResponse = z.infer<typeof AbilityActivateResponseSchema>;

/** §0C.16A `POST /api/abilities/:abilityId/deactivate` → `{ ability_id, enabled: false }`. */
export const AbilityDeactivateResponseSchema = z.object({
  ability_id: z.string().max(160),
  enabled: z.literal(false),
});
/** §0C.16A */
export type AbilityDeactivateResponse = z.infer<typeof AbilityDeactivateResponseSchema>;

/**
 * `DELETE /api/abilities/:abilityId` (issue #30; R11.2 names no route for it): the ability is
 * uninstalled (registry, skill files, workspace projection), its runs still going are cancelled and
 * every run's record, events and screenshot removed at once. Receipts stay (§0C.16D).
 */
export const AbilityDeleteResponseSchema = z.object({
  ability_id: z.string().max(160),
  deleted: z.literal(true),
  /** How many runs of it had their files removed. */
  runs_purged: z.number().int().min(0),
});
export type AbilityDeleteResponse = z.infer<typeof AbilityDeleteResponseSchema>;

/**
 * §0C.16A `POST /api/abilities/:abilityId/quarantine` → `{ ability_id, quarantined: true, reason }`.
 * `reason` bounded like the other reason strings of §0C (240).
 */
export const AbilityQuarantineResponseSchema = z.object({
  ability_id: z.string().max(160),
  quarantined: z.literal(true),
  reason: z.string().max(240),
});
/** §0C.16A */
export type AbilityQuarantineResponse = z.infer<typeof AbilityQuarantineResponseSchema>;

/** §0C.16A `POST /api/abilities/:abilityId/unquarantine` → `{ ability_id, quarantined: false }`. */
export const AbilityUnquarantineResponseSchema = z.object({
  ability_id: z.string().max(160),
  quarantined: z.literal(false),
});
/** §0C.16A */
export type AbilityUnquarantineResponse = z.infer<typeof AbilityUnquarantineResponseSchema>;

/** §0C.16A `POST /api/abilities/:abilityId/promote-shared` → `{ ability_id, install_lane: "shared_promoted" }`. */
export const AbilityPromoteSharedResponseSchema = z.object({
  ability_id: z.string().max(160),
  install_lane: z.literal("shared_promoted"),
});
/** §0C.16A */
export type AbilityPromoteSharedResponse = z.infer<typeof AbilityPromoteSharedResponseSchema>;
