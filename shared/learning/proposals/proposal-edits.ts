import { z } from "zod";

/**
 * `edited_fields` of `POST /api/learn/proposals/:proposalId/revise` (§0C.16A; issue #5): what a
 * person may change when revising, the meaning of the skill, never the recorded trace. The agent
 * parses with it; the side panel's revise form and its validation advice build it.
 */
export const ProposalEditsSchema = z
  .object({
    title: z.string().min(1).max(160),
    goal_summary: z.string().min(1).max(600),
    use_conditions: z.array(z.string().max(240)).max(20),
    non_use_conditions: z.array(z.string().max(240)).max(20),
    trigger_phrases: z.array(z.string().max(120)).max(20),
    negative_triggers: z.array(z.string().max(120)).max(20),
    checkpoints: z
      .array(
        z.object({
          checkpoint_id: z.string().max(80),
          goal: z.string().min(1).max(240).optional(),
          success_condition: z.string().max(240).optional(),
          /** Issue #35 "mark as confirmed by hand": the person confirms this checkpoint at each run; the page is not checked for it. */
          verified_by: z.literal("person").optional(),
        }),
      )
      .max(40),
  })
  .partial()
  .strict();
export type ProposalEdits = z.infer<typeof ProposalEditsSchema>;
