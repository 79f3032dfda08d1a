import type { RequestMoreTestsRequest, RequestMoreTestsResponse } from "../../../shared/learning/proposal-tests";
import type { ProposalDetailResponse, ProposalReviseRequest } from "../../../shared/learning/route-contracts";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import { SkillBundleProposalSchema, type SkillBundleProposal } from "../../../shared/skills/proposal";
import { AppError } from "../../errors/app-error";
import { generate, regenerateAfterAnswers, revise, type ProposalContext, type ProposalDeps } from "./proposal-builds";
import { createDraftBuilder } from "./proposal-drafts";
import { openProposalLog, type ProposalLogRecord } from "./proposal-log";
import { addTriggerTests } from "./proposal-more-tests";
import { archive, detail, draftFiles } from "./proposal-reads";
import { reviseDraftFiles } from "./proposal-revision";
import { createProposalQuestions } from "./proposal-questions";
import type { InstallableProposals } from "../../abilities/learning-ports";

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
  /** At the agent's stop: the proposals' current view brought up to date (issue 32). */
  settleView(): Promise<void>;
}

/**
 * The proposal's life (issue #5, DESIGN §6): generate from a stopped session, rebuild after answers
 * and edits, review, reject, archive. The drafts themselves are built by `proposal-drafts.ts`; the
 * log of proposals is `proposal-log.ts`; questions and answers `proposal-questions.ts`; generating and
 * revising `proposal-builds.ts`; the detail, files and archive `proposal-reads.ts`.
 */
export async function createProposalService(deps: ProposalDeps): Promise<ProposalService> {
  const log = await openProposalLog(deps.memory);
  const { find, put } = log;
  const now = () => deps.clock.now().toISOString();
  const context: ProposalContext = { deps, log, now, drafts: createDraftBuilder(deps), questions: createProposalQuestions({ memory: deps.memory, now }) };

  const service: ProposalService = {
    generate: (sessionId) => generate(context, sessionId),

    regenerateAfterAnswers: (sessionId) => regenerateAfterAnswers(context, sessionId),

    list(page, pageSize) {
      const { records, total } = log.page(page, pageSize);
      return { proposals: records.map((record) => record.proposal), total };
    },

    detail: (proposalId) => detail(context, proposalId),

    settleView: () => log.settleView(),

    async revise(proposalId, request) {
      await revise(context, proposalId, request);
      return service.detail(proposalId);
    },

    async requestMoreTests(proposalId, request) {
      const added = await addTriggerTests({ ...deps, log }, proposalId, request);
      return { ...(await service.detail(proposalId)), added_trigger_tests: added };
    },
    testPolicyOf: context.drafts.policyOf,

    reviseFiles: (proposalId, edit, payload) => reviseDraftFiles({ ...deps, log }, proposalId, edit, payload),

    async setState(proposalId, state) {
      const record = find(proposalId);
      await put({ ...record, proposal: { ...record.proposal, proposal_state: state, updated_at: now() } });
    },

    draftFiles: (proposalId) => draftFiles(context, proposalId),

    async recordInstall(proposalId, patch) {
      const record = find(proposalId);
      const proposal = SkillBundleProposalSchema.parse({ ...record.proposal, ...patch, updated_at: now() });
      await put({ ...record, proposal });
      return proposal;
    },

    adopt: (record) => put(record),

    ofSession: (sessionId) => log.ofSession(sessionId)?.proposal,

    archive: (proposalId) => archive(context, proposalId),

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
