import { z } from "zod";

/**
 * §1.1C The richer sidecar behind a compact bridge entry, at
 * `system/capabilities/metadata/<capability_id>.json`; EC-internal, never projected (§0C.23).
 * `control_surface_notes[].surface` is a free string in the spec, not `ControlSurfaceSchema`,
 * so notes about surfaces outside the canonical list still parse.
 */
export const CapabilityMetadataSchema = z.object({
  capability_id: z.string().max(160),
  summary: z.string().max(1000),
  source_refs: z.array(z.string().max(240)).default([]),
  control_surface_notes: z
    .array(
      z.object({
        surface: z.string().max(80),
        notes: z.string().max(500),
      }),
    )
    .default([]),
  dependency_refs: z.array(z.string().max(240)).default([]),
  page_knowledge_refs: z.array(z.string().max(240)).default([]),
  ui_anchor_refs: z.array(z.string().max(240)).default([]),
  bucket_refs: z.array(z.string().max(240)).default([]),
  known_failure_modes: z
    .array(
      z.object({
        trigger: z.string().max(240),
        recovery_ref: z.string().max(240),
      }),
    )
    .default([]),
  schema_version: z.literal(1),
});
/** §1.1C */
export type CapabilityMetadata = z.infer<typeof CapabilityMetadataSchema>;
