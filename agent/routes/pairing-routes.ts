import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { PairingRequestSchema, PairingResponseSchema } from "../../shared/common/pairing";
import { AppError } from "../errors/app-error";
import type { PairingService } from "../security/pairing-service";
import { AGENT_VERSION } from "../../shared/common/agent-version";

const EXTENSION_ORIGIN = /^chrome-extension:\/\/([a-p]{32})$/;

export interface PairingRoutesOptions {
  pairing: PairingService;
}

/**
 * `POST /api/pairing` records which extension holds the token; `GET /api/pairing` lets the side
 * panel check that it is still the paired one (its status line: connected / token rejected).
 */
export const pairingRoutes: FastifyPluginAsyncZod<PairingRoutesOptions> = async (app, { pairing }) => {
  app.post(
    "/api/pairing",
    {
      config: { access: "pairing" },
      schema: { body: PairingRequestSchema, response: { 200: PairingResponseSchema } },
    },
    async (request) => {
      const origin = request.headers.origin;
      const fromOrigin = origin === undefined ? undefined : EXTENSION_ORIGIN.exec(origin)?.[1];
      // From a browser, the id must be the caller's own: a page cannot pair someone else's extension.
      if (origin !== undefined && fromOrigin !== request.body.extension_id) {
        throw new AppError("ORIGIN_NOT_ALLOWED", "Pair from the extension itself: its Origin must carry the same id.");
      }
      const record = await pairing.pair(request.body.extension_id);
      return { paired: true as const, ...record, agent_version: AGENT_VERSION };
    },
  );

  app.get("/api/pairing", { schema: { response: { 200: PairingResponseSchema } } }, async () => {
    const record = pairing.current();
    if (record === undefined) {
      throw new AppError("ORIGIN_NOT_ALLOWED", "No extension is paired yet. Pair from the side panel with the agent's token.");
    }
    return { paired: true as const, ...record, agent_version: AGENT_VERSION };
  });
};
