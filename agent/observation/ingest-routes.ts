/// <reference types="@fastify/websocket" />
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { WebSocket } from "ws";
import { z } from "zod";
import { ObservationScopeRuntimeSchema } from "../../shared/learning/sessions/observation-scope-runtime";
import { ObservationBatchAckSchema, ObservationBatchRequestSchema, SetRedactionRequestSchema } from "../../shared/observation/capture-protocol";
import { AppError } from "../errors/app-error";
import type { TabRelay } from "../execution/in-tab/tab-relay";
import type { RunNotices } from "../execution/runs/run-notices";
import type { ObservedSessions } from "./observed-sessions";
import type { AdapterRegistry } from "./adapter-registry";
import type { IngestService } from "./ingest-service";
import { openCaptureSocket } from "./capture-socket";

export interface IngestRoutesOptions {
  ingest: IngestService;
  sessions: Pick<ObservedSessions, "setRedaction" | "onCurrentChange" | "current">;
  adapters: AdapterRegistry;
  token: string;
  /** A socket that has not said hello with the token by then is closed. */
  helloTimeoutMs?: number;
  /** In-tab runs (issue #21): a browser extension's socket also lends tabs through this relay. */
  tabRelay?: TabRelay;
  /** Issue #33: a browser extension's socket is told which runs wait for the person (after welcome, then each change). */
  runNotices?: Pick<RunNotices, "waiting" | "subscribe">;
}

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });

/**
 * Observation ingest (issue #4): `POST /api/observations/events` for desktop adapters and
 * `GET /api/observations/stream`, the extension's one WebSocket. Both take the same batch and
 * answer the same per-event acknowledgement, sent only after the accepted events are fsynced.
 */
export const ingestRoutes: FastifyPluginAsyncZod<IngestRoutesOptions> = async (app, options) => {
  app.post(
    "/api/observations/events",
    { bodyLimit: 4 * 1024 * 1024, schema: { body: ObservationBatchRequestSchema, response: { 200: ObservationBatchAckSchema } } },
    async (request) => options.ingest.ingest(request.body),
  );

  app.put(
    "/api/learn/sessions/:sessionId/redaction",
    { schema: { params: SessionParamsSchema, body: SetRedactionRequestSchema, response: { 200: ObservationScopeRuntimeSchema } } },
    async (request) => options.sessions.setRedaction(request.params.sessionId, request.body.text_entry),
  );

  const sockets = new Set<WebSocket>();
  app.addHook("preClose", async () => {
    for (const socket of sockets) socket.close(1001, "agent closing");
  });

  app.route({
    method: "GET",
    url: "/api/observations/stream",
    config: { access: "socket" },
    schema: { hide: true },
    // A plain GET (no upgrade) gets a coded answer instead of the plugin's empty 404.
    handler: async () => {
      throw new AppError("REQUEST_INVALID", "This route speaks WebSocket only; open it with an upgrade request.");
    },
    wsHandler: (socket, request) => openCaptureSocket(socket, request, options, sockets),
  });
};
