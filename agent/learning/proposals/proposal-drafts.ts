import { randomUUID } from "node:crypto";
import { ProposalEditsSchema as EditedFieldsSchema, type ProposalEdits } from "../../../shared/learning/proposals/proposal-edits";
import { RefinementOutcomeSchema } from "../../../shared/learning/route-contracts";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import { SkillBundleProposalSchema, type SkillBundleProposal } from "../../../shared/skills/proposal";
import { DraftFiles } from "../../../shared/skills/skill-folder";
import { MemoryPaths } from "../../memory/memory-paths";
import { lintCheckpoints, type CheckpointLintReport } from "../compiler/checkpoints/checkpoint-lint";
import type { AnswersByField, Interpretation } from "../compiler/interpret";
import { refineInterpretation } from "../refiner/model-refiner";
import { compile, type DraftBuilderDeps, type ImprovedSkill } from "./draft-compile";
import { applyEdits } from "./draft-edits";
import { policyOf, semanticOf, writeDraft } from "./draft-write";
import { carryExamples } from "./example-files";
import { draftFolderOf } from "./proposal-log";

export { EditedFieldsSchema };
export type DraftEdits = ProposalEdits;

export interface DraftBuilder {
  /**
   * Builds revision `revision` of a proposal from the session's demonstration, the answers so far
   * and the user's edits, and stores everything under `learning/drafts/<proposal_id>/rev-NNN/`;
   * returns the proposal record (not yet put in the log).
   */
  build(
    sessionId: string,
    proposalId: string,
    revision: number,
    answers: AnswersByField,
    edits: DraftEdits,
    base: SkillBundleProposal | undefined,
  ): Promise<{ proposal: SkillBundleProposal; lint: CheckpointLintReport; interpretation: Interpretation }>;
  /** The session's rehearsal policy (§0C.14), if the user set one. */
  policyOf(sessionId: string): Promise<TestPolicy | undefined>;
}

/**
 * From demonstration to draft (issue #5, DESIGN §6): normalize → interpret (`draft-compile.ts`) →
 * (refine) → edits (`draft-edits.ts`) → lint → emit (`draft-write.ts`). Deterministic unless a
 * refiner is configured.
 */
export function createDraftBuilder(deps: DraftBuilderDeps): DraftBuilder {
  return {
    build: (...args) => build(deps, ...args),
    policyOf: (sessionId) => policyOf(deps, sessionId),
  };
}

/** The model only rewords a new skill: an improvement keeps the installed skill's wording. */
async function refine(deps: DraftBuilderDeps, deterministic: Interpretation, literals: string[], improved: ImprovedSkill | undefined) {
  if (deps.refiner === undefined) return undefined;
  if (improved === undefined) return refineInterpretation(deps.refiner, deterministic, literals);
  return {
    interpretation: deterministic,
    outcome: { used: "deterministic" as const, model: deps.refiner.model, reason: "an improvement keeps the installed skill's wording" },
  };
}

/** Builds revision `revision` of a proposal and stores everything; returns the record (not yet put). */
async function build(
  deps: DraftBuilderDeps,
  ...[sessionId, proposalId, revision, answers, edits, base]: Parameters<DraftBuilder["build"]>
): ReturnType<DraftBuilder["build"]> {
  const { trace, interpretation: deterministic, literals, improved } = await compile(deps, sessionId, answers);
  const refined = await refine(deps, deterministic, literals, improved);
  const interpretation = applyEdits(refined?.interpretation ?? deterministic, edits);
  const lint = lintCheckpoints(interpretation.checkpoints, literals);
  const folder = await writeDraft(deps, { proposalId, revision, sessionId, interpretation, trace, lint, improved });
  if (base !== undefined) await carryExamples(deps.memory, draftFolderOf(base), folder);
  if (refined !== undefined) await deps.memory.writeJson(`${folder}/${DraftFiles.refinement}`, RefinementOutcomeSchema.parse(refined.outcome));
  const interpretationId = randomUUID();
  await deps.memory.writeJson(
    MemoryPaths.interpretation(interpretationId),
    semanticOf(deps, interpretationId, sessionId, proposalId, interpretation, revision > 1),
  );
  const at = deps.clock.now().toISOString();
  const proposal: SkillBundleProposal = SkillBundleProposalSchema.parse({
    proposal_id: proposalId,
    learn_session_id: sessionId,
    interpretation_id: interpretationId,
    source_trace_ids: [sessionId],
    source_mode: "user_guided",
    title: interpretation.title,
    proposed_skill_slug: interpretation.slug,
    trigger_phrases: interpretation.triggers,
    negative_triggers: interpretation.negative_triggers,
    draft_skill_path: `${folder}/${DraftFiles.skill}`,
    draft_manifest_path: `${folder}/${DraftFiles.manifest}`,
    draft_graph_ref: `${folder}/workflow-graph.json`,
    proposal_state: "draft",
    install_lane: "pending",
    // An improvement names the ability it will replace: validation does not count that ability's
    // name and triggers as collisions, and the install saga upgrades it.
    ...(improved === undefined ? {} : { ability_id: improved.ability.ability_id }),
    ambiguity_flags: interpretation.questions.filter((question) => question.required).map((question) => `needs_${question.field}`),
    created_at: base?.created_at ?? at,
    updated_at: at,
    schema_version: 1,
  });
  return { proposal, lint, interpretation };
}
