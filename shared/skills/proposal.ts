import { z } from "zod";

/**
 * §0C.10A / §0A.17 / §0.4E Where a learned or imported skill is installed. The spec repeats this
 * enum inline in several schemas, sometimes as a subset; it is defined once here and the subsets
 * are taken with `.extract()` so a lane can never be spelled two ways.
 */
export const InstallLaneSchema = z.enum(["pending", "experimental_private", "approved_workspace", "shared_promoted", "quarantined"]);
/** §0C.10A */
export type InstallLane = z.infer<typeof InstallLaneSchema>;

/** §0C.10A Lifecycle of a skill bundle proposal, including §0A.17's `installing_private` and `quarantined`. */
export const SkillBundleProposalStateSchema = z.enum([
  "draft",
  "awaiting_questions",
  "testing",
  "ready_for_review",
  "installing_private",
  "installed_private",
  "approved",
  "rejected",
  "cancelled",
  "quarantined",
]);
/** §0C.10A */
export type SkillBundleProposalState = z.infer<typeof SkillBundleProposalStateSchema>;

/**
 * §0C.10A, resolved per §0C.19 ("§0.2F extended with §0A.17 fields").
 *
 * §0C.10A is the newest text and supplies most fields. It leaves out two that both sources named
 * by §0C.19 carry, so they are added back here:
 * - `source_mode`, required in §0.2F and §0A.17; §0A.17's four values are used because they are a
 *   superset of §0.2F's three. A demonstration in the browser is `user_guided` (§0.4C).
 * - `ambiguity_flags` from §0.2F, defaulting to `[]` so §0C.10A-shaped data still parses.
 * Where the sources disagree, §0C.10A wins: `draft_graph_ref` stays optional (§0A.17 required it)
 * and `install_lane` includes `quarantined` (§0A.17 did not).
 */
export const SkillBundleProposalSchema = z.object({
  proposal_id: z.string().uuid(),
  learn_session_id: z.string().uuid().optional(),
  interpretation_id: z.string().uuid().optional(),
  source_trace_ids: z.array(z.string().uuid()).min(1),
  source_mode: z.enum(["elnor_observed", "user_guided", "desktop_observed", "exploratory"]),
  title: z.string().max(160),
  proposed_skill_slug: z.string().max(120),
  trigger_phrases: z.array(z.string().max(120)).default([]),
  negative_triggers: z.array(z.string().max(120)).default([]),
  draft_skill_path: z.string().max(240),
  draft_manifest_path: z.string().max(240),
  draft_graph_ref: z.string().max(240).optional(),
  proposal_state: SkillBundleProposalStateSchema,
  install_lane: InstallLaneSchema.default("pending"),
  ability_id: z.string().max(160).optional(),
  primary_capability_id: z.string().max(160).optional(),
  support_pack_refs: z.array(z.string().max(240)).default([]),
  ambiguity_flags: z.array(z.string().max(160)).default([]),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.10A */
export type SkillBundleProposal = z.infer<typeof SkillBundleProposalSchema>;
