import { AbilityLookupQuerySchema, AbilityLookupResultSchema } from "../../../shared/abilities/lookup-contract";
import {
  AbilityActivateResponseSchema,
  AbilityAvailabilityResponseSchema,
  AbilityDeactivateResponseSchema,
  AbilityPromoteSharedResponseSchema,
  AbilityQuarantineResponseSchema,
  AbilityUnquarantineResponseSchema,
} from "../../../shared/learning/route-contracts";
import { QuarantineAbilityRequestSchema } from "../../../shared/learning/sessions/session-requests";
import { requestBody, type AgentTransport } from "../transport/agent-transport";

export const abilityPath = (id: string) => `/api/abilities/${encodeURIComponent(id)}`;

/** Abilities (§0C.16A; routes of issue #6, absent on older agents: ROUTE_NOT_FOUND). */
export function abilityRoutes({ call, send, answerOf, timeoutMs }: AgentTransport) {
  const ability = abilityPath;

  /** The availability answer with what its headers say: stale (§0C.11B) and its entity tag. */
  async function availabilityOf(response: Response) {
    const data = await answerOf(response, AbilityAvailabilityResponseSchema);
    return { ...data, stale: response.headers.get("x-availability-stale") === "true", etag: response.headers.get("etag") };
  }

  return {
    /** The snapshot, and whether the agent says it is stale (§0C.11B: "refreshing abilities…"). */
    abilityAvailability: async () => availabilityOf(await send("GET", "/api/abilities/availability", { signal: AbortSignal.timeout(timeoutMs) })),
    /**
     * The availability snapshot unless it is still the one tagged `etag` (the agent answers 304):
     * what the Skills page polls while it is open (R11.2-35).
     */
    async abilityAvailabilityIfChanged(etag: string) {
      const response = await send("GET", "/api/abilities/availability", { headers: { "if-none-match": etag }, signal: AbortSignal.timeout(timeoutMs) });
      if (response.status === 304) return { changed: false as const };
      return { changed: true as const, ...(await availabilityOf(response)) };
    },
    activateAbility: (id: string) => call("POST", `${ability(id)}/activate`, AbilityActivateResponseSchema, {}),
    deactivateAbility: (id: string) => call("POST", `${ability(id)}/deactivate`, AbilityDeactivateResponseSchema, {}),
    quarantineAbility: (id: string, reason: string) =>
      call("POST", `${ability(id)}/quarantine`, AbilityQuarantineResponseSchema, requestBody(QuarantineAbilityRequestSchema, { reason })),
    unquarantineAbility: (id: string) => call("POST", `${ability(id)}/unquarantine`, AbilityUnquarantineResponseSchema, {}),
    promoteAbility: (id: string) => call("POST", `${ability(id)}/promote-shared`, AbilityPromoteSharedResponseSchema, {}),
    /** Issue #15: abilities that fit a request in the user's words, best first, in every lane (the Skills search). */
    lookupAbilities: (userQuery: string) =>
      call(
        "POST",
        "/api/abilities/lookup",
        AbilityLookupResultSchema,
        requestBody(AbilityLookupQuerySchema, {
          user_query: userQuery.slice(0, 500),
          install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
          schema_version: 1,
        }),
      ),
  };
}
