import { randomUUID } from "node:crypto";
import { SemanticWorkflowInterpretationSchema } from "../../../shared/learning/checkpoints/semantic-workflow-interpretation";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { readSkillOutline } from "../compiler/revision/skill-delta";

interface StoredCheckpoint {
  checkpoint_id: string;
  goal: string;
  success_condition: string;
  verification?: { by: "page" | "person"; reason?: string | undefined } | undefined;
}

/**
 * §0C.9 The meaning of a proposal that was not compiled from a demonstration (a practice's repair,
 * an example added to a skill; issue #16), read from its SKILL.md and checkpoints, so the review
 * drawer shows its goal, when to use it and how each checkpoint is confirmed. `goal`, when given,
 * is the person's own words for it. Returns the interpretation's id.
 */
export async function writeInterpretationOf(
  memory: MemoryStore,
  input: { sessionId: string; proposalId: string; markdown: string; checkpoints: readonly StoredCheckpoint[]; goal?: string | undefined; now: string },
): Promise<string> {
  const outline = readSkillOutline(input.markdown);
  const interpretationId = randomUUID();
  const clip = (text: string, max: number) => text.slice(0, max);
  await memory.writeJson(
    MemoryPaths.interpretation(interpretationId),
    SemanticWorkflowInterpretationSchema.parse({
      interpretation_id: interpretationId,
      learn_session_id: input.sessionId,
      proposal_id: input.proposalId,
      title: clip(outline.title, 160),
      goal_summary: clip(input.goal?.trim() || outline.summary, 600),
      use_conditions: outline.use_conditions.slice(0, 40).map((line) => clip(line, 240)),
      non_use_conditions: outline.non_use_conditions.slice(0, 40).map((line) => clip(line, 240)),
      project_scope: "unclear",
      preferred_control_surfaces: [],
      success_conditions: input.checkpoints.map((checkpoint) => clip(checkpoint.success_condition, 240)),
      checkpoints: input.checkpoints.map((checkpoint, index) => ({
        checkpoint_id: clip(checkpoint.checkpoint_id, 80),
        goal: clip(checkpoint.goal, 240) || checkpoint.checkpoint_id,
        success_condition: clip(checkpoint.success_condition, 240),
        order_hint: index,
        ...(checkpoint.verification === undefined
          ? {}
          : {
              verification: {
                by: checkpoint.verification.by,
                ...(checkpoint.verification.reason === undefined ? {} : { reason: clip(checkpoint.verification.reason, 240) }),
              },
            }),
      })),
      user_confirmed: false,
      created_at: input.now,
      schema_version: 1,
    }),
  );
  return interpretationId;
}
