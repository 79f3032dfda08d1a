import { z } from "zod";
import { ControlSurfaceSchema } from "./control-surface";

/**
 * The capability manifest is §1.1B (R9) as extended by R9.1 §3.2, which adds
 * `retrieval_corpus_hints` ("existing R9 fields…"). R10's consolidation rule says later merged
 * revision blocks govern, so the extension is kept; it defaults to `[]`, so R9-shaped manifests
 * still parse, and keeping it means a manifest written by another tool does not lose its hints
 * on a read/write round trip. `surface_order` uses the §0.2A control surfaces (§0C.19), not the
 * superseded list printed next to §1.1B.
 */

/** §1.1B What kind of thing a capability is. */
export const CapabilityKindSchema = z.enum(["native_openclaw_tool", "bridge_tool", "wrapper_script", "workflow_pattern", "promoted_skill"]);
/** §1.1B */
export type CapabilityKind = z.infer<typeof CapabilityKindSchema>;

/** §1.1B How a run of the capability is checked afterwards. */
export const VerificationRuleSchema = z.object({
  kind: z.enum(["tool_result", "file_hash", "window_state", "snapshot_label", "api_state", "manual_confirmation"]),
  target: z.string().max(240),
  expected: z.string().max(240).optional(),
});
/** §1.1B */
export type VerificationRule = z.infer<typeof VerificationRuleSchema>;

/** §1.1B How the capability's health is probed. */
export const HealthProbeSchema = z.object({
  kind: z.enum(["command", "tool", "browser", "noop"]),
  target: z.string().max(240),
  timeout_ms: z.number().int().positive().default(3000),
});
/** §1.1B */
export type HealthProbe = z.infer<typeof HealthProbeSchema>;

/**
 * R9.1 §3.2 A semantic corpus the capability benefits from. R9.1's five purposes are used; the
 * earlier LlamaIndex addendum listed four (no `support_pack_lookup`) and is the older block.
 */
export const RetrievalCorpusHintSchema = z.object({
  corpus_id: z.string().max(120),
  purpose: z.enum(["matter_semantic_search", "brief_bank_lookup", "prelit_lookup", "cross_corpus_support", "support_pack_lookup"]),
  priority: z.enum(["critical", "useful", "background"]).default("useful"),
});
/** R9.1 §3.2 */
export type RetrievalCorpusHint = z.infer<typeof RetrievalCorpusHintSchema>;

/**
 * §1.1B + R9.1 §3.2 Machine-readable manifest of a routable capability. Canonical copy at
 * `system/capabilities/manifests/<capability_id>.json`; workspace copies are read-only projections (§0.3).
 */
export const CapabilityManifestSchema = z.object({
  capability_id: z.string().max(160),
  family: z.string().max(80),
  kind: CapabilityKindSchema,
  title: z.string().max(200),
  origin_skill: z.string().max(120),
  aliases: z.array(z.string().max(80)).default([]),
  action_verbs: z.array(z.string().max(80)).default([]),
  surface_order: z.array(ControlSurfaceSchema).min(1),
  runtime_binding: z.object({
    binding_kind: z.enum(["native_tool", "bridge_tool", "script", "workflow_pattern"]),
    target: z.string().max(240),
  }),
  required_runtime_caps: z.array(z.string().max(120)).default([]),
  permissions: z.array(z.string().max(120)).default([]),
  requires_supervision: z.boolean().default(false),
  dry_run_supported: z.boolean().default(false),
  routing_eligible: z.boolean().default(true),
  verification: z.array(VerificationRuleSchema).min(1),
  health_probe: HealthProbeSchema,
  learning_policy: z.object({
    teach_mode_allowed: z.boolean().default(true),
    promotion_source_template_id: z.string().max(160).optional(),
    auto_capture_trace: z.boolean().default(true),
    proposal_required_for_mutation: z.boolean().default(true),
  }),
  retrieval_corpus_hints: z.array(RetrievalCorpusHintSchema).default([]),
  schema_version: z.literal(1),
});
/** §1.1B */
export type CapabilityManifest = z.infer<typeof CapabilityManifestSchema>;
