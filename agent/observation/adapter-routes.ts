import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ObservationAdapterStatusSchema } from "../../shared/learning/observed-actions/observation-adapter";
import { AdapterHeartbeatRequestSchema, ObservationAdaptersResponseSchema } from "../../shared/learning/sessions/session-requests";
import type { AdapterRegistry } from "./adapter-registry";

export interface AdapterRoutesOptions {
  adapters: AdapterRegistry;
}

/** §0C.22 adapter status: local adapters report in, and anyone paired can see which are healthy. */
export const adapterRoutes: FastifyPluginAsyncZod<AdapterRoutesOptions> = async (app, { adapters }) => {
  app.get("/api/observation/adapters", { schema: { response: { 200: ObservationAdaptersResponseSchema } } }, async () => ({
    adapters: adapters.list(),
    schema_version: 1 as const,
  }));

  app.post(
    "/api/observation/adapters/heartbeat",
    { schema: { body: AdapterHeartbeatRequestSchema, response: { 200: ObservationAdapterStatusSchema } } },
    async (request) => adapters.heartbeat(request.body),
  );
};
