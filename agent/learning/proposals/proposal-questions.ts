import { randomUUID } from "node:crypto";
import { LearningAnswerSchema, LearningQuestionSchema, type LearningQuestion } from "../../../shared/learning/proposals/learning-questions";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { AnswersByField, Interpretation } from "../compiler/interpret";

/** A proposal's clarifying questions and the user's answers (`questions.jsonl`, `answers.jsonl`). */
export interface ProposalQuestions {
  questionsOf(proposalId: string): Promise<LearningQuestion[]>;
  /** The latest non-empty answer per question field. */
  answersOf(proposalId: string): Promise<AnswersByField>;
  /** Stores the interpretation's questions not asked yet; returns all of the proposal's questions. */
  askQuestions(proposalId: string, interpretation: Interpretation): Promise<LearningQuestion[]>;
}

export function createProposalQuestions(deps: { memory: MemoryStore; now: () => string }): ProposalQuestions {
  const questionsOf = async (proposalId: string) =>
    (await deps.memory.readJsonl(MemoryPaths.questions, LearningQuestionSchema)).filter((question) => question.proposal_id === proposalId);
  const answersOf = async (proposalId: string): Promise<AnswersByField> => {
    const questions = await questionsOf(proposalId);
    const answers: AnswersByField = {};
    for (const answer of await deps.memory.readJsonl(MemoryPaths.answers, LearningAnswerSchema)) {
      const question = questions.find((candidate) => candidate.question_id === answer.question_id);
      if (question !== undefined && answer.answer.trim().length > 0) answers[question.field] = answer.answer.trim();
    }
    return answers;
  };

  const askQuestions = async (proposalId: string, interpretation: Interpretation): Promise<LearningQuestion[]> => {
    const existing = await questionsOf(proposalId);
    const fresh = interpretation.questions
      .filter((question) => !existing.some((old) => old.field === question.field))
      .map((question) =>
        LearningQuestionSchema.parse({
          question_id: randomUUID(),
          proposal_id: proposalId,
          field: question.field,
          prompt: question.prompt,
          required: question.required,
          created_at: deps.now(),
          schema_version: 1,
        }),
      );
    await deps.memory.appendMany(MemoryPaths.questions, fresh);
    return [...existing, ...fresh];
  };

  return { questionsOf, answersOf, askQuestions };
}
