import { z } from "zod";
import { ControlSurfaceSchema } from "../capabilities/control-surface";
import { ValidationRunSchema } from "../learning/proposals/validation-run";
import { InstallLaneSchema } from "../skills/proposal";

/** §0C.11A Where an ability came from; the spec repeats this enum in the catalog entry. */
export const AbilitySourceSchema = z.enum(["learned", "imported", "native", "promoted"]);
/** §0C.11A */
export type AbilitySource = z.infer<typeof AbilitySourceSchema>;

/** How the last validation of an installed ability ended: a §0C.10 run's `overall_result`. */
export const LastValidationResultSchema = ValidationRunSchema.shape.overall_result;
/** How the last validation of an installed ability ended. */
export type LastValidationResult = z.infer<typeof LastValidationResultSchema>;

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
  install_lane: InstallLaneSchema.extract(["experimental_private", "approved_workspace", "shared_promoted", "quarantined"]),
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
  /** When the validation of the installed content ended (its run's `completed_at`); absent: never validated. */
  last_validated_at: z.string().datetime().optional(),
  /** Ours, beside `last_validated_at`: how that validation ended (`partial`: some checks could not run). */
  last_validation_result: LastValidationResultSchema.optional(),
  /** Ours: the installed SKILL.md's `version` (§0.2C frontmatter). */
  skill_version: z.string().max(32).optional(),
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
