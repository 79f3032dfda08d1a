import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { RejectProposalRequestSchema } from "../../../shared/learning/compat-aliases";
import { RequestMoreTestsRequestSchema, RequestMoreTestsResponseSchema } from "../../../shared/learning/proposal-tests";
import { LearnProposalsListResponseSchema } from "../../../shared/learning/read-models";
import {
  GenerateProposalResponseSchema,
  PaginationQuerySchema,
  ProposalDetailResponseSchema,
  ProposalReviseRequestSchema,
} from "../../../shared/learning/route-contracts";
import { ProposalSkillMarkdownResponseSchema } from "../../../shared/learning/sessions/session-requests";
import type { MemoryStore } from "../../memory/memory-store";
import type { ProposalService } from "./proposal-service";
import { AppError } from "../../errors/app-error";
import type { SessionService } from "../sessions/session-service";

export interface ProposalRoutesOptions {
  proposals: ProposalService;
  sessions: SessionService;
  memory: MemoryStore;
  /** Whether a proposal is being validated right now (Request More Tests waits for it). */
  validation: { inProgress(proposalId: string): boolean };
}

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });
const ProposalParamsSchema = z.object({ proposalId: z.string().uuid() });

/** §0C.16 proposal routes and the session's generate-proposal hand-off (issue #5). */
export const proposalRoutes: FastifyPluginAsyncZod<ProposalRoutesOptions> = async (app, { proposals, sessions, memory, validation }) => {
  app.post(
    "/api/learn/sessions/:sessionId/generate-proposal",
    { schema: { params: SessionParamsSchema, response: { 200: GenerateProposalResponseSchema } } },
    async (request) => {
      const { proposalId } = await proposals.generate(request.params.sessionId);
      return { session: sessions.get(request.params.sessionId), proposal_id: proposalId };
    },
  );

  app.get("/api/learn/proposals", { schema: { querystring: PaginationQuerySchema, response: { 200: LearnProposalsListResponseSchema } } }, async (request) => {
    const { page, page_size } = request.query;
    return { ...proposals.list(page, page_size), page, page_size, schema_version: 1 as const };
  });

  app.get(
    "/api/learn/proposals/:proposalId/detail",
    { schema: { params: ProposalParamsSchema, response: { 200: ProposalDetailResponseSchema } } },
    async (request) => proposals.detail(request.params.proposalId),
  );

  app.get(
    "/api/learn/proposals/:proposalId/skill-md",
    { schema: { params: ProposalParamsSchema, response: { 200: ProposalSkillMarkdownResponseSchema } } },
    async (request) => {
      const { proposal } = await proposals.detail(request.params.proposalId);
      return { proposal_id: proposal.proposal_id, markdown: (await memory.readText(proposal.draft_skill_path)) ?? "", schema_version: 1 as const };
    },
  );

  app.post(
    "/api/learn/proposals/:proposalId/revise",
    { schema: { params: ProposalParamsSchema, body: ProposalReviseRequestSchema, response: { 200: ProposalDetailResponseSchema } } },
    async (request) => proposals.revise(request.params.proposalId, request.body),
  );

  // §0C.18 "Request More Tests": a new draft revision with more trigger tests, to validate again.
  app.post(
    "/api/learn/proposals/:proposalId/request-more-tests",
    {
      schema: {
        summary: "Request More Tests: add trigger tests as a new draft revision, to validate again",
        params: ProposalParamsSchema,
        body: RequestMoreTestsRequestSchema,
        response: { 200: RequestMoreTestsResponseSchema },
      },
    },
    async (request) => {
      if (validation.inProgress(request.params.proposalId)) {
        throw new AppError("VALIDATION_IN_PROGRESS", "A validation of this proposal is running; request more tests once it has finished.");
      }
      return proposals.requestMoreTests(request.params.proposalId, request.body);
    },
  );

  app.post(
    "/api/learn/proposals/:proposalId/reject",
    { schema: { params: ProposalParamsSchema, body: RejectProposalRequestSchema, response: { 200: ProposalDetailResponseSchema } } },
    async (request) => proposals.reject(request.params.proposalId, request.body.reason),
  );
};
