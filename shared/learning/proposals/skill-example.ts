import { z } from "zod";
import { SourceTraceSchema, TraceSeedSummarySchema } from "../sessions/trace-seed";

/**
 * §0B.6 "Use as Example": a demonstration (a finished session) or a run, added as an example to a
 * proposal under review or to an installed skill, as a new revision with its trigger tests — the
 * requests the example answers, chosen by the person (issue #16).
 */

/** A proposal still under review (its next draft revision), or an installed skill (a proposal for its next version). */
export const ExampleTargetSchema = z.union([
  z.object({ proposal_id: z.string().uuid() }).strict(),
  z.object({ ability_id: z.string().min(1).max(160) }).strict(),
]);
export type ExampleTarget = z.infer<typeof ExampleTargetSchema>;

/** A request as the user would say it (bounded like a trigger test). */
const ExampleRequestSchema = z.string().trim().min(3).max(240);

/** `POST /api/learn/examples` */
export const UseAsExampleRequestSchema = z
  .object({
    example: SourceTraceSchema,
    target: ExampleTargetSchema,
    /** Requests this example answers: each becomes a trigger test (and a "when to use" line) of the new revision. */
    trigger_tests: z.array(ExampleRequestSchema).min(1).max(5),
    schema_version: z.literal(1),
  })
  .strict();
export type UseAsExampleRequest = z.infer<typeof UseAsExampleRequestSchema>;

/** One example as the revision keeps it (`examples.json`): what happened, by labels, never a typed value. */
export const SkillExampleSchema = z.object({
  example_id: z.string().uuid(),
  source: SourceTraceSchema,
  title: z.string().max(240),
  steps: z.array(z.string().max(240)).max(200),
  pages: TraceSeedSummarySchema.shape.pages,
  /** Where a failed run stopped, in words. */
  outcome: z.string().max(1000).optional(),
  trigger_tests: z.array(z.string().max(240)).max(5),
  added_at: z.string().datetime(),
  schema_version: z.literal(1),
});
export type SkillExample = z.infer<typeof SkillExampleSchema>;

export const UseAsExampleResponseSchema = z.object({
  /** The proposal holding the new revision: the one given, or a new one improving the skill. */
  proposal_id: z.string().uuid(),
  revision: z.number().int().min(1),
  learn_session_id: z.string().uuid(),
  example: SkillExampleSchema,
  schema_version: z.literal(1),
});
export type UseAsExampleResponse = z.infer<typeof UseAsExampleResponseSchema>;
