import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { systemClock, type Clock } from "./clock";
import { errorHandler } from "./http/error-handler";
import { historyRoutes } from "./learning/history-routes";
import { createLearnEventLog, type LearnEventLog } from "./learning/learn-event-log";
import { runtimeRoutes } from "./learning/runtime-routes";
import { sessionEventsRoute } from "./learning/session-events-route";
import { sessionRoutes } from "./learning/session-routes";
import { createSessionService, type SessionService } from "./learning/session-service";
import type { MemoryStore } from "./memory/memory-store";
import { createAdapterRegistry, type AdapterRegistry } from "./observation/adapter-registry";
import { adapterRoutes } from "./observation/adapter-routes";
import { healthRoutes } from "./routes/health-routes";
import { pairingRoutes } from "./routes/pairing-routes";
import { loadOrCreateAgentToken } from "./security/agent-token";
import { createPairingService } from "./security/pairing-service";
import { requestGuard } from "./security/request-guard";

export interface BuildAppOptions {
  memory: MemoryStore;
  /** The port the agent is configured for; port 0 means "whatever the OS gave us" once listening. */
  port: number;
  logger?: FastifyServerOptions["logger"] | FastifyBaseLogger;
  clock?: Clock;
  /** SSE keepalive period (§0C.16C: 30 s); tests shorten it. */
  keepaliveMs?: number;
}

/** The learning runtime's services, for in-process callers (ingest, retention, tests). */
export interface LearningRuntime {
  sessions: SessionService;
  events: LearnEventLog;
  adapters: AdapterRegistry;
  clock: Clock;
}

declare module "fastify" {
  interface FastifyInstance {
    learning: LearningRuntime;
  }
}

/** Observation bodies and the token never reach a log line: only method, path and status do. */
const requestSerializers = {
  req: (request: { method: string; url: string; id: string }) => ({
    id: request.id,
    method: request.method,
    path: request.url.split("?")[0],
  }),
  res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
};

export function agentLoggerOptions(level = "info"): FastifyServerOptions["logger"] {
  return { level, serializers: requestSerializers, redact: ["req.headers", "headers.authorization"] };
}

/** Builds the agent (fastify/demo style): plugins and routes wired, nothing listening yet. */
export async function buildApp(options: BuildAppOptions) {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? false;
  const app = Fastify({
    ...(typeof logger === "object" && "child" in logger ? { loggerInstance: logger } : { logger }),
    bodyLimit: 1024 * 1024,
    // Request ids double as the envelope's correlation_id; random, never derived from input.
    genReqId: () => crypto.randomUUID(),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON is the only body the local API speaks; anything else is a 415, not a string to validate.
  app.removeContentTypeParser("text/plain");

  const token = await loadOrCreateAgentToken(options.memory);
  const pairing = await createPairingService({ memory: options.memory, now: () => clock.now() });
  const adapters = createAdapterRegistry({ clock });
  const events = await createLearnEventLog({ memory: options.memory, clock });
  const sessions = await createSessionService({ memory: options.memory, clock, events, adapters });
  app.decorate("learning", { sessions, events, adapters, clock });

  await app.register(errorHandler);
  await app.register(requestGuard, {
    token,
    pairing,
    allowedPorts: () => {
      const address = app.server.address();
      return typeof address === "object" && address !== null ? [address.port] : [options.port];
    },
  });
  await app.register(healthRoutes);
  await app.register(pairingRoutes, { pairing });
  await app.register(runtimeRoutes, { memory: options.memory });
  await app.register(sessionRoutes, { sessions });
  await app.register(sessionEventsRoute, { sessions, events, ...(options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs }) });
  await app.register(historyRoutes, { sessions, memory: options.memory });
  await app.register(adapterRoutes, { adapters });
  return app;
}

export type AgentApp = Awaited<ReturnType<typeof buildApp>>;
