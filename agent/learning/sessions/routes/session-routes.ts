import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { CreateLearnSessionRequestSchema, CreateLearnSessionResponseSchema } from "../../../../shared/learning/sessions/create-learn-session";
import { ObservationScopeRuntimeSchema } from "../../../../shared/learning/sessions/observation-scope-runtime";
import {
  AnswerQuestionsRequestSchema,
  AnswerQuestionsResponseSchema,
  DeleteSessionResponseSchema,
  LearnSessionDetailResponseSchema,
  LearnSessionsListResponseSchema,
  MarkGoalRequestSchema,
  MarkStepRequestSchema,
  PaginationQuerySchema,
  SessionActionResponseSchema,
  SetTestPolicyRequestSchema,
  StartSessionResponseSchema,
  StopSessionResponseSchema,
  TrimRequestSchema,
} from "../../../../shared/learning/route-contracts";
import { SessionSeedResponseSchema } from "../../../../shared/learning/sessions/trace-seed";
import { BoundarySourceHeaderSchema, CancelSessionRequestSchema, StartSessionRequestSchema } from "../../../../shared/learning/sessions/session-requests";
import type { BoundarySource, SessionService } from "../session-service";

/** What the session routes need of the proposals: the rebuild once every question is answered. */
export interface ProposalRebuilder {
  regenerateAfterAnswers(sessionId: string): Promise<void>;
}

export interface SessionRoutesOptions {
  sessions: SessionService;
  proposals: ProposalRebuilder;
}

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });
/** A POST without a body reaches the validator as null; both mean "no options". */
const OptionalBody = <S extends z.ZodType>(schema: S) => schema.nullish();

/**
 * Who caused a boundary: the `x-boundary-source` header when a client says so, else the paired
 * extension's panel (a browser Origin) is a user's click and anything else an API call.
 */
function boundarySource(request: FastifyRequest): BoundarySource {
  const claimed = BoundarySourceHeaderSchema.safeParse(request.headers["x-boundary-source"]);
  if (claimed.success) return claimed.data;
  return request.headers.origin === undefined ? "api_call" : "user_click";
}

type RouteApp = Parameters<FastifyPluginAsyncZod<SessionRoutesOptions>>[0];

/** §0C.16 session lifecycle routes; the work is the session service's, the routes only parse and answer. */
export const sessionRoutes: FastifyPluginAsyncZod<SessionRoutesOptions> = async (app, { sessions, proposals }) => {
  createAndReadRoutes(app, sessions);
  captureRoutes(app, sessions);
  reviewRoutes(app, sessions, proposals);
  scopeAndRemovalRoutes(app, sessions);
};

/** Create a session, and read its seed, the list and one session's detail. */
function createAndReadRoutes(app: RouteApp, sessions: SessionService): void {
  app.post(
    "/api/learn/sessions",
    { schema: { body: CreateLearnSessionRequestSchema, response: { 201: CreateLearnSessionResponseSchema } } },
    async (request, reply) => reply.status(201).send(await sessions.create(request.body)),
  );

  app.get(
    "/api/learn/sessions/:sessionId/seed",
    {
      schema: {
        description:
          "Learn From This (§0B.6): the trace the session was seeded with (`source_trace` at creation) — its steps, pages, checkpoints and where a failed run stopped; never a typed value. `seed` is null for a session that was not seeded.",
        params: SessionParamsSchema,
        response: { 200: SessionSeedResponseSchema },
      },
    },
    async (request) => ({
      learn_session_id: request.params.sessionId,
      seed: (await sessions.seedOf(request.params.sessionId)) ?? null,
      schema_version: 1 as const,
    }),
  );

  app.get("/api/learn/sessions", { schema: { querystring: PaginationQuerySchema, response: { 200: LearnSessionsListResponseSchema } } }, async (request) => {
    const { page, page_size } = request.query;
    return { ...sessions.list(page, page_size), page, page_size };
  });

  app.get(
    "/api/learn/sessions/:sessionId/detail",
    { schema: { params: SessionParamsSchema, response: { 200: LearnSessionDetailResponseSchema } } },
    async (request) => sessions.get(request.params.sessionId),
  );
}

/** Start, pause, resume, stop and cancel the capture; each boundary says who caused it. */
function captureRoutes(app: RouteApp, sessions: SessionService): void {
  app.post(
    "/api/learn/sessions/:sessionId/start",
    { schema: { params: SessionParamsSchema, body: OptionalBody(StartSessionRequestSchema), response: { 200: StartSessionResponseSchema } } },
    async (request) => sessions.start(request.params.sessionId, request.body ?? { adapters_requested: [] }, boundarySource(request)),
  );

  app.post(
    "/api/learn/sessions/:sessionId/pause",
    { schema: { params: SessionParamsSchema, response: { 200: SessionActionResponseSchema } } },
    async (request) => ({ session: await sessions.pause(request.params.sessionId, boundarySource(request)) }),
  );

  app.post(
    "/api/learn/sessions/:sessionId/resume",
    { schema: { params: SessionParamsSchema, response: { 200: SessionActionResponseSchema } } },
    async (request) => ({ session: await sessions.resume(request.params.sessionId, boundarySource(request)) }),
  );

  app.post("/api/learn/sessions/:sessionId/stop", { schema: { params: SessionParamsSchema, response: { 200: StopSessionResponseSchema } } }, async (request) =>
    sessions.stop(request.params.sessionId, boundarySource(request)),
  );

  app.post(
    "/api/learn/sessions/:sessionId/cancel",
    { schema: { params: SessionParamsSchema, body: OptionalBody(CancelSessionRequestSchema), response: { 200: SessionActionResponseSchema } } },
    async (request) => ({
      session: await sessions.cancel(request.params.sessionId, boundarySource(request), request.body?.reason),
    }),
  );
}

/** What the person marks and answers after the capture: goal, steps, trim, test policy, questions. */
function reviewRoutes(app: RouteApp, sessions: SessionService, proposals: ProposalRebuilder): void {
  app.post(
    "/api/learn/sessions/:sessionId/mark-goal",
    { schema: { params: SessionParamsSchema, body: MarkGoalRequestSchema, response: { 200: SessionActionResponseSchema } } },
    async (request) => ({ session: await sessions.markGoal(request.params.sessionId, request.body, boundarySource(request)) }),
  );

  app.post(
    "/api/learn/sessions/:sessionId/mark-step",
    { schema: { params: SessionParamsSchema, body: MarkStepRequestSchema, response: { 200: SessionActionResponseSchema } } },
    async (request) => ({ session: await sessions.markStep(request.params.sessionId, request.body, boundarySource(request)) }),
  );

  app.post(
    "/api/learn/sessions/:sessionId/trim",
    { schema: { params: SessionParamsSchema, body: TrimRequestSchema, response: { 200: SessionActionResponseSchema } } },
    async (request) => ({ session: await sessions.trim(request.params.sessionId, request.body, boundarySource(request)) }),
  );

  app.post(
    "/api/learn/sessions/:sessionId/set-test-policy",
    { schema: { params: SessionParamsSchema, body: SetTestPolicyRequestSchema, response: { 200: SessionActionResponseSchema } } },
    async (request) => ({ session: await sessions.setTestPolicy(request.params.sessionId, request.body.test_policy) }),
  );

  app.post(
    "/api/learn/sessions/:sessionId/answer-questions",
    { schema: { params: SessionParamsSchema, body: AnswerQuestionsRequestSchema, response: { 200: AnswerQuestionsResponseSchema } } },
    async (request) => {
      const answered = await sessions.answerQuestions(request.params.sessionId, request.body);
      if (answered.remaining_questions > 0) return answered;
      // Every required question is answered: rebuild the proposal with the answers (issue #5).
      await proposals.regenerateAfterAnswers(request.params.sessionId);
      const session = sessions.get(request.params.sessionId);
      return {
        session,
        remaining_questions: 0,
        next_action: session.state === "ready_for_review" ? ("ready_for_review" as const) : ("generate_proposal" as const),
      };
    },
  );
}

/** The session's observation scope, and its deletion. */
function scopeAndRemovalRoutes(app: RouteApp, sessions: SessionService): void {
  // §0C.16A maps this route to ObservationScopeRuntimeSchema (§0C.8), the file the runtime keeps;
  // §0C.16E's LearnObservationScopeResponseSchema uses observation modes no session can have.
  app.get(
    "/api/learn/sessions/:sessionId/observation-scope",
    { schema: { params: SessionParamsSchema, response: { 200: ObservationScopeRuntimeSchema } } },
    async (request) => sessions.observationScope(request.params.sessionId),
  );

  app.delete("/api/learn/sessions/:sessionId", { schema: { params: SessionParamsSchema, response: { 200: DeleteSessionResponseSchema } } }, async (request) => {
    await sessions.remove(request.params.sessionId, boundarySource(request));
    return { deleted: true as const };
  });
}
