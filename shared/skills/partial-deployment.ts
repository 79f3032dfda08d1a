import { z } from "zod";

/**
 * §0C.28 Tells the side panel that an install landed but a later saga step
 * (availability, catalog, bridge, receipt) has not caught up yet.
 */
export const LearnPartialDeploymentStateSchema = z.object({
  state: z.enum(["none", "availability_pending", "catalog_pending", "bridge_pending", "receipt_pending", "degraded"]),
  blocking: z.boolean(),
  reason_code: z.string().max(120).optional(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.28 */
export type LearnPartialDeploymentState = z.infer<typeof LearnPartialDeploymentStateSchema>;
