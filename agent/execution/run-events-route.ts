import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DISPATCH_ID_PATTERN, TERMINAL_RUN_STATES, type RunEventEnvelope } from "../../shared/execution/run-contract";
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
  const open = new Set<() => void>();
  app.addHook("preClose", async () => {
    for (const end of open) end();
  });

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
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-store",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      raw.flushHeaders();
      let closed = false;
      let keepalive: NodeJS.Timeout | undefined;
      let unsubscribe = () => {};
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

      // Frames go out no faster than the client reads them (`drain`), in event order.
      const queue: StoredRunEvent[] = [];
      let waiting = false;
      let highest = lastEventId;
      const pump = () => {
        while (!closed && !waiting && queue.length > 0) {
          const stored = queue.shift() as StoredRunEvent;
          const flushed = raw.write(frame(stored));
          if (stored.event === "run.finished" && TERMINAL_RUN_STATES.has(stored.run.state)) {
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
      };
      const deliver = (stored: StoredRunEvent) => {
        if (stored.event_id <= highest) return;
        highest = stored.event_id;
        queue.push(stored);
        pump();
      };
      // Live events that arrive while the replay is read wait for it, so ids go out in order.
      const early: StoredRunEvent[] = [];
      let replaying = true;
      unsubscribe = options.runs.store.subscribe(dispatchId, (stored) => (replaying ? early.push(stored) : deliver(stored)));
      const replay = await options.runs.store.eventsSince(dispatchId, lastEventId);
      for (const stored of [...replay, ...early].sort((a, b) => a.event_id - b.event_id)) deliver(stored);
      replaying = false;
      if (closed) return;
      // A run already over whose finish was before Last-Event-ID: nothing more will come.
      if (TERMINAL_RUN_STATES.has((await options.runs.get(dispatchId)).state) && queue.length === 0 && replay.length === 0 && early.length === 0) {
        end();
        return;
      }
      keepalive = setInterval(() => {
        if (!closed && !waiting) raw.write(":keepalive\n\n");
      }, keepaliveMs);
    },
  );
};
