import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  RetainObservationsRequestSchema,
  RetainObservationsResponseSchema,
  type ObservationRetentionRecord,
} from "../../../shared/learning/sessions/session-requests";
import type { Clock } from "../../common/clock";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { SessionService } from "../sessions/session-service";

export interface RetentionRoutesOptions {
  sessions: SessionService;
  memory: MemoryStore;
  clock: Clock;
}

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });

/** §0C.16D `retain=true`: the user keeps a session's raw observations past the 7-day purge. */
export const retentionRoutes: FastifyPluginAsyncZod<RetentionRoutesOptions> = async (app, { sessions, memory, clock }) => {
  app.post(
    "/api/learn/sessions/:sessionId/retain-observations",
    { schema: { params: SessionParamsSchema, body: RetainObservationsRequestSchema, response: { 200: RetainObservationsResponseSchema } } },
    async (request) => {
      const { sessionId } = request.params;
      // Under the session lock, like the purge, so a flag set now is seen by a purge running now.
      await sessions.exclusive(async () => {
        sessions.get(sessionId);
        const record: ObservationRetentionRecord = { retain: request.body.retain, set_at: clock.now().toISOString() };
        await memory.writeJson(MemoryPaths.observationRetention(sessionId), record);
      });
      return { learn_session_id: sessionId, retain: request.body.retain };
    },
  );
};
