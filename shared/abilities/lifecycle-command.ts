import { z } from "zod";

/** §0A.19 What can be done to an installed ability after install. */
export const AbilityLifecycleActionSchema = z.enum(["activate", "deactivate", "promote_shared", "demote_private", "quarantine", "unquarantine", "archive"]);
/** §0A.19 */
export type AbilityLifecycleAction = z.infer<typeof AbilityLifecycleActionSchema>;

/**
 * §0A.19 One lifecycle request against an ability, as the agent records it; the §0C.16 routes
 * (`POST /api/abilities/:abilityId/activate`, …) each map to one `action`.
 */
export const AbilityLifecycleCommandSchema = z.object({
  ability_id: z.string().max(160),
  action: AbilityLifecycleActionSchema,
  reason: z.string().max(240).optional(),
  requested_by: z.enum(["user", "system", "repair"]),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0A.19 */
export type AbilityLifecycleCommand = z.infer<typeof AbilityLifecycleCommandSchema>;
