import { z } from "zod";

/**
 * One difference between an installed skill and a proposal that improves it (§0C.4 "Improving
 * Existing Skill": a delta, never an edit in place). `subject` names the item — the phrase itself
 * for a trigger, `{{name}}` for a parameter, "Checkpoint 2" for a checkpoint — and `installed` /
 * `proposed` are its text on each side. All of it is plain text, some of it page-derived: a client
 * renders it as text, never as markup.
 */
export const SkillDeltaChangeSchema = z.discriminatedUnion("change", [
  z.object({ change: z.literal("added"), subject: z.string().max(240), proposed: z.string().max(600) }),
  z.object({ change: z.literal("removed"), subject: z.string().max(240), installed: z.string().max(600) }),
  z.object({ change: z.literal("changed"), subject: z.string().max(240), installed: z.string().max(600), proposed: z.string().max(600) }),
]);
export type SkillDeltaChange = z.infer<typeof SkillDeltaChangeSchema>;

const changes = z.array(SkillDeltaChangeSchema).max(100);

/**
 * Our addition to §0C.16A's proposal detail (`skill_delta`), present when the proposal's session
 * has `target_kind = existing_skill`: what the proposal would change in the installed skill,
 * compared with the installed `SKILL.md` when the draft revision was written. Installing the
 * proposal replaces the skill (same name, next version) through the install saga; until then the
 * installed files are untouched.
 */
export const SkillDeltaSchema = z
  .object({
    target_ability_id: z.string().max(160),
    target_skill_name: z.string().max(64),
    /** The installed skill's title, for "Changes to <title>". */
    installed_title: z.string().max(200),
    installed_version: z.string().max(32).optional(),
    proposed_version: z.string().max(32),
    triggers: changes,
    negative_triggers: changes,
    parameters: changes,
    checkpoints: changes,
    /** Steps of the recorded flow a practice repaired (issue #16): a target found again, a wait added. */
    steps: changes.optional(),
    /** How many items of each kind are the same on both sides. */
    unchanged: z.object({
      triggers: z.number().int().min(0),
      negative_triggers: z.number().int().min(0),
      parameters: z.number().int().min(0),
      checkpoints: z.number().int().min(0),
    }),
    compared_at: z.string().datetime(),
    schema_version: z.literal(1),
  })
  .describe(
    "Improving Existing Skill (§0C.4): what this proposal changes in the installed skill it improves — triggers, negative triggers, parameters and checkpoints, each added, removed or changed with the installed and proposed text (plain text, never markup). The installed skill is untouched until the proposal is installed, which replaces it as the next version.",
  );
export type SkillDelta = z.infer<typeof SkillDeltaSchema>;
