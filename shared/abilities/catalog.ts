import { z } from "zod";
import { InstallLaneSchema } from "../skills/proposal";
import { AbilitySourceSchema } from "./availability";

/** §0C.11A One row of the Skills catalog. */
export const SkillCatalogEntrySchema = z.object({
  ability_id: z.string().max(160),
  title: z.string().max(200),
  family: z.string().max(80),
  source: AbilitySourceSchema,
  install_lane: InstallLaneSchema.extract(["experimental_private", "approved_workspace", "shared_promoted", "quarantined"]),
  enabled: z.boolean(),
  usable_now: z.boolean(),
  reason_unusable: z.string().max(240).optional(),
  tags: z.array(z.string().max(80)).default([]),
  category_ids: z.array(z.string().uuid()).default([]),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.11A */
export type SkillCatalogEntry = z.infer<typeof SkillCatalogEntrySchema>;

/** §0C.11A Contents of `system/abilities/catalog_current.json`. */
export const SkillCatalogCurrentSchema = z.object({
  items: z.array(SkillCatalogEntrySchema),
  refreshed_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.11A */
export type SkillCatalogCurrent = z.infer<typeof SkillCatalogCurrentSchema>;
