import {
  SemanticWorkflowInterpretationSchema,
  type SemanticWorkflowInterpretation,
} from "../../../shared/learning/checkpoints/semantic-workflow-interpretation";
import { SkillDeltaSchema, type SkillDelta } from "../../../shared/learning/proposals/skill-delta";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import { DraftFiles } from "../../../shared/skills/skill-folder";
import { MemoryPaths } from "../../memory/memory-paths";
import type { CheckpointLintReport } from "../compiler/checkpoints/checkpoint-lint";
import { emitRecorderFlow } from "../compiler/emit-recorder-flow";
import { emitCapabilityManifest, emitSkillMarkdown, emitTriggerTests } from "../compiler/emit-skill";
import type { Interpretation } from "../compiler/interpret";
import type { normalizeTrace } from "../compiler/normalize-trace";
import { diffSkills, nextSkillVersion, readSkillOutline } from "../compiler/revision/skill-delta";
import { TestPolicyRecordSchema } from "../sessions/session-log";
import type { DraftBuilderDeps, ImprovedSkill } from "./draft-compile";

/** The session's rehearsal policy (§0C.14), if the user set one. */
export async function policyOf(deps: DraftBuilderDeps, sessionId: string): Promise<TestPolicy | undefined> {
  const ref = deps.sessions.get(sessionId).test_policy_ref?.replace(/^test_policy:/, "");
  if (ref === undefined) return undefined;
  return (await deps.memory.readJsonl(MemoryPaths.testPolicies, TestPolicyRecordSchema)).reverse().find((record) => record.test_policy.policy_id === ref)
    ?.test_policy;
}

/** §0C.4 The delta of a draft against the installed skill it improves, both read from their SKILL.md. */
function deltaOf(deps: DraftBuilderDeps, improved: ImprovedSkill, markdown: string, version: string): SkillDelta {
  const installed = readSkillOutline(improved.markdown);
  return SkillDeltaSchema.parse({
    target_ability_id: improved.ability.ability_id,
    target_skill_name: improved.ability.skill_name,
    installed_title: (installed.title || improved.ability.title).slice(0, 200),
    ...(installed.version === undefined ? {} : { installed_version: installed.version }),
    proposed_version: version,
    ...diffSkills(installed, readSkillOutline(markdown)),
    compared_at: deps.clock.now().toISOString(),
    schema_version: 1,
  });
}

/** What one draft revision is written from. */
export interface DraftRevision {
  proposalId: string;
  revision: number;
  sessionId: string;
  interpretation: Interpretation;
  trace: ReturnType<typeof normalizeTrace>;
  lint: CheckpointLintReport;
  improved: ImprovedSkill | undefined;
}

/**
 * Writes one draft revision: SKILL.md, interpretation, IR, Recorder flow, manifest, trigger tests,
 * lint, and for an improvement its delta against the installed skill (`skill-delta.json`).
 */
export async function writeDraft(deps: DraftBuilderDeps, draft: DraftRevision): Promise<string> {
  const { proposalId, revision, sessionId, interpretation, trace, lint, improved } = draft;
  const folder = MemoryPaths.draftRevision(proposalId, revision);
  const markdown = emitSkillMarkdown(interpretation, await policyOf(deps, sessionId));
  await deps.memory.writeText(`${folder}/${DraftFiles.skill}`, markdown);
  if (improved !== undefined)
    await deps.memory.writeJson(`${folder}/${DraftFiles.skillDelta}`, deltaOf(deps, improved, markdown, interpretation.version ?? nextSkillVersion(undefined)));
  await deps.memory.writeJson(`${folder}/workflow-graph.json`, interpretation.graph);
  await deps.memory.writeJson(`${folder}/${DraftFiles.flow}`, emitRecorderFlow(interpretation, trace.steps));
  await deps.memory.writeJson(`${folder}/${DraftFiles.manifest}`, emitCapabilityManifest(interpretation, `learned.${interpretation.slug}`));
  await deps.memory.writeJson(`${folder}/${DraftFiles.triggerTests}`, emitTriggerTests(interpretation));
  await deps.memory.writeJson(`${folder}/${DraftFiles.checkpointLint}`, lint);
  await deps.memory.writeJson(`${folder}/${DraftFiles.parameters}`, interpretation.parameters);
  await deps.memory.writeJson(`${folder}/${DraftFiles.checkpoints}`, interpretation.checkpoints);
  return folder;
}

/** The semantic interpretation record of a revision (confirmed once the user has revised it). */
export function semanticOf(
  deps: DraftBuilderDeps,
  interpretationId: string,
  sessionId: string,
  proposalId: string,
  interpretation: Interpretation,
  confirmed: boolean,
): SemanticWorkflowInterpretation {
  return SemanticWorkflowInterpretationSchema.parse({
    interpretation_id: interpretationId,
    learn_session_id: sessionId,
    proposal_id: proposalId,
    title: interpretation.title,
    goal_summary: interpretation.goal_summary,
    use_conditions: interpretation.use_conditions,
    non_use_conditions: interpretation.non_use_conditions,
    project_scope: interpretation.project_scope,
    preferred_control_surfaces: interpretation.preferred_control_surfaces,
    success_conditions: interpretation.checkpoints.map((checkpoint) => checkpoint.success_condition),
    checkpoints: interpretation.checkpoints.map(({ checkpoint_id, goal, success_condition, order_hint, verification }) => ({
      checkpoint_id,
      goal,
      success_condition,
      order_hint,
      ...(verification === undefined ? {} : { verification }),
    })),
    user_confirmed: confirmed,
    created_at: deps.clock.now().toISOString(),
    schema_version: 1,
  });
}
