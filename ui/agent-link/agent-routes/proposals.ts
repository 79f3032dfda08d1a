import { ApproveProposalRequestSchema, RejectProposalRequestSchema } from "../../../shared/learning/compat-aliases";
import { RequestMoreTestsRequestSchema, RequestMoreTestsResponseSchema } from "../../../shared/learning/proposal-tests";
import { LearnProposalsListResponseSchema } from "../../../shared/learning/read-models";
import {
  ProposalDetailResponseSchema,
  ProposalInstallResponseSchema,
  ProposalReviseRequestSchema,
  ValidateProposalResponseSchema,
  ValidationRunsResponseSchema,
} from "../../../shared/learning/route-contracts";
import { ProposalSkillMarkdownResponseSchema, ValidateProposalRequestSchema } from "../../../shared/learning/sessions/session-requests";
import { pageQuery, requestBody, SLOW, VERY_SLOW, type AgentTransport, type Input } from "../transport/agent-transport";

const proposal = (id: string) => `/api/learn/proposals/${encodeURIComponent(id)}`;

/** Proposals (§0C.16A): review, revise, validate, install privately, approve or reject. */
export function proposalRoutes({ call }: AgentTransport) {
  return {
    listProposals: (pageNumber = 1, pageSize = 50) => call("GET", `/api/learn/proposals?${pageQuery(pageNumber, pageSize)}`, LearnProposalsListResponseSchema),
    proposalDetail: (id: string) => call("GET", `${proposal(id)}/detail`, ProposalDetailResponseSchema),
    skillMarkdown: (id: string) => call("GET", `${proposal(id)}/skill-md`, ProposalSkillMarkdownResponseSchema),
    reviseProposal: (id: string, request: Input<typeof ProposalReviseRequestSchema>) =>
      call("POST", `${proposal(id)}/revise`, ProposalDetailResponseSchema, requestBody(ProposalReviseRequestSchema, request), SLOW),
    rejectProposal: (id: string, reason: string) =>
      call("POST", `${proposal(id)}/reject`, ProposalDetailResponseSchema, requestBody(RejectProposalRequestSchema, { reason, schema_version: 1 })),
    validateProposal: (id: string, request: Input<typeof ValidateProposalRequestSchema>) =>
      call("POST", `${proposal(id)}/validate`, ValidateProposalResponseSchema, requestBody(ValidateProposalRequestSchema, request), VERY_SLOW),
    validationRuns: (id: string) => call("GET", `${proposal(id)}/validation-runs`, ValidationRunsResponseSchema),
    /** §0C.18 Request More Tests: a new draft revision with more trigger tests, to validate again. */
    requestMoreTests: (id: string, request: Input<typeof RequestMoreTestsRequestSchema>) =>
      call("POST", `${proposal(id)}/request-more-tests`, RequestMoreTestsResponseSchema, requestBody(RequestMoreTestsRequestSchema, request), SLOW),
    /** Installs privately: the workspace lane is Approve's (an explicit, separate decision). */
    installPrivately: (id: string) => call("POST", `${proposal(id)}/install`, ProposalInstallResponseSchema, { install_lane: "experimental_private" }, SLOW),
    approveProposal: (id: string, note?: string) =>
      call(
        "POST",
        `${proposal(id)}/approve`,
        ProposalDetailResponseSchema,
        requestBody(ApproveProposalRequestSchema, {
          approval_scope: "approved_workspace",
          ...(note === undefined ? {} : { approval_note: note }),
          schema_version: 1,
        }),
        SLOW,
      ),
  };
}
