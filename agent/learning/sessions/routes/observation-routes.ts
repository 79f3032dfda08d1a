import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { ObservedActionEventWithDetailSchema } from "../../../../shared/learning/observed-actions/observed-action";
import {
  ExcludeEventsRequestSchema,
  SessionObservationsQuerySchema,
  SessionObservationsResponseSchema,
} from "../../../../shared/learning/sessions/session-requests";
import { AppError } from "../../../errors/app-error";
import type { MemoryStore } from "../../../memory/memory-store";
import { MemoryPaths } from "../../../memory/memory-paths";
import { readExclusions } from "../observation-exclusions";
import type { SessionService } from "../session-service";

export interface ObservationRoutesOptions {
  sessions: SessionService;
  memory: MemoryStore;
}

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });

/**
 * What was captured, for the panel's live timeline (masked as it was in the page), and the
 * user's exclusions. §0C.22 privacy rule 7: the user can see what was captured before any proposal.
 */
export const observationRoutes: FastifyPluginAsyncZod<ObservationRoutesOptions> = async (app, { sessions, memory }) => {
  app.get(
    "/api/learn/sessions/:sessionId/observations",
    { schema: { params: SessionParamsSchema, querystring: SessionObservationsQuerySchema, response: { 200: SessionObservationsResponseSchema } } },
    async (request) => {
      const { sessionId } = request.params;
      sessions.get(sessionId);
      const all = await memory.readJsonl(MemoryPaths.observationEvents(sessionId), ObservedActionEventWithDetailSchema);
      const { after, limit } = request.query;
      const start = after === undefined ? 0 : all.findIndex((event) => event.event_id === after) + 1;
      return {
        events: all.slice(start, start + limit),
        total: all.length,
        excluded_event_ids: await readExclusions(memory, sessionId),
        schema_version: 1 as const,
      };
    },
  );

  app.post(
    "/api/learn/sessions/:sessionId/exclude-events",
    {
      schema: {
        params: SessionParamsSchema,
        body: ExcludeEventsRequestSchema,
        response: { 200: SessionObservationsResponseSchema.pick({ excluded_event_ids: true, schema_version: true }) },
      },
    },
    async (request) => {
      const { sessionId } = request.params;
      const session = sessions.get(sessionId);
      if (!["capturing", "paused", "stopped", "reviewing", "awaiting_questions"].includes(session.state)) {
        throw new AppError("INVALID_LEARN_STATE_TRANSITION", `Events can be excluded before a proposal is drafted, not when the session is ${session.state}.`);
      }
      return sessions.exclusive(async () => {
        const known = new Set(
          (await memory.readJsonl(MemoryPaths.observationEvents(sessionId), z.object({ event_id: z.string() }).passthrough())).map((event) => event.event_id),
        );
        const unknown = request.body.event_ids.filter((id) => !known.has(id));
        if (unknown.length > 0) {
          throw new AppError("REQUEST_INVALID", "Some event_ids are not observed events of this session.", {
            issues: unknown.slice(0, 20).map((id) => ({ path: "body/event_ids", message: `unknown event ${id}` })),
          });
        }
        const current = new Set(await readExclusions(memory, sessionId));
        for (const id of request.body.event_ids) {
          if (request.body.excluded) current.add(id);
          else current.delete(id);
        }
        const eventIds = [...current].sort();
        await memory.writeJson(MemoryPaths.observationExclusions(sessionId), { event_ids: eventIds });
        return { excluded_event_ids: eventIds, schema_version: 1 as const };
      });
    },
  );
};
