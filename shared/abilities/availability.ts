import { z } from "zod";
import { ControlSurfaceSchema } from "../capabilities/control-surface";
import { InstallLaneSchema } from "../skills/proposal";

/** §0C.11A Where an ability came from; the spec repeats this enum in the catalog entry. */
export const AbilitySourceSchema = z.enum(["learned", "imported", "native", "promoted"]);
/** §0C.11A */
export type AbilitySource = z.infer<typeof AbilitySourceSchema>;

/**
 * §0C.11A One installed ability as lookup and routing see it. `pending` is not a lane here:
 * only installed abilities enter the snapshot.
 */
export const AbilityAvailabilityEntrySchema = z.object({
  ability_id: z.string().max(160),
  title: z.string().max(200),
  family: z.string().max(80),
  source: AbilitySourceSchema,
  skill_slug: z.string().max(120).optional(),
  primary_capability_id: z.string().max(160).optional(),
  install_lane: InstallLaneSchema.extract([
    "experimental_private",
    "approved_workspace",
    "shared_promoted",
    "quarantined",
  ]),
  enabled: z.boolean(),
  usable_now: z.boolean(),
  reason_unusable: z.string().max(240).optional(),
  trigger_phrases: z.array(z.string().max(120)).default([]),
  negative_triggers: z.array(z.string().max(120)).default([]),
  aliases: z.array(z.string().max(120)).default([]),
  project_scopes: z.array(z.string().max(160)).default([]),
  preferred_control_surfaces: z.array(ControlSurfaceSchema).default([]),
  support_pack_refs: z.array(z.string().max(240)).default([]),
  checkpoint_health: z.enum(["strong", "moderate", "weak", "no_data", "quarantined"]).optional(),
  last_validated_at: z.string().datetime().optional(),
  schema_version: z.literal(1),
});
/** §0C.11A */
export type AbilityAvailabilityEntry = z.infer<typeof AbilityAvailabilityEntrySchema>;

/**
 * §0C.11A Contents of `system/abilities/availability_current.json`, rebuilt by the agent on every
 * §0C.11B trigger. Readers compare `snapshot_as_of` with the latest trigger to detect staleness.
 */
export const AbilityAvailabilitySnapshotSchema = z.object({
  abilities: z.array(AbilityAvailabilityEntrySchema),
  snapshot_as_of: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.11A */
export type AbilityAvailabilitySnapshot = z.infer<typeof AbilityAvailabilitySnapshotSchema>;
