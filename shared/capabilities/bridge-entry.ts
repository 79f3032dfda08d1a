import { z } from "zod";

/**
 * §1.1C Compact per-capability record the router (DOC10) reads. §0C.19 fixes the R11.1 form:
 * four `origin_owner` values, `updated_at` as an ISO datetime, `metadata_ref` capped at 240.
 */
export const CapabilityRegistryBridgeEntrySchema = z.object({
  capability_id: z.string().max(160),
  family: z.string().max(80),
  title: z.string().max(200),
  aliases: z.array(z.string().max(80)).max(20).default([]),
  action_verbs: z.array(z.string().max(80)).max(20).default([]),
  route_tier: z.number().int().min(1).max(5),
  requires_supervision: z.boolean().default(false),
  dry_run_supported: z.boolean().default(false),
  routing_eligible: z.boolean().default(true),
  health_status: z.enum(["healthy", "degraded", "quarantined", "disabled", "unknown"]),
  health_reason_code: z.string().max(120).optional(),
  origin_owner: z.enum(["doc3", "doc4_bridge", "openclaw_native", "provisional_scanner"]),
  built_in_openclaw: z.boolean().default(false),
  metadata_ref: z.string().max(240),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §1.1C */
export type CapabilityRegistryBridgeEntry = z.infer<typeof CapabilityRegistryBridgeEntrySchema>;

/**
 * Contents of `system/capabilities/bridge_entries_current.json` (§1.1C, §10.1). The spec names
 * the file but never gives its top-level shape; this wrapper is our decision. A rebuild replaces
 * the whole file atomically and a failed rebuild keeps the last good one (§0.3), so `rebuilt_at`
 * tells a reader how old the entries are.
 */
export const CapabilityBridgeCurrentSchema = z.object({
  entries: z.array(CapabilityRegistryBridgeEntrySchema),
  rebuilt_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §1.1C (wrapper ours) */
export type CapabilityBridgeCurrent = z.infer<typeof CapabilityBridgeCurrentSchema>;
