import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { ABILITY_ID_PATTERN } from "../../../shared/execution/run-contract";
import { GRANT_ID_PATTERN, RevokeRunGrantRequestSchema, RunGrantListResponseSchema, RunGrantResponseSchema } from "../../../shared/execution/run-grants";
import type { AbilityRegistry } from "../../abilities/ability-registry";
import { AppError } from "../../errors/app-error";
import type { Approvals } from "./approvals";

export interface GrantRoutesOptions {
  approvals: Approvals;
  registry: Pick<AbilityRegistry, "get">;
}

const AbilityParamsSchema = z.object({ abilityId: z.string().regex(ABILITY_ID_PATTERN) });
const GrantParamsSchema = AbilityParamsSchema.extend({ grantId: z.string().regex(GRANT_ID_PATTERN) });

const TERMS =
  "A grant's terms: the skill (`ability_id`) and its `skill_version`, the step (`step_id`, `step_label`), the site (`site_host`), the inputs (`exact`: the run's non-secret input values, kept only as keyed hashes, never shown; or `any`), the delete/pay classes the person ticked (`consequence_classes`) and an optional `expires_at`. A later run goes past that step without asking only while every term holds; its §0.8 capability-use receipt then says `approval_mode: standing_order` and its run record's step says which grant (`standing_grant_id`). Grants are created only by the person, with `always_allow` on `POST /api/runs/{dispatchId}/confirm`.";

const SCHEMAS = {
  list: {
    tags: ["runs"],
    summary: "The standing grants of an ability (issue #33)",
    description: `Newest first, revoked ones left out; each with \`state\` (\`active\` or \`expired\`), \`created_at\`, \`last_used_at\` and \`use_count\`. ABILITY_NOT_FOUND for an ability this agent did not install. ${TERMS}`,
    params: AbilityParamsSchema,
    response: { 200: RunGrantListResponseSchema },
  },
  revoke: {
    tags: ["runs"],
    summary: "Revoke a standing grant at once",
    description: `From this answer on, no run goes past the step on this grant: the next one asks the person again. RUN_GRANT_NOT_FOUND when the ability has no such grant (nothing changes); revoking a revoked grant answers it unchanged. ${TERMS}`,
    params: GrantParamsSchema,
    body: RevokeRunGrantRequestSchema,
    response: { 200: RunGrantResponseSchema },
  },
};

/** Issue #33: an ability's standing grants, listed and revoked (created only through a run's confirmation). */
export const grantRoutes: FastifyPluginAsyncZod<GrantRoutesOptions> = async (app, { approvals, registry }) => {
  app.get("/api/abilities/:abilityId/grants", { schema: SCHEMAS.list }, async (request) => {
    const { abilityId } = request.params;
    if (registry.get(abilityId) === undefined) throw new AppError("ABILITY_NOT_FOUND", `No ability ${abilityId} installed by this agent.`);
    return { ability_id: abilityId, grants: approvals.list(abilityId), schema_version: 1 as const };
  });

  app.post("/api/abilities/:abilityId/grants/:grantId/revoke", { schema: SCHEMAS.revoke }, async (request) => ({
    grant: await approvals.revoke(request.params.abilityId, request.params.grantId),
    schema_version: 1 as const,
  }));
};
