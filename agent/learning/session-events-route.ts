import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { isTerminalLearnSessionState, LearnSessionStateSchema } from "../../shared/learning/learn-session";
import type { LearnSessionEventEnvelope } from "../../shared/learning/read-models";
import type { LearnEventLog, StoredLearnEvent } from "./learn-event-log";
import type { SessionService } from "./session-service";

export interface SessionEventsRouteOptions {
  sessions: SessionService;
  events: LearnEventLog;
  /** §0C.16C: a `:keepalive` comment this often (30 s); tests shorten it. */
  keepaliveMs?: number;
}

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });
const LastEventIdSchema = z.coerce.number().int().min(0).catch(0);
const StateInPayloadSchema = z.object({ state: LearnSessionStateSchema }).partial();

function frame(stored: StoredLearnEvent): string {
  const envelope: LearnSessionEventEnvelope = { event: stored.event, data: stored.data, schema_version: 1 };
  return `id: ${stored.event_id}\nevent: ${stored.event}\ndata: ${JSON.stringify(envelope)}\n\n`;
}

function endsSession(stored: StoredLearnEvent): boolean {
  const state = StateInPayloadSchema.safeParse(stored.data.payload);
  return state.success && state.data.state !== undefined && isTerminalLearnSessionState(state.data.state);
}

/**
 * `GET /api/learn/sessions/:sessionId/events` (§0C.16C, §0C.16E): replay after `Last-Event-ID`,
 * then live events, a keepalive comment every 30 s, closed once the session is terminal. It sits
 * behind the same bearer-token guard as every route; the side panel reads it with fetch, so the
 * token never goes into a URL (EventSource could not send the header).
 */
export const sessionEventsRoute: FastifyPluginAsyncZod<SessionEventsRouteOptions> = async (app, options) => {
  const keepaliveMs = options.keepaliveMs ?? 30_000;
  const open = new Set<() => void>();
  app.addHook("preClose", async () => {
    for (const end of open) end();
  });

  app.get(
    "/api/learn/sessions/:sessionId/events",
    { schema: { params: SessionParamsSchema } },
    async (request, reply) => {
      const { sessionId } = request.params;
      const session = options.sessions.get(sessionId);
      const lastEventId = LastEventIdSchema.parse(request.headers["last-event-id"] ?? 0);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-store",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      // Send the headers now: a client reconnecting with nothing to replay must not wait for the next event.
      raw.flushHeaders();
      let closed = false;
      let unsubscribe = () => {};
      let keepalive: NodeJS.Timeout | undefined;
      const end = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        if (keepalive !== undefined) clearInterval(keepalive);
        open.delete(end);
        raw.end();
      };
      open.add(end);
      request.raw.on("close", end);

      // Frames go out no faster than the client reads them: a write the socket cannot take yet
      // pauses the queue until `drain`. The queue holds references to events the log keeps anyway,
      // so a client that stops reading costs no more memory than the session itself, and a
      // reconnect with a long backlog is replayed at the client's pace instead of all at once.
      const queue: StoredLearnEvent[] = [];
      let next = 0;
      let waiting = false;
      // A session that is already over: its replay is all there is, and the stream closes after it.
      let endWhenDrained = false;
      const pump = () => {
        while (!closed && !waiting && next < queue.length) {
          const stored = queue[next] as StoredLearnEvent;
          next += 1;
          const flushed = raw.write(frame(stored));
          if (endsSession(stored)) {
            end();
            return;
          }
          if (!flushed) {
            waiting = true;
            raw.once("drain", () => {
              waiting = false;
              pump();
            });
          }
        }
        if (next === queue.length) {
          queue.length = 0;
          next = 0;
          if (endWhenDrained) end();
        }
      };

      // Subscribing and replaying happen in one synchronous turn, so no event can slip between them.
      let highest = lastEventId;
      const deliver = (stored: StoredLearnEvent) => {
        if (stored.event_id <= highest) return;
        highest = stored.event_id;
        queue.push(stored);
        pump();
      };
      unsubscribe = options.events.subscribe(sessionId, deliver);
      for (const stored of options.events.since(sessionId, lastEventId)) deliver(stored);
      if (!closed && isTerminalLearnSessionState(session.state)) {
        endWhenDrained = true;
        pump();
        return;
      }
      keepalive = setInterval(() => {
        if (!closed && !waiting) raw.write(":keepalive\n\n");
      }, keepaliveMs);
    },
  );
};
