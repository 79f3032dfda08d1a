import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { openEventStream, trackEventStreams } from "../../../http/event-stream";
import { z } from "zod";
import { isTerminalLearnSessionState, LearnSessionStateSchema } from "../../../../shared/learning/sessions/learn-session";
import type { LearnSessionEventEnvelope } from "../../../../shared/learning/read-models";
import type { LearnEventLog, StoredLearnEvent } from "../learn-event-log";
import type { SessionService } from "../session-service";

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
  const open = trackEventStreams(app);

  app.get("/api/learn/sessions/:sessionId/events", { schema: { params: SessionParamsSchema } }, async (request, reply) => {
    const { sessionId } = request.params;
    const session = options.sessions.get(sessionId);
    const lastEventId = LastEventIdSchema.parse(request.headers["last-event-id"] ?? 0);
    const stream = openEventStream(request, reply, open);
    // The queue holds references to events the log keeps anyway, so a client that stops reading
    // costs no more memory than the session itself, and a reconnect with a long backlog is
    // replayed at the client's pace instead of all at once.
    // Subscribed before the replay is read, so no event can slip between them: what is emitted
    // meanwhile waits until the replay is sent, and what both have is sent once.
    let highest = lastEventId;
    const deliver = (stored: StoredLearnEvent) => {
      if (stored.event_id <= highest) return;
      highest = stored.event_id;
      stream.send(frame(stored), endsSession(stored));
    };
    let meanwhile: StoredLearnEvent[] | undefined = [];
    stream.onEnd(options.events.subscribe(sessionId, (stored) => (meanwhile === undefined ? deliver(stored) : meanwhile.push(stored))));
    let replay: StoredLearnEvent[];
    try {
      replay = await options.events.since(sessionId, lastEventId);
    } catch (error) {
      request.log.error({ err: error }, "the session's event history could not be read");
      stream.endWhenDrained();
      return;
    }
    for (const stored of replay) deliver(stored);
    for (const stored of meanwhile) deliver(stored);
    meanwhile = undefined;
    if (stream.closed) return;
    // A session that is already over: its replay is all there is, and the stream closes after it.
    if (isTerminalLearnSessionState(session.state)) {
      stream.endWhenDrained();
      return;
    }
    stream.keepAlive(keepaliveMs);
  });
};
