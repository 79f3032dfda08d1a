import Fastify, { type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../errors/app-error";
import { clientErrorHandler, frameworkErrorHandler } from "../http/error-handler";
import type { BuildAppOptions } from "./app-options";

declare module "fastify" {
  interface FastifyInstance {
    registeredRoutes: ReadonlyArray<{ method: string; url: string }>;
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

/** The HTTP app before any service or route: limits, request ids, zod schemas, JSON bodies only. */
export function createHttpApp(logger: BuildAppOptions["logger"] = false) {
  const registeredRoutes: Array<{ method: string; url: string }> = [];
  const app = Fastify({
    ...(typeof logger === "object" && "child" in logger ? { loggerInstance: logger } : { logger }),
    bodyLimit: 1024 * 1024,
    // Request ids double as the envelope's correlation_id; random, never derived from input.
    genReqId: () => crypto.randomUUID(),
    // What the router and Node's HTTP parser refuse gets the envelope too (issue #8 fuzzing).
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Node would answer a request without Host with its own bare 400; the guard answers it instead
    // (HOST_NOT_ALLOWED, in the envelope), as it does every other Host it will not serve.
    http: { requireHostHeader: false },
  }).withTypeProvider<ZodTypeProvider>();
  // Kept so tests can check that the OpenAPI description covers every route.
  app.decorate("registeredRoutes", registeredRoutes);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) registeredRoutes.push({ method, url: route.url });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON is the only body the local API speaks; anything else is a 415, not a string to validate.
  app.removeContentTypeParser("text/plain");
  // … and uncompressed: fastify ignores Content-Encoding, so a "gzip" body would be read as if it were plain JSON.
  app.addHook("preParsing", async (request) => {
    const encoding = request.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the request body uncompressed, without a Content-Encoding.");
    }
  });
  return app;
}

export type HttpApp = ReturnType<typeof createHttpApp>;
