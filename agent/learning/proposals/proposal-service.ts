import { randomUUID } from "node:crypto";
import { LearningAnswerSchema } from "../../../shared/learning/proposal";
import type { RequestMoreTestsRequest, RequestMoreTestsResponse } from "../../../shared/learning/proposal-tests";
import { RefinementOutcomeSchema, type ProposalDetailResponse, type ProposalReviseRequest } from "../../../shared/learning/route-contracts";
import { SkillDeltaSchema } from "../../../shared/learning/skill-delta";
import { SemanticWorkflowInterpretationSchema } from "../../../shared/learning/semantic-workflow-interpretation";
import type { TestPolicy } from "../../../shared/learning/test-policy";
import { SkillBundleProposalSchema, type SkillBundleProposal } from "../../../shared/skills/proposal";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { RefinerConfig } from "../refiner/model-refiner";
import { createDraftBuilder, EditedFieldsSchema } from "./proposal-drafts";
import { draftFolderOf, openProposalLog, type ProposalLogRecord } from "./proposal-log";
import { addTriggerTests } from "./proposal-more-tests";
import { reviseDraftFiles } from "./proposal-revision";
import { createProposalQuestions } from "./proposal-questions";
import type { SessionService } from "../sessions/session-service";
import type { InstallableProposals } from "../../abilities/learning-ports";
import { DraftFiles } from "../../../shared/skills/skill-folder";

/** The proposals' operations; `detail`, `draftFiles` and `recordInstall` (what an install needs) are declared by agent/abilities' InstallableProposals. */
export interface ProposalService extends InstallableProposals {
  /** `POST …/generate-proposal` (R11.2-11): compile the stopped session into a proposal. */
  generate(sessionId: string): Promise<{ proposalId: string }>;
  /** After answers: rebuild the current proposal with them; moves the session on when none remain. */
  regenerateAfterAnswers(sessionId: string): Promise<void>;
  list(page: number, pageSize: number): { proposals: SkillBundleProposal[]; total: number };
  revise(proposalId: string, request: ProposalReviseRequest): Promise<ProposalDetailResponse>;
  reject(proposalId: string, reason: string): Promise<ProposalDetailResponse>;
  /** The session's rehearsal policy (§0C.14), if the user set one. */
  testPolicyOf(sessionId: string): Promise<TestPolicy | undefined>;
  /** Moves the proposal's state (validation outcomes). */
  setState(proposalId: string, state: SkillBundleProposal["proposal_state"]): Promise<void>;
  /**
   * §0C.18 "Request More Tests": the current revision's trigger tests plus the user's examples and
   * generated ones, as a new draft revision (the previous one is kept). The proposal goes back to
   * `draft` / `drafting_proposal` until a validation runs the new tests.
   */
  requestMoreTests(proposalId: string, request: RequestMoreTestsRequest): Promise<RequestMoreTestsResponse>;
  /** A new draft revision made of the current files as `edit` changes them (Use as Example, issue #16). */
  reviseFiles(
    proposalId: string,
    edit: (files: Record<string, string>) => Record<string, string>,
    payload: Record<string, unknown>,
  ): Promise<{ revision: number; sessionId: string }>;
  /** Puts a proposal drafted elsewhere in the agent (a practice's repair, issue #16) in the log, as its current state. */
  adopt(record: ProposalLogRecord): Promise<void>;
  /** The live proposal of a session, if any. */
  ofSession(sessionId: string): SkillBundleProposal | undefined;
  /**
   * §0C.16D: moves a proposal of a finished session to `archived/proposals/<id>/` (its record,
   * answers to nothing live any more, and the last SKILL.md) and out of the live list.
   */
  archive(proposalId: string): Promise<void>;
}

/**
 * The proposal's life (issue #5, DESIGN §6): generate from a stopped session, rebuild after answers
 * and edits, review, reject, archive. The drafts themselves are built by `proposal-drafts.ts`; the
 * log of proposals is `proposal-log.ts`; questions and answers `proposal-questions.ts`.
 */
export async function createProposalService(deps: {
  memory: MemoryStore;
  sessions: SessionService;
  clock: Clock;
  /** DESIGN §6 step 4: an OpenAI-compatible model that may reword the deterministic result. */
  refiner?: RefinerConfig | undefined;
}): Promise<ProposalService> {
  const log = await openProposalLog(deps.memory);
  const { find, put } = log;
  const now = () => deps.clock.now().toISOString();
  const folderOf = draftFolderOf;
  const drafts = createDraftBuilder(deps);
  const build = drafts.build;
  const policyOf = drafts.policyOf;
  const { questionsOf, answersOf, askQuestions } = createProposalQuestions({ memory: deps.memory, now });

  const service: ProposalService = {
    async generate(sessionId) {
      const session = deps.sessions.get(sessionId);
      if (session.state !== "stopped" && session.state !== "reviewing") {
        throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A proposal is generated from a stopped session, not one that is ${session.state}.`);
      }
      const proposalId = randomUUID();
      const { proposal, lint, interpretation } = await build(sessionId, proposalId, 1, {}, {}, undefined);
      const questions = await askQuestions(proposalId, interpretation);
      const pendingRequired = questions.filter(
        (question) => question.required && interpretation.questions.some((open) => open.field === question.field && open.required),
      );
      const toReview = session.state === "stopped" ? (["reviewing"] as const) : ([] as const);
      if (pendingRequired.length > 0) {
        await put({ proposal: { ...proposal, proposal_state: "awaiting_questions" }, revision: 1, lint });
        await deps.sessions.advance(
          sessionId,
          [...toReview, "awaiting_questions"],
          { proposal_id: proposalId, interpretation_id: proposal.interpretation_id },
          [
            { receipt: "learn.proposal.created", event: "learn.proposal.created", payload: { proposal_id: proposalId } },
            {
              receipt: "learn.proposal.questions_requested",
              event: "learn.proposal.questions_requested",
              payload: { proposal_id: proposalId, questions: pendingRequired.length },
            },
          ],
        );
      } else {
        const ready = lint.passed;
        await put({ proposal: { ...proposal, proposal_state: ready ? "ready_for_review" : "draft" }, revision: 1, lint });
        await deps.sessions.advance(
          sessionId,
          [...toReview, "drafting_proposal", ...(ready ? (["ready_for_review"] as const) : [])],
          { proposal_id: proposalId, interpretation_id: proposal.interpretation_id },
          [{ receipt: "learn.proposal.created", event: "learn.proposal.created", payload: { proposal_id: proposalId, checkpoint_lint_passed: lint.passed } }],
        );
      }
      return { proposalId };
    },

    async regenerateAfterAnswers(sessionId) {
      const session = deps.sessions.get(sessionId);
      const proposalId = session.proposal_id;
      if (proposalId === undefined) return;
      const record = find(proposalId);
      const answers = await answersOf(proposalId);
      const { proposal, lint, interpretation } = await build(sessionId, proposalId, record.revision + 1, answers, {}, record.proposal);
      const questions = await askQuestions(proposalId, interpretation);
      const answered = new Set(
        (await deps.memory.readJsonl(MemoryPaths.answers, LearningAnswerSchema))
          .filter((answer) => answer.proposal_id === proposalId)
          .map((answer) => answer.question_id),
      );
      const remaining = questions.filter((question) => question.required && !answered.has(question.question_id));
      if (remaining.length > 0) {
        await put({ proposal: { ...proposal, proposal_state: "awaiting_questions" }, revision: record.revision + 1, lint });
        return;
      }
      const ready = lint.passed;
      await put({ proposal: { ...proposal, proposal_state: ready ? "ready_for_review" : "draft" }, revision: record.revision + 1, lint });
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
    },

    list(page, pageSize) {
      const ordered = log
        .all()
        .map((record) => record.proposal)
        .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
      return { proposals: ordered.slice((page - 1) * pageSize, page * pageSize), total: ordered.length };
    },

    async detail(proposalId) {
      const record = find(proposalId);
      const interpretation =
        record.proposal.interpretation_id === undefined
          ? undefined
          : await deps.memory.readJson(MemoryPaths.interpretation(record.proposal.interpretation_id), SemanticWorkflowInterpretationSchema);
      const answers = (await deps.memory.readJsonl(MemoryPaths.answers, LearningAnswerSchema)).filter((answer) => answer.proposal_id === proposalId);
      const questions = (await questionsOf(proposalId)).map((question) => {
        const answer = [...answers].reverse().find((candidate) => candidate.question_id === question.question_id);
        return {
          question_id: question.question_id,
          question_text: question.required ? question.prompt : `${question.prompt} (optional)`.slice(0, 400),
          required: question.required,
          answered: answer !== undefined,
          ...(answer === undefined ? {} : { answer_text: answer.answer }),
        };
      });
      const delta = await deps.memory.readJson(`${folderOf(record.proposal)}/skill-delta.json`, SkillDeltaSchema);
      const refinement = await deps.memory.readJson(`${folderOf(record.proposal)}/refinement.json`, RefinementOutcomeSchema);
      return {
        proposal: record.proposal,
        ...(interpretation === undefined ? {} : { interpretation }),
        checkpoint_lint_report: record.lint,
        questions,
        ...(delta === undefined ? {} : { skill_delta: delta }),
        ...(refinement === undefined ? {} : { wording_refinement: refinement }),
      };
    },

    async revise(proposalId, request) {
      const record = find(proposalId);
      const edits = EditedFieldsSchema.safeParse(request.edited_fields);
      if (!edits.success) {
        throw new AppError("REQUEST_INVALID", "edited_fields has fields that cannot be edited or values that are not valid.", {
          issues: edits.error.issues
            .slice(0, 20)
            .map((issue) => ({ path: `body/edited_fields/${issue.path.join("/")}`.slice(0, 240), message: issue.message.slice(0, 240) })),
        });
      }
      const sessionId = record.proposal.learn_session_id as string;
      const session = deps.sessions.get(sessionId);
      if (!["ready_for_review", "testing_proposal", "quarantined", "drafting_proposal"].includes(session.state)) {
        throw new AppError(
          "INVALID_LEARN_STATE_TRANSITION",
          `A proposal is revised from review, testing or quarantine, not while the session is ${session.state}.`,
        );
      }
      const answers = await answersOf(proposalId);
      const { proposal, lint } = await build(sessionId, proposalId, record.revision + 1, answers, edits.data, record.proposal);
      const ready = lint.passed;
      const path = [...(session.state === "drafting_proposal" ? [] : (["drafting_proposal"] as const)), ...(ready ? (["ready_for_review"] as const) : [])];
      await put({ proposal: { ...proposal, proposal_state: ready ? "ready_for_review" : "draft" }, revision: record.revision + 1, lint });
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
      return service.detail(proposalId);
    },

    async requestMoreTests(proposalId, request) {
      const added = await addTriggerTests({ ...deps, log }, proposalId, request);
      return { ...(await service.detail(proposalId)), added_trigger_tests: added };
    },
    testPolicyOf: policyOf,

    reviseFiles: (proposalId, edit, payload) => reviseDraftFiles({ ...deps, log }, proposalId, edit, payload),

    async setState(proposalId, state) {
      const record = find(proposalId);
      await put({ ...record, proposal: { ...record.proposal, proposal_state: state, updated_at: now() } });
    },

    async draftFiles(proposalId) {
      const record = find(proposalId);
      const folder = folderOf(record.proposal);
      const files: Record<string, string> = {};
      for (const name of await deps.memory.list(folder)) {
        const text = await deps.memory.readText(`${folder}/${name}`);
        if (text !== undefined) files[name] = text;
      }
      return files;
    },

    async recordInstall(proposalId, patch) {
      const record = find(proposalId);
      const proposal = SkillBundleProposalSchema.parse({ ...record.proposal, ...patch, updated_at: now() });
      await put({ ...record, proposal });
      return proposal;
    },

    adopt: (record) => put(record),

    ofSession: (sessionId) => log.all().find((record) => record.proposal.learn_session_id === sessionId)?.proposal,

    async archive(proposalId) {
      const record = find(proposalId);
      const finalState = record.proposal.proposal_state === "rejected" ? "rejected" : "cancelled";
      const folder = MemoryPaths.archivedProposal(proposalId);
      const markdown = await deps.memory.readText(record.proposal.draft_skill_path);
      await deps.memory.writeJson(`${folder}/proposal.json`, { ...record, proposal: { ...record.proposal, proposal_state: finalState }, archived_at: now() });
      if (markdown !== undefined) await deps.memory.writeText(`${folder}/${DraftFiles.skill}`, markdown);
      await log.tombstone(proposalId, now());
      await deps.memory.remove(MemoryPaths.draft(proposalId));
    },

    async reject(proposalId, reason) {
      const record = find(proposalId);
      const sessionId = record.proposal.learn_session_id as string;
      const session = deps.sessions.get(sessionId);
      if (session.state !== "ready_for_review") {
        throw new AppError("INVALID_LEARN_STATE_TRANSITION", `Only a proposal ready for review can be rejected; the session is ${session.state}.`);
      }
      await put({ ...record, proposal: { ...record.proposal, proposal_state: "rejected", updated_at: now() } });
      await deps.sessions.advance(sessionId, ["rejected"], {}, [
        { receipt: "learn.proposal.rejected", payload: { proposal_id: proposalId, reason: reason.slice(0, 240) } },
      ]);
      return service.detail(proposalId);
    },
  };
  return service;
}
