import { z } from "zod";

/** §0.10C The only failure body any route returns. */
export const ApiErrorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string().max(80),
    message: z.string().max(240),
    retryable: z.boolean().default(false),
    correlation_id: z.string().max(200).optional(),
  }),
});
export type ApiErrorEnvelope = z.infer<typeof ApiErrorEnvelopeSchema>;

/** One problem found in a request, as the envelope's `issues` list reports it. */
export const ApiErrorIssueSchema = z.object({
  path: z.string().max(240),
  message: z.string().max(240),
});
export type ApiErrorIssue = z.infer<typeof ApiErrorIssueSchema>;

/**
 * The envelope as the agent sends it: §0.10C plus two optional top-level fields the spec asks for
 * elsewhere without giving them a home. `active_session_id` is §0C.1B's answer to a second
 * session; `issues` names the fields a 400 rejected so a client can say what to fix.
 */
export const ApiErrorResponseSchema = ApiErrorEnvelopeSchema.extend({
  active_session_id: z.string().uuid().optional(),
  issues: z.array(ApiErrorIssueSchema).max(20).optional(),
});
export type ApiErrorResponse = z.infer<typeof ApiErrorResponseSchema>;
