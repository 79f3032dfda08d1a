import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { CoachingAnswerRequestSchema, CoachingSetupSchema, CoachingShownRequestSchema, CoachingStateSchema } from "../../../shared/learning/sessions/coaching";
import type { CoachingService } from "./coaching-service";

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });

/**
 * Coaching Agent (issue #16), under its learn session:
 * - `POST /api/learn/sessions/:sessionId/coaching` — the start page and the steps in the person's words;
 * - `GET  /api/learn/sessions/:sessionId/coaching` — where the coaching is, turn by turn;
 * - `POST /api/learn/sessions/:sessionId/coaching/answer` — Do it, Not that — I'll show you, or Skip;
 * - `POST /api/learn/sessions/:sessionId/coaching/shown` — "I did it" after showing a step.
 * A refused request changes nothing.
 */
export const coachingRoutes: FastifyPluginAsyncZod<{ coaching: CoachingService }> = async (app, { coaching }) => {
  app.post(
    "/api/learn/sessions/:sessionId/coaching",
    { schema: { params: SessionParamsSchema, body: CoachingSetupSchema, response: { 200: CoachingStateSchema } } },
    async (request) => coaching.setup(request.params.sessionId, request.body),
  );
  app.get("/api/learn/sessions/:sessionId/coaching", { schema: { params: SessionParamsSchema, response: { 200: CoachingStateSchema } } }, async (request) =>
    coaching.state(request.params.sessionId),
  );
  app.post(
    "/api/learn/sessions/:sessionId/coaching/answer",
    { schema: { params: SessionParamsSchema, body: CoachingAnswerRequestSchema, response: { 200: CoachingStateSchema } } },
    async (request) => coaching.answer(request.params.sessionId, request.body),
  );
  app.post(
    "/api/learn/sessions/:sessionId/coaching/shown",
    { schema: { params: SessionParamsSchema, body: CoachingShownRequestSchema, response: { 200: CoachingStateSchema } } },
    async (request) => coaching.shown(request.params.sessionId, request.body),
  );
  app.addHook("onClose", async () => coaching.close());
};
