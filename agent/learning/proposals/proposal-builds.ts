import { randomUUID } from "node:crypto";
import { LearningAnswerSchema } from "../../../shared/learning/proposals/learning-questions";
import type { ProposalReviseRequest } from "../../../shared/learning/route-contracts";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { RefinerConfig } from "../refiner/model-refiner";
import type { SessionService } from "../sessions/session-service";
import { EditedFieldsSchema, type DraftBuilder, type DraftEdits } from "./proposal-drafts";
import type { ProposalLog } from "./proposal-log";
import type { ProposalQuestions } from "./proposal-questions";

/** What the proposal service is made of; its parts receive it. */
export interface ProposalDeps {
  memory: MemoryStore;
  sessions: SessionService;
  clock: Clock;
  /** DESIGN §6 step 4: an OpenAI-compatible model that may reword the deterministic result. */
  refiner?: RefinerConfig | undefined;
}

export interface ProposalContext {
  deps: ProposalDeps;
  log: ProposalLog;
  drafts: DraftBuilder;
  questions: ProposalQuestions;
  now: () => string;
}

/** `POST …/generate-proposal` (R11.2-11): compile the stopped session into a proposal. */
export async function generate(context: ProposalContext, sessionId: string): Promise<{ proposalId: string }> {
  const { deps, log, drafts, questions: asked } = context;
  const session = deps.sessions.get(sessionId);
  if (session.state !== "stopped" && session.state !== "reviewing") {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A proposal is generated from a stopped session, not one that is ${session.state}.`);
  }
  const proposalId = randomUUID();
  const { proposal, lint, interpretation } = await drafts.build(sessionId, proposalId, 1, {}, {}, undefined);
  const questions = await asked.askQuestions(proposalId, interpretation);
  const pendingRequired = questions.filter(
    (question) => question.required && interpretation.questions.some((open) => open.field === question.field && open.required),
  );
  const toReview = session.state === "stopped" ? (["reviewing"] as const) : ([] as const);
  const created = { receipt: "learn.proposal.created", event: "learn.proposal.created" } as const;
  if (pendingRequired.length > 0) {
    await log.put({ proposal: { ...proposal, proposal_state: "awaiting_questions" }, revision: 1, lint });
    await deps.sessions.advance(sessionId, [...toReview, "awaiting_questions"], { proposal_id: proposalId, interpretation_id: proposal.interpretation_id }, [
      { ...created, payload: { proposal_id: proposalId } },
      {
        receipt: "learn.proposal.questions_requested",
        event: "learn.proposal.questions_requested",
        payload: { proposal_id: proposalId, questions: pendingRequired.length },
      },
    ]);
  } else {
    const ready = lint.passed;
    await log.put({ proposal: { ...proposal, proposal_state: ready ? "ready_for_review" : "draft" }, revision: 1, lint });
    await deps.sessions.advance(
      sessionId,
      [...toReview, "drafting_proposal", ...(ready ? (["ready_for_review"] as const) : [])],
      { proposal_id: proposalId, interpretation_id: proposal.interpretation_id },
      [{ ...created, payload: { proposal_id: proposalId, checkpoint_lint_passed: lint.passed } }],
    );
  }
  return { proposalId };
}

/** After answers: rebuild the current proposal with them; moves the session on when none remain. */
export async function regenerateAfterAnswers(context: ProposalContext, sessionId: string): Promise<void> {
  const { deps, log, drafts, questions: asked } = context;
  const session = deps.sessions.get(sessionId);
  const proposalId = session.proposal_id;
  if (proposalId === undefined) return;
  const record = log.find(proposalId);
  const answers = await asked.answersOf(proposalId);
  const { proposal, lint, interpretation } = await drafts.build(sessionId, proposalId, record.revision + 1, answers, {}, record.proposal);
  const questions = await asked.askQuestions(proposalId, interpretation);
  const answered = new Set(
    (await deps.memory.readJsonl(MemoryPaths.answers, LearningAnswerSchema))
      .filter((answer) => answer.proposal_id === proposalId)
      .map((answer) => answer.question_id),
  );
  const remaining = questions.filter((question) => question.required && !answered.has(question.question_id));
  if (remaining.length > 0) {
    await log.put({ proposal: { ...proposal, proposal_state: "awaiting_questions" }, revision: record.revision + 1, lint });
    return;
  }
  const ready = lint.passed;
  await log.put({ proposal: { ...proposal, proposal_state: ready ? "ready_for_review" : "draft" }, revision: record.revision + 1, lint });
  await deps.sessions.advance(
    sessionId,
    ["drafting_proposal", ...(ready ? (["ready_for_review"] as const) : [])],
    { interpretation_id: proposal.interpretation_id },
    [
      {
        receipt: "learn.proposal.created",
        event: "learn.proposal.created",
        payload: { proposal_id: proposalId, revision: record.revision + 1, checkpoint_lint_passed: lint.passed },
      },
    ],
  );
}

function editsOf(request: ProposalReviseRequest): DraftEdits {
  const edits = EditedFieldsSchema.safeParse(request.edited_fields);
  if (!edits.success) {
    throw new AppError("REQUEST_INVALID", "edited_fields has fields that cannot be edited or values that are not valid.", {
      issues: edits.error.issues
        .slice(0, 20)
        .map((issue) => ({ path: `body/edited_fields/${issue.path.join("/")}`.slice(0, 240), message: issue.message.slice(0, 240) })),
    });
  }
  return edits.data;
}

/** A new revision with the user's edits; the caller answers with the proposal's detail. */
export async function revise(context: ProposalContext, proposalId: string, request: ProposalReviseRequest): Promise<void> {
  const { deps, log, drafts, questions: asked } = context;
  const record = log.find(proposalId);
  const edits = editsOf(request);
  const sessionId = record.proposal.learn_session_id as string;
  const session = deps.sessions.get(sessionId);
  if (!["ready_for_review", "testing_proposal", "quarantined", "drafting_proposal"].includes(session.state)) {
    throw new AppError(
      "INVALID_LEARN_STATE_TRANSITION",
      `A proposal is revised from review, testing or quarantine, not while the session is ${session.state}.`,
    );
  }
  const answers = await asked.answersOf(proposalId);
  const { proposal, lint } = await drafts.build(sessionId, proposalId, record.revision + 1, answers, edits, record.proposal);
  const ready = lint.passed;
  const path = [...(session.state === "drafting_proposal" ? [] : (["drafting_proposal"] as const)), ...(ready ? (["ready_for_review"] as const) : [])];
  await log.put({ proposal: { ...proposal, proposal_state: ready ? "ready_for_review" : "draft" }, revision: record.revision + 1, lint });
  await deps.sessions.advance(sessionId, path, { interpretation_id: proposal.interpretation_id }, [
    {
      receipt: "learn.proposal.revision_requested",
      event: "learn.proposal.created",
      payload: {
        proposal_id: proposalId,
        revision: record.revision + 1,
        instructions_length: request.revision_instructions.length,
        checkpoint_lint_passed: lint.passed,
      },
    },
  ]);
}
