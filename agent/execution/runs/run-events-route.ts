import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { openEventStream, trackEventStreams } from "../../http/event-stream";
import { z } from "zod";
import { DISPATCH_ID_PATTERN, TERMINAL_RUN_STATES, type RunEventEnvelope } from "../../../shared/execution/run-contract";
import type { RunService } from "./run-service";
import type { StoredRunEvent } from "./run-store";

export interface RunEventsRouteOptions {
  runs: RunService;
  /** A `:keepalive` comment this often (30 s, as §0C.16C for sessions); tests shorten it. */
  keepaliveMs?: number;
}

const DispatchParamsSchema = z.object({ dispatchId: z.string().regex(DISPATCH_ID_PATTERN) });
const LastEventIdSchema = z.coerce.number().int().min(0).catch(0);

function frame(stored: StoredRunEvent): string {
  const envelope: RunEventEnvelope = { event: stored.event, run: stored.run, schema_version: 1 };
  return `id: ${stored.event_id}\nevent: ${stored.event}\ndata: ${JSON.stringify(envelope)}\n\n`;
}

/**
 * `GET /api/runs/:dispatchId/events` (issue #21), modeled on the session stream: replay after
 * `Last-Event-ID`, then live events, a keepalive comment, closed after `run.finished`. Every frame
 * carries the whole run, so a client that missed frames only needs the last one.
 */
export const runEventsRoute: FastifyPluginAsyncZod<RunEventsRouteOptions> = async (app, options) => {
  const keepaliveMs = options.keepaliveMs ?? 30_000;
  const open = trackEventStreams(app);

  app.get(
    "/api/runs/:dispatchId/events",
    {
      schema: {
        tags: ["runs"],
        summary: "Follow a run live (Server-Sent Events)",
        description:
          "`text/event-stream`. Events `run.state`, `run.step`, `run.checkpoint`, `run.needs_confirmation`, `run.finished`; each `data:` is `{ event, run, schema_version }` with the whole run as it is then. Send `Last-Event-ID` to replay what came after it. A `:keepalive` comment every 30 s; the stream closes after `run.finished`. Read it with fetch and the bearer token (EventSource cannot send the header).",
        params: DispatchParamsSchema,
      },
    },
    async (request, reply) => {
      const { dispatchId } = request.params;
      // Unknown run: RUN_NOT_FOUND in the envelope, before any stream is opened.
      await options.runs.get(dispatchId);
      const lastEventId = LastEventIdSchema.parse(request.headers["last-event-id"] ?? 0);
      const stream = openEventStream(request, reply, open);
      let highest = lastEventId;
      const deliver = (stored: StoredRunEvent) => {
        if (stored.event_id <= highest) return;
        highest = stored.event_id;
        stream.send(frame(stored), stored.event === "run.finished" && TERMINAL_RUN_STATES.has(stored.run.state));
      };
      // Live events that arrive while the replay is read wait for it, so ids go out in order.
      const early: StoredRunEvent[] = [];
      let replaying = true;
      stream.onEnd(options.runs.store.subscribe(dispatchId, (stored) => (replaying ? early.push(stored) : deliver(stored))));
      const replay = await options.runs.store.eventsSince(dispatchId, lastEventId);
      for (const stored of [...replay, ...early].sort((a, b) => a.event_id - b.event_id)) deliver(stored);
      replaying = false;
      if (stream.closed) return;
      if (TERMINAL_RUN_STATES.has((await options.runs.get(dispatchId)).state)) {
        // Over: once its last writes are done (run.finished among them), what is stored is all there is.
        await options.runs.store.settle();
        for (const stored of await options.runs.store.eventsSince(dispatchId, highest)) deliver(stored);
        stream.endWhenDrained();
        return;
      }
      stream.keepAlive(keepaliveMs);
    },
  );
};
