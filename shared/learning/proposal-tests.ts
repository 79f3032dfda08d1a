import { z } from "zod";
import { ProposalDetailResponseSchema } from "./route-contracts";

/** One example request, as a user would say it (bounded like §1.1P's `TriggerTestCaseSchema.input`). */
const ExampleRequestSchema = z.string().trim().min(1).max(240);

/**
 * A proposal's trigger tests (`trigger-tests.json` of each draft revision): requests that must find
 * the skill, paraphrases of them, and requests that must not (§1.1P: at least three of each).
 * Validation runs them through the §0C.11C scorer.
 */
export const ProposalTriggerTestsSchema = z.object({
  positive: z.array(ExampleRequestSchema).max(60),
  paraphrases: z.array(ExampleRequestSchema).max(60),
  negative: z.array(ExampleRequestSchema).max(60),
});
export type ProposalTriggerTests = z.infer<typeof ProposalTriggerTestsSchema>;

/**
 * Body of `POST /api/learn/proposals/:proposalId/request-more-tests` (§0C.18: "Request More Tests"
 * is its display name; the spec gives the route but no schema). Requests the user expects to find
 * the skill and requests that must not, both optional: the agent adds paraphrases and unrelated
 * requests of its own. Strict like §0C.28's request schemas.
 */
export const RequestMoreTestsRequestSchema = z
  .object({
    positive_examples: z.array(ExampleRequestSchema).max(10).default([]).describe("Requests that should find this skill, as the user would say them."),
    negative_examples: z.array(ExampleRequestSchema).max(10).default([]).describe("Requests that must not find this skill."),
    /** What the user wants tested, in their words; kept with the draft revision, not interpreted. */
    note: z.string().trim().max(1000).optional(),
    client_request_id: z.string().max(120).optional(),
    schema_version: z.literal(1),
  })
  .strict();
export type RequestMoreTestsRequest = z.infer<typeof RequestMoreTestsRequestSchema>;

/**
 * The proposal after the request: a new draft revision holding the added tests, back in `draft`
 * until a validation runs them (§0C.1A `drafting_proposal`), and which tests were added.
 */
export const RequestMoreTestsResponseSchema = ProposalDetailResponseSchema.extend({
  added_trigger_tests: ProposalTriggerTestsSchema.describe("The tests this request added to the new draft revision."),
});
export type RequestMoreTestsResponse = z.infer<typeof RequestMoreTestsResponseSchema>;
