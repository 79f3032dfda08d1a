import { LearningAnswerSchema } from "../../../shared/learning/proposals/learning-questions";
import { RefinementOutcomeSchema, type ProposalDetailResponse } from "../../../shared/learning/route-contracts";
import { SkillDeltaSchema } from "../../../shared/learning/proposals/skill-delta";
import { SemanticWorkflowInterpretationSchema } from "../../../shared/learning/checkpoints/semantic-workflow-interpretation";
import { DraftFiles } from "../../../shared/skills/skill-folder";
import { MemoryPaths } from "../../memory/memory-paths";
import type { ProposalContext } from "./proposal-builds";
import { draftFolderOf } from "./proposal-log";

/** A proposal as the review reads it: its record, interpretation, questions with answers, delta and refinement. */
export async function detail(context: ProposalContext, proposalId: string): Promise<ProposalDetailResponse> {
  const { deps, log } = context;
  const record = log.find(proposalId);
  const interpretation =
    record.proposal.interpretation_id === undefined
      ? undefined
      : await deps.memory.readJson(MemoryPaths.interpretation(record.proposal.interpretation_id), SemanticWorkflowInterpretationSchema);
  const answers = (await deps.memory.readJsonl(MemoryPaths.answers, LearningAnswerSchema)).filter((answer) => answer.proposal_id === proposalId);
  const questions = (await context.questions.questionsOf(proposalId)).map((question) => {
    const answer = [...answers].reverse().find((candidate) => candidate.question_id === question.question_id);
    return {
      question_id: question.question_id,
      question_text: question.required ? question.prompt : `${question.prompt} (optional)`.slice(0, 400),
      required: question.required,
      answered: answer !== undefined,
      ...(answer === undefined ? {} : { answer_text: answer.answer }),
    };
  });
  const delta = await deps.memory.readJson(`${draftFolderOf(record.proposal)}/skill-delta.json`, SkillDeltaSchema);
  const refinement = await deps.memory.readJson(`${draftFolderOf(record.proposal)}/refinement.json`, RefinementOutcomeSchema);
  return {
    proposal: record.proposal,
    ...(interpretation === undefined ? {} : { interpretation }),
    checkpoint_lint_report: record.lint,
    questions,
    ...(delta === undefined ? {} : { skill_delta: delta }),
    ...(refinement === undefined ? {} : { wording_refinement: refinement }),
  };
}

/** The current revision's files by name. */
export async function draftFiles(context: ProposalContext, proposalId: string): Promise<Record<string, string>> {
  const { deps, log } = context;
  const folder = draftFolderOf(log.find(proposalId).proposal);
  const files: Record<string, string> = {};
  for (const name of await deps.memory.list(folder)) {
    const text = await deps.memory.readText(`${folder}/${name}`);
    if (text !== undefined) files[name] = text;
  }
  return files;
}

/**
 * §0C.16D: moves a proposal of a finished session to `archived/proposals/<id>/` (its record,
 * answers to nothing live any more, and the last SKILL.md) and out of the live list.
 */
export async function archive(context: ProposalContext, proposalId: string): Promise<void> {
  const { deps, log, now } = context;
  const record = log.find(proposalId);
  const finalState = record.proposal.proposal_state === "rejected" ? "rejected" : "cancelled";
  const folder = MemoryPaths.archivedProposal(proposalId);
  const markdown = await deps.memory.readText(record.proposal.draft_skill_path);
  await deps.memory.writeJson(`${folder}/proposal.json`, { ...record, proposal: { ...record.proposal, proposal_state: finalState }, archived_at: now() });
  if (markdown !== undefined) await deps.memory.writeText(`${folder}/${DraftFiles.skill}`, markdown);
  await log.tombstone(proposalId, now());
  await deps.memory.remove(MemoryPaths.draft(proposalId));
}
