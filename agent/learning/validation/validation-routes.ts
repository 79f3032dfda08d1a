import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { ValidateProposalResponseSchema, ValidationRunsResponseSchema } from "../../../shared/learning/route-contracts";
import { ValidateProposalRequestSchema } from "../../../shared/learning/sessions/session-requests";
import type { ValidationService } from "./validation-service";

const ProposalParamsSchema = z.object({ proposalId: z.string().uuid() });

/** §0C.16 `POST …/validate` and `GET …/validation-runs` (issue #6). */
export const validationRoutes: FastifyPluginAsyncZod<{ validation: ValidationService }> = async (app, { validation }) => {
  app.post(
    "/api/learn/proposals/:proposalId/validate",
    { schema: { params: ProposalParamsSchema, body: ValidateProposalRequestSchema, response: { 200: ValidateProposalResponseSchema } } },
    async (request) => ({ validation_run: await validation.validate(request.params.proposalId, request.body) }),
  );

  // §0C.16A's runs-and-steps shape (the panel shows which selector each step resolved).
  app.get(
    "/api/learn/proposals/:proposalId/validation-runs",
    { schema: { params: ProposalParamsSchema, response: { 200: ValidationRunsResponseSchema } } },
    async (request) => validation.runs(request.params.proposalId),
  );
};
