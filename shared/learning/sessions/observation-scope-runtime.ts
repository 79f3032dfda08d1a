import { z } from "zod";

/**
 * §0C.8 What is being watched right now, for the privacy banner and for answering "what data is
 * observed". Stored at `system/learning/runtime/observation_scope_current.json`.
 */
export const ObservationScopeRuntimeSchema = z.object({
  learn_session_id: z.string().uuid(),
  adapters_active: z.array(z.string().max(80)).default([]),
  data_classes_observed: z.array(z.string().max(80)).default([]),
  redaction_modes: z.record(z.string(), z.string()).default({}),
  scope: z.enum(["inside_agent", "outside_agent", "mixed", "none"]),
  target_app_whitelist: z.array(z.string().max(160)).default([]),
  off_target_events_dropped: z.number().int().min(0).default(0),
  started_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.8 */
export type ObservationScopeRuntime = z.infer<typeof ObservationScopeRuntimeSchema>;
