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
  /** A client this far behind is cut off with an `error` event; it reconnects with Last-Event-ID. */
  maxBufferedBytes?: number;
}

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });
const LastEventIdSchema = z.coerce.number().int().min(0).catch(0);
const StateInPayloadSchema = z.object({ state: LearnSessionStateSchema }).partial();

function frame(stored: StoredLearnEvent): string {
  const envelope: LearnSessionEventEnvelope = { event: stored.event, data: stored.data, schema_version: 1 };
  return `id: ${stored.event_id}\nevent: ${stored.event}\ndata: ${JSON.stringify(envelope)}\n\n`;
}

function errorFrame(sessionId: string, code: string, message: string, at: string): string {
  const envelope: LearnSessionEventEnvelope = {
    event: "error",
    data: { event_kind: "error", session_id: sessionId, payload: { code, message }, timestamp: at },
    schema_version: 1,
  };
  return `event: error\ndata: ${JSON.stringify(envelope)}\n\n`;
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
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
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

      const send = (stored: StoredLearnEvent) => {
        if (closed) return;
        if (raw.writableLength > maxBufferedBytes) {
          raw.write(errorFrame(sessionId, "STREAM_BEHIND", "This client fell behind; reconnect with Last-Event-ID.", new Date().toISOString()));
          end();
          return;
        }
        raw.write(frame(stored));
        if (endsSession(stored)) end();
      };

      // Subscribing and replaying happen in one synchronous turn, so no event can slip between them.
      let highest = lastEventId;
      const deliver = (stored: StoredLearnEvent) => {
        if (stored.event_id <= highest) return;
        highest = stored.event_id;
        send(stored);
      };
      unsubscribe = options.events.subscribe(sessionId, deliver);
      for (const stored of options.events.since(sessionId, lastEventId)) deliver(stored);
      if (!closed && isTerminalLearnSessionState(session.state)) {
        end();
        return;
      }
      keepalive = setInterval(() => {
        if (!closed) raw.write(":keepalive\n\n");
      }, keepaliveMs);
    },
  );
};
