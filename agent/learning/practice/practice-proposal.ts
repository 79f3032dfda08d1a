import { randomUUID } from "node:crypto";
import type { PracticeRepair } from "../../../shared/learning/sessions/practice";
import { SkillDeltaSchema, type SkillDeltaChange } from "../../../shared/learning/proposals/skill-delta";
import { ValidationRunSchema, ValidationStepResultSchema } from "../../../shared/learning/proposals/validation-run";
import { SkillBundleProposalSchema, type SkillBundleProposal } from "../../../shared/skills/proposal";
import type { ExecuteResult } from "../../execution/contract/executor-contract";
import type { MemoryStore } from "../../memory/memory-store";
import { validatedDraftRef } from "../../abilities/availability-validation";
import { MemoryPaths } from "../../memory/memory-paths";
import { lintCheckpoints, type CheckpointLintReport } from "../compiler/checkpoints/checkpoint-lint";
import { parseSkillFrontmatter } from "../../../shared/skills/frontmatter";
import type { CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import { diffSkills, nextSkillVersion, readSkillOutline } from "../compiler/revision/skill-delta";
import type { PracticeBase } from "./practice-base";
import type { PracticePlan } from "./practice-driver";
import { writeInterpretationOf } from "../proposals/proposal-interpretation";
import { DraftFiles } from "../../../shared/skills/skill-folder";

/** The draft files a practice writes anew; every other file of the base is carried over as it is. */
const REWRITTEN_FILES = new Set<string>([
  DraftFiles.skill,
  DraftFiles.flow,
  DraftFiles.checkpoints,
  DraftFiles.skillDelta,
  DraftFiles.refinement,
  DraftFiles.checkpointLint,
]);

export interface PracticeProposalInput {
  sessionId: string;
  base: PracticeBase;
  plan: PracticePlan;
  repairs: readonly PracticeRepair[];
  results: readonly ExecuteResult[];
  /** The goal in the person's words, from the set-up (shown as the proposal's goal). */
  goal?: string | undefined;
  now: () => string;
}

/** SKILL.md with the repaired checkpoints' conditions and the next version. */
function repairedMarkdown(markdown: string, before: PracticePlan["checkpoints"], after: PracticePlan["checkpoints"], version: string): string {
  let text = markdown.replace(/^(---\n[\s\S]*?)^version: .*$/m, `$1version: ${JSON.stringify(version)}`);
  for (const checkpoint of after) {
    const old = before.find((candidate) => candidate.checkpoint_id === checkpoint.checkpoint_id);
    if (old !== undefined && old.success_condition !== checkpoint.success_condition)
      text = text.split(old.success_condition).join(checkpoint.success_condition);
  }
  return text;
}

/** The delta against the installed skill it improves: SKILL.md's sections, and each repaired step. */
async function writeDelta(
  memory: MemoryStore,
  folder: string,
  ability: NonNullable<PracticeBase["ability"]>,
  input: PracticeProposalInput,
  outline: ReturnType<typeof readSkillOutline>,
  markdown: string,
  version: string,
): Promise<void> {
  const steps: SkillDeltaChange[] = input.repairs
    .filter((repair) => repair.kind === "target_relocated" || repair.kind === "step_waits_longer")
    .map((repair) => ({
      change: "changed",
      subject: repair.subject.slice(0, 240),
      installed: repair.kind === "target_relocated" ? "found by its recorded selectors" : "waits for its element as long as every step does",
      proposed: repair.description.slice(0, 600),
    }));
  await memory.writeJson(
    `${folder}/${DraftFiles.skillDelta}`,
    SkillDeltaSchema.parse({
      target_ability_id: ability.ability_id,
      target_skill_name: ability.skill_name,
      installed_title: (outline.title || ability.title).slice(0, 200),
      ...(outline.version === undefined ? {} : { installed_version: outline.version }),
      proposed_version: version,
      ...diffSkills(outline, readSkillOutline(markdown)),
      steps,
      compared_at: input.now(),
      schema_version: 1,
    }),
  );
}

/** Each round is a validation run of the proposal (with its step results): the evidence the review drawer shows. */
async function writeRoundsAsRuns(memory: MemoryStore, proposalId: string, folder: string, results: PracticeProposalInput["results"]): Promise<string[]> {
  const runIds: string[] = [];
  for (const result of results) {
    const runId = randomUUID();
    runIds.push(runId);
    const stepResults = result.steps.map((step) =>
      ValidationStepResultSchema.parse({
        validation_run_id: runId,
        test_case_id: (step.test_case_id.startsWith("step:") ? `rehearsal:${step.test_case_id.slice(5)}` : step.test_case_id).slice(0, 160),
        label: step.label.slice(0, 240),
        result: step.result,
        details: step.details.slice(0, 1000),
        created_at: result.completed_at,
        schema_version: 1,
      }),
    );
    await memory.appendMany(MemoryPaths.validationStepResults, stepResults);
    await memory.append(
      MemoryPaths.validationRuns,
      ValidationRunSchema.parse({
        validation_run_id: runId,
        proposal_id: proposalId,
        run_kind: "rehearsal",
        started_at: result.started_at,
        completed_at: result.completed_at,
        overall_result: result.overall,
        result_refs: [`${MemoryPaths.validationStepResults}#${runId}`, validatedDraftRef(`${folder}/${DraftFiles.skill}`)],
        schema_version: 1,
      }),
    );
  }
  return runIds;
}

/**
 * Writes a practice's repairs as a proposal (issue #16): revision 1 of a new draft holding the
 * skill's files with the repaired flow and checkpoints, the delta against the installed skill it
 * improves (steps and checkpoints), and each round as a validation run with its step results, so
 * the review drawer shows the rounds. Nothing installed is touched.
 */
export async function writePracticeProposal(
  memory: MemoryStore,
  input: PracticeProposalInput,
): Promise<{ record: { proposal: SkillBundleProposal; revision: number; lint: CheckpointLintReport }; runIds: string[] }> {
  const { base, plan, sessionId } = input;
  const proposalId = randomUUID();
  const folder = MemoryPaths.draftRevision(proposalId, 1);
  const installedMarkdown = base.files[DraftFiles.skill] as string;
  const outline = readSkillOutline(installedMarkdown);
  const version = nextSkillVersion(outline.version);
  const markdown = repairedMarkdown(installedMarkdown, base.plan.checkpoints, plan.checkpoints, version);
  const checkpoints = plan.checkpoints.map((checkpoint) => {
    const stored = base.storedCheckpoints.find((candidate) => candidate.checkpoint_id === checkpoint.checkpoint_id) ?? {};
    return { ...stored, ...checkpoint };
  }) as unknown as CheckpointPlan[];
  const lint = lintCheckpoints(checkpoints);

  for (const [name, text] of Object.entries(base.files)) {
    if (REWRITTEN_FILES.has(name)) continue;
    await memory.writeText(`${folder}/${name}`, text);
  }
  await memory.writeText(`${folder}/${DraftFiles.skill}`, markdown);
  await memory.writeJson(`${folder}/${DraftFiles.flow}`, plan.flow);
  await memory.writeJson(`${folder}/${DraftFiles.checkpoints}`, checkpoints);
  await memory.writeJson(`${folder}/${DraftFiles.checkpointLint}`, lint);
  if (base.ability !== undefined) await writeDelta(memory, folder, base.ability, input, outline, markdown, version);
  const runIds = await writeRoundsAsRuns(memory, proposalId, folder, input.results);

  const frontmatter = parseSkillFrontmatter(markdown);
  const at = input.now();
  const interpretationId = await writeInterpretationOf(memory, { sessionId, proposalId, markdown, checkpoints: plan.checkpoints, goal: input.goal, now: at });
  const proposal = SkillBundleProposalSchema.parse({
    proposal_id: proposalId,
    learn_session_id: sessionId,
    interpretation_id: interpretationId,
    source_trace_ids: [sessionId],
    source_mode: "exploratory",
    title: frontmatter?.title ?? outline.title ?? base.ability?.title ?? "Practised skill",
    proposed_skill_slug: frontmatter?.name ?? base.ability?.skill_name,
    trigger_phrases: frontmatter?.triggers ?? [],
    negative_triggers: frontmatter?.negative_triggers ?? [],
    draft_skill_path: `${folder}/${DraftFiles.skill}`,
    draft_manifest_path: `${folder}/${DraftFiles.manifest}`,
    ...(base.files["workflow-graph.json"] === undefined ? {} : { draft_graph_ref: `${folder}/workflow-graph.json` }),
    proposal_state: lint.passed ? "ready_for_review" : "draft",
    install_lane: "pending",
    // It improves the installed skill: installing it replaces that skill as its next version.
    ...(base.ability === undefined ? {} : { ability_id: base.ability.ability_id }),
    ambiguity_flags: [],
    created_at: at,
    updated_at: at,
    schema_version: 1,
  });
  return { record: { proposal, revision: 1, lint }, runIds };
}
