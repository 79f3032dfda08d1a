import { z } from "zod";
import { SessionActionResponseSchema, ProposalInstallRequestSchema, ProposalInstallResponseSchema, ProposalDetailResponseSchema } from "./route-contracts";
import { ValidationRunSchema } from "./proposals/validation-run";

// §0C.28, learning part only. The spec's `../learning/responses` is our ./route-contracts.
//
// Left out on purpose:
// - `LearningTimelineEventSchema`: §0C.28 aliases it to `LearnTimelineEventSchema` from
//   `../learning/timeline`, which the spec never defines; an alias of nothing cannot be written,
//   and inventing the target would be a second, unreviewed timeline shape.
// - `SkillPackListResponseSchema`: alias of `SkillPacksListResponseSchema`; it belongs with the
//   skill-import contracts (shared/skills).
// - Connector*/MCP* and Outlook* schemas: out of scope (DESIGN §2).
// - `DOC3AdditionalErrorCodeSchema` (`CAPTURE_ALREADY_STOPPED`, `CATEGORY_LIMIT_REACHED`): belongs in
//   the single error-code table (STYLE habit 4), not in a learning alias file.

// §0C.28 LearnPartialDeploymentState lives with the install contracts it describes.
export { LearnPartialDeploymentStateSchema, type LearnPartialDeploymentState } from "../skills/partial-deployment";

/** §0C.28 Deprecated alias; new code must use SessionActionResponseSchema. */
export const LearnSessionMutationResponseSchema = SessionActionResponseSchema;

/**
 * §0C.28 Body of `POST /api/learn/proposals/:proposalId/validate`. Strict: an unknown key is a
 * client bug worth a 400, not something to drop silently.
 */
export const StartValidationRunRequestSchema = z
  .object({
    run_label: z.string().max(120).optional(),
    selected_tests: z.array(z.string().max(120)).default([]),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.28 */
export type StartValidationRunRequest = z.infer<typeof StartValidationRunRequestSchema>;

/** §0C.28 Versioned form of §0C.16A's `{ validation_run }` row. */
export const ValidationRunResponseSchema = z.object({
  validation_run: ValidationRunSchema,
  schema_version: z.literal(1),
});
/** §0C.28 */
export type ValidationRunResponse = z.infer<typeof ValidationRunResponseSchema>;

/** §0C.28 Body of `POST /api/learn/proposals/:proposalId/approve`. */
export const ApproveProposalRequestSchema = z
  .object({
    approval_scope: z.enum(["approved_workspace", "shared_promoted"]).default("approved_workspace"),
    approval_note: z.string().max(1000).optional(),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.28 */
export type ApproveProposalRequest = z.infer<typeof ApproveProposalRequestSchema>;

/** §0C.28 Body of `POST /api/learn/proposals/:proposalId/reject`; a rejection always says why. */
export const RejectProposalRequestSchema = z
  .object({
    reason: z.string().min(1).max(1000),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
/** §0C.28 */
export type RejectProposalRequest = z.infer<typeof RejectProposalRequestSchema>;

/** §0C.28 Alias of ProposalDetailResponseSchema. */
export const ProposalMutationResponseSchema = ProposalDetailResponseSchema;
/** §0C.28 Alias of ProposalInstallRequestSchema. */
export const InstallProposalRequestSchema = ProposalInstallRequestSchema;
/** §0C.28 Alias of ProposalInstallResponseSchema. */
export const InstallProposalResponseSchema = ProposalInstallResponseSchema;
