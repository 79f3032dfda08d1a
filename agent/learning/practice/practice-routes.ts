import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { PracticeReportSchema } from "../../../shared/learning/sessions/practice";
import type { PracticeService } from "./practice-service";

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });

/** `GET /api/learn/sessions/:sessionId/practice` (issue #16): the rounds, repairs and outcome of a practice. */
export const practiceRoutes: FastifyPluginAsyncZod<{ practice: PracticeService }> = async (app, { practice }) => {
  app.get("/api/learn/sessions/:sessionId/practice", { schema: { params: SessionParamsSchema, response: { 200: PracticeReportSchema } } }, async (request) =>
    practice.report(request.params.sessionId),
  );
  app.addHook("onClose", async () => practice.settled());
};
