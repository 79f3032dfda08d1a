import { z } from "zod";

// §0C.10A also defines SkillBundleProposalStateSchema and SkillBundleProposalSchema; §0C.19 puts
// their canonical file at skills/proposal, so they live in ../skills/proposal, not here.

/** §0C.10A A clarification the learner needs before the proposal can be finished. */
export const LearningQuestionSchema = z.object({
  question_id: z.string().uuid(),
  proposal_id: z.string().uuid(),
  field: z.enum([
    "name",
    "goal_summary",
    "use_conditions",
    "non_use_conditions",
    "project_scope",
    "preferred_surface",
    "package_assignment",
    "success_condition",
  ]),
  prompt: z.string().max(400),
  required: z.boolean().default(true),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.10A */
export type LearningQuestion = z.infer<typeof LearningQuestionSchema>;

/** §0C.10A */
export const LearningAnswerSchema = z.object({
  question_id: z.string().uuid(),
  proposal_id: z.string().uuid(),
  answer: z.string().max(2000),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.10A */
export type LearningAnswer = z.infer<typeof LearningAnswerSchema>;

/** §0C.10A */
export const LearningDocumentDependencySchema = z.object({
  proposal_id: z.string().uuid(),
  dependency_kind: z.enum(["support_pack", "app_manual", "existing_skill", "capability_manifest", "test_artifact"]),
  dependency_ref: z.string().max(240),
  required: z.boolean().default(true),
  schema_version: z.literal(1),
});
/** §0C.10A */
export type LearningDocumentDependency = z.infer<typeof LearningDocumentDependencySchema>;
