/// <reference types="@fastify/websocket" />
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { WebSocket } from "ws";
import { z } from "zod";
import { ObservationScopeRuntimeSchema } from "../../shared/learning/observation-scope-runtime";
import type { LearnSession } from "../../shared/learning/learn-session";
import type { ObservationScopeRuntime } from "../../shared/learning/observation-scope-runtime";
import {
  AgentFrameSchema,
  CAPTURE_CLOSE_CODES,
  ClientFrameSchema,
  ObservationBatchAckSchema,
  ObservationBatchRequestSchema,
  SetRedactionRequestSchema,
  type AgentFrame,
  type CaptureSessionState,
} from "../../shared/observation/capture-protocol";
import { AppError } from "../errors/app-error";
import { toAppError, toEnvelope } from "../http/error-handler";
import type { TabRelay, TabRelayLink } from "../execution/in-tab/tab-relay";
import type { RunNotices } from "../execution/runs/run-notices";
import type { ObservedSessions } from "./observed-sessions";
import { tokensMatch } from "../security/agent-token";
import { AGENT_VERSION } from "../../shared/common/agent-version";
import type { AdapterRegistry } from "./adapter-registry";
import type { IngestService } from "./ingest-service";
import { assertNever } from "../../shared/common/assert-never";

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

export function captureStateOf(session: LearnSession | undefined, scope: ObservationScopeRuntime | undefined): CaptureSessionState | null {
  if (session === undefined) return null;
  return {
    learn_session_id: session.learn_session_id,
    state: session.state,
    target_app_whitelist: session.target_app_whitelist,
    redaction_modes: scope?.redaction_modes ?? {},
  };
}

/**
 * Observation ingest (issue #4): `POST /api/observations/events` for desktop adapters and
 * `GET /api/observations/stream`, the extension's one WebSocket. Both take the same batch and
 * answer the same per-event acknowledgement, sent only after the accepted events are fsynced.
 */
export const ingestRoutes: FastifyPluginAsyncZod<IngestRoutesOptions> = async (app, options) => {
  const helloTimeoutMs = options.helloTimeoutMs ?? 5000;

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

  /** The extension's socket: hello with the token first, then batches, each answered once it is durable. */
  const onSocket = (socket: WebSocket, request: FastifyRequest) => {
    sockets.add(socket);
    let adapterIds: string[] = [];
    let hello = false;
    let queue: Promise<void> = Promise.resolve();
    let tabLink: TabRelayLink | undefined;
    let dropTabLink: (() => void) | undefined;
    let stopNotices: (() => void) | undefined;
    const send = (frame: AgentFrame): boolean => {
      if (socket.readyState !== socket.OPEN) return false;
      socket.send(JSON.stringify(AgentFrameSchema.parse(frame)));
      return true;
    };
    const stopListening = options.sessions.onCurrentChange((session, scope) => {
      if (hello) send({ type: "session", session: captureStateOf(session, scope) });
    });
    const timer = setTimeout(() => {
      if (!hello) socket.close(CAPTURE_CLOSE_CODES.helloTimeout, "say hello first");
    }, helloTimeoutMs);
    const beat = () => {
      for (const id of adapterIds) {
        const [adapterId, kind] = id.split("|") as [string, Parameters<AdapterRegistry["heartbeat"]>[0]["kind"]];
        options.adapters.heartbeat({ adapter_id: adapterId, kind, enabled: true });
      }
    };

    socket.on("message", (data) => {
      // Frames are handled one at a time, in order, so acks follow the batches they answer.
      queue = queue.then(async () => {
        // Once the agent has closed the socket (bad frame, no hello), frames that were already on
        // the wire are dropped, not ingested behind a close the sender reads as "not delivered".
        if (socket.readyState !== socket.OPEN) return;
        let frame;
        try {
          frame = ClientFrameSchema.safeParse(JSON.parse(data.toString()));
        } catch {
          frame = undefined;
        }
        if (frame === undefined || !frame.success) {
          socket.close(hello ? CAPTURE_CLOSE_CODES.badFrame : CAPTURE_CLOSE_CODES.unauthorized, "not a valid frame");
          return;
        }
        const message = frame.data;
        if (!hello) {
          if (message.type !== "hello" || !tokensMatch(options.token, message.token)) {
            socket.close(CAPTURE_CLOSE_CODES.unauthorized, "the first frame must be hello with the agent token");
            return;
          }
          hello = true;
          clearTimeout(timer);
          adapterIds = message.adapter_kinds.map((kind) => `${message.adapter_id}:${kind}|${kind}`);
          beat();
          const current = options.sessions.current();
          send({ type: "welcome", agent_version: AGENT_VERSION, session: captureStateOf(current?.session, current?.scope) });
          if (options.tabRelay !== undefined && message.adapter_kinds.includes("browser_dom")) {
            tabLink = { send };
            dropTabLink = options.tabRelay.connect(tabLink);
          }
          if (options.runNotices !== undefined && message.adapter_kinds.includes("browser_dom")) {
            send({ type: "run_notices", waiting: options.runNotices.waiting() });
            stopNotices = options.runNotices.subscribe((notice) => void send({ type: "run_notice", notice }));
          }
          return;
        }
        switch (message.type) {
          case "hello":
            return;
          case "heartbeat":
            beat();
            return;
          case "batch":
            beat();
            try {
              send({ type: "ack", ack: await options.ingest.ingest(message.batch) });
            } catch (error) {
              // Nothing of the batch is acknowledged; the sender keeps it and resends.
              const appError = toAppError(error);
              request.log.error({ code: appError.code }, "observation batch failed");
              send({ type: "error", envelope: toEnvelope(appError, request.id) });
            }
            return;
          case "tab_opened":
          case "tab_refused":
          case "tab_cdp_result":
          case "tab_cdp_event":
          case "tab_read_result":
          case "tab_ended":
            if (tabLink !== undefined) options.tabRelay?.receive(tabLink, message);
            return;
          default:
            return assertNever(message);
        }
      });
    });
    socket.on("close", () => {
      dropTabLink?.();
      stopNotices?.();
      clearTimeout(timer);
      stopListening();
      sockets.delete(socket);
      for (const id of adapterIds) options.adapters.disconnect(id.split("|")[0] ?? "");
    });
  };

  app.route({
    method: "GET",
    url: "/api/observations/stream",
    config: { access: "socket" },
    schema: { hide: true },
    // A plain GET (no upgrade) gets a coded answer instead of the plugin's empty 404.
    handler: async () => {
      throw new AppError("REQUEST_INVALID", "This route speaks WebSocket only; open it with an upgrade request.");
    },
    wsHandler: onSocket,
  });
};
