import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { AGENT_VERSION } from "../../shared/common/agent-version";

/**
 * The local API described as OpenAPI 3, generated from the same zod schemas that validate the
 * routes, so the description cannot drift from what the agent accepts. Served at
 * `GET /api/openapi.json` (token required like every route but health) for adapter authors.
 * Registered before the routes so it sees each of them.
 */
export const openApiDocs = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        info: {
          title: "elnor-learn local agent API",
          version: AGENT_VERSION,
          description:
            "Loopback-only API of the elnor-learn agent. Send `Authorization: Bearer <token>` (printed by `npm start`, stored in ELNOR_MEMORY/system/agent/token); the observation WebSocket `GET /api/observations/stream` takes the token in its first frame instead (frames: shared/observation/capture-protocol.ts — hello, batch, heartbeat in; welcome, ack, session, error out).\n\nRun an ability (issue #21): `POST /api/abilities/lookup` → pick a match that is `usable_now` → `GET /api/abilities/{abilityId}/run-spec` (inputs: names, types, which are secret) → `POST /api/runs` (202) → follow `GET /api/runs/{dispatchId}/events` or poll `GET /api/runs/{dispatchId}`; on `needs_confirmation` send the person's answer to `POST /api/runs/{dispatchId}/confirm` → the result: `succeeded` with every checkpoint `reached`, or `failure` with what the page showed; receipts at `GET /api/dispatches/{dispatchId}/checkpoint-receipts`.\n\nRuns on a schedule (issue #33): `POST /api/schedules` (daily at, weekly on, every N hours, in an IANA time zone; non-secret inputs only: a skill with a secret input answers ABILITY_NOT_SCHEDULABLE), `GET /api/schedules`, `GET /api/schedules/{scheduleId}`, `POST …/pause`, `POST …/resume`, `DELETE /api/schedules/{scheduleId}`. The agent runs a due schedule through `POST /api/runs`'s run service (`caller: \"schedule\"`), once after it was down; a schedule whose skill is deleted, deactivated or changes version pauses with `pause.code`. Only the person creates or changes schedules.\n\nStanding approvals (issue #33): the person may answer a confirmation with `always_allow` (terms: exact or any inputs, the delete/pay classes ticked, an optional expiry); a later run then goes past that step without asking while every term holds (skill and version, step, site, inputs, not revoked or expired), its capability-use receipt saying `approval_mode: standing_order`. `GET /api/abilities/{abilityId}/grants` lists them, `POST /api/abilities/{abilityId}/grants/{grantId}/revoke` revokes one at once.",
        },
        components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
        security: [{ bearer: [] }],
      },
      transform: jsonSchemaTransform,
    });
    app.after(() => {
      app.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());
    });
  },
  { name: "openapi-docs" },
);
