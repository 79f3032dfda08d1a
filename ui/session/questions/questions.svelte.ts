import type { ProposalDetailResponse } from "../../../shared/learning/route-contracts";
import { describeFailure } from "../../common/failure-text";
import { report, type LearnDeps } from "../../common/learn-deps";

export interface OpenQuestion {
  question_id: string;
  text: string;
  required: boolean;
}

const OPTIONAL_SUFFIX = /\s*\(optional\)$/i;

/**
 * The detail route's questions that are still open, required ones first. The agent says which
 * are required (`required`) and also ends an optional one's text with "(optional)", which is taken
 * off here; an agent without the flag is read by that marker alone.
 */
export function openQuestions(questions: ProposalDetailResponse["questions"]): OpenQuestion[] {
  return questions
    .filter((question) => !question.answered)
    .map((question) => ({
      question_id: question.question_id,
      text: question.question_text.replace(OPTIONAL_SUFFIX, ""),
      required: question.required ?? !OPTIONAL_SUFFIX.test(question.question_text),
    }))
    .sort((a, b) => Number(b.required) - Number(a.required));
}

/**
 * The questions panel for `awaiting_questions`: one question at a time, answers kept here and
 * sent together at the end (the agent rebuilds the proposal as soon as the required ones are in).
 */
export class QuestionsState {
  questions = $state.raw<OpenQuestion[]>([]);
  index = $state(0);
  answers = $state<Record<string, string>>({});
  loading = $state(false);
  sending = $state(false);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;
  readonly #sessionId: string;
  readonly #proposalId: string;

  constructor(deps: LearnDeps, sessionId: string, proposalId: string) {
    this.#deps = deps;
    this.#sessionId = sessionId;
    this.#proposalId = proposalId;
  }

  get current(): OpenQuestion | undefined {
    return this.questions[this.index];
  }

  get isLast(): boolean {
    return this.index >= this.questions.length - 1;
  }

  /** Whether the current question may be left: optional, or answered. */
  get canContinue(): boolean {
    const question = this.current;
    return question !== undefined && (!question.required || (this.answers[question.question_id] ?? "").trim() !== "");
  }

  async load(): Promise<void> {
    this.loading = true;
    try {
      const detail = await this.#deps.client.proposalDetail(this.#proposalId);
      this.questions = openQuestions(detail.questions);
      this.index = 0;
      this.error = null;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.loading = false;
    }
  }

  next(): void {
    if (this.canContinue && !this.isLast) this.index += 1;
  }

  back(): void {
    if (this.index > 0) this.index -= 1;
  }

  /** Sends every answer given; resolves true when the agent took them. */
  async send(): Promise<boolean> {
    const missing = this.questions.find((question) => question.required && (this.answers[question.question_id] ?? "").trim() === "");
    if (missing !== undefined) {
      this.index = this.questions.indexOf(missing);
      this.error = "This question needs an answer.";
      return false;
    }
    const answers = this.questions
      .map((question) => ({ question_id: question.question_id, answer_text: (this.answers[question.question_id] ?? "").trim().slice(0, 2000) }))
      .filter((answer) => answer.answer_text !== "");
    if (answers.length === 0) {
      this.error = "Answer at least one question.";
      return false;
    }
    this.sending = true;
    try {
      await this.#deps.client.answerQuestions(this.#sessionId, { answers });
      this.error = null;
      return true;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
      return false;
    } finally {
      this.sending = false;
    }
  }
}
