import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { AgentHealthResponseSchema } from "../../shared/common/agent-health";
import { AGENT_VERSION } from "../../shared/common/agent-version";

/** `GET /api/health`: the one route without a token (see AgentHealthResponseSchema). */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get("/api/health", { config: { access: "public" }, schema: { response: { 200: AgentHealthResponseSchema } } }, async () => ({
    status: "ok" as const,
    service: "elnor-learn-agent" as const,
    version: AGENT_VERSION,
    schema_version: 1 as const,
  }));
};
