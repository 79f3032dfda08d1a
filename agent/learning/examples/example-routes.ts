import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { UseAsExampleRequestSchema, UseAsExampleResponseSchema } from "../../../shared/learning/proposals/skill-example";
import type { ExampleService } from "./example-service";

/** `POST /api/learn/examples` (§0B.6 Use as Example, issue #16). */
export const exampleRoutes: FastifyPluginAsyncZod<{ examples: ExampleService }> = async (app, { examples }) => {
  app.post(
    "/api/learn/examples",
    {
      schema: {
        description:
          'Use as Example (§0B.6): adds a finished session or a run (`example`, named as Learn From This names it) to a proposal under review (`target.proposal_id`: its next draft revision) or to an installed skill (`target.ability_id`: a new proposal for its next version, in an Improving Existing Skill session seeded with the example). `trigger_tests` — requests the example answers — become positive trigger tests and "When to use" lines; the SKILL.md gains an Examples section (titles, requests, pages; never a typed value). The proposal is back in draft until validated. Refused with RUN_NOT_FOUND, LEARN_SESSION_NOT_FOUND, RECEIPT_NOT_FOUND, RUN_NOT_FINISHED, INSUFFICIENT_TRACES, PROPOSAL_NOT_FOUND, ABILITY_NOT_FOUND, VALIDATION_IN_PROGRESS, INVALID_LEARN_STATE_TRANSITION or LEARN_SESSION_ALREADY_ACTIVE, with nothing written.',
        body: UseAsExampleRequestSchema,
        response: { 201: UseAsExampleResponseSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await examples.use(request.body)),
  );
};
