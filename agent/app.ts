import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { errorHandler } from "./http/error-handler";
import { runtimeRoutes } from "./learning/runtime-routes";
import type { MemoryStore } from "./memory/memory-store";
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
  now?: () => Date;
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
  const now = options.now ?? (() => new Date());
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
  const pairing = await createPairingService({ memory: options.memory, now });

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
  return app;
}

export type AgentApp = Awaited<ReturnType<typeof buildApp>>;
