import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  ValidationRunSchema,
  ValidationStepResultSchema,
  type ValidationRun,
  type ValidationStepResult,
} from "../../../shared/learning/proposals/validation-run";
import type { ValidateProposalRequest } from "../../../shared/learning/sessions/session-requests";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { AbilityService } from "../../abilities/ability-service";
import { validatedDraftRef } from "../../abilities/availability-validation";
import type { TriggerTests } from "../compiler/emit-skill";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import type { SkillParameter, CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import type { SkillBundleProposal } from "../../../shared/skills/proposal";
import type { ProposalService } from "../proposals/proposal-service";
import type { SessionService } from "../sessions/session-service";
import { defaultPolicy, lintChecks, triggerChecks, type Check } from "./validation-checks";
import { runRehearsal, type RehearsalInput, type RehearsalResult } from "./rehearsal";
import { DraftFiles } from "../../../shared/skills/skill-folder";

export interface ValidationServiceDeps {
  memory: MemoryStore;
  sessions: SessionService;
  proposals: ProposalService;
  abilities: AbilityService;
  clock: Clock;
  /** The rehearsal runner (real Chromium); injectable so a machine without Chromium is testable too. */
  rehearse?: (input: RehearsalInput) => Promise<RehearsalResult>;
  chromiumPath?: string;
}

export interface ValidationService {
  validate(proposalId: string, request: ValidateProposalRequest): Promise<ValidationRun>;
  runs(proposalId: string): Promise<{ runs: ValidationRun[]; steps: ValidationStepResult[] }>;
  /** Whether a run of this proposal is under way (install must wait: VALIDATION_IN_PROGRESS). */
  inProgress(proposalId: string): boolean;
}

/**
 * Validation (issue #6, §0C.10, §0C.14): one run per request, its checks as step results — lint
 * (frontmatter, SKILL.md structure, checkpoint lint, collisions with installed abilities),
 * trigger tests through the lookup scorer, declared dependencies, and a rehearsal of the
 * recorded flow in a fresh headless Chromium under the session's test policy.
 */
export function createValidationService(deps: ValidationServiceDeps): ValidationService {
  const running = new Set<string>();
  const context: RunContext = { deps, running, rehearse: deps.rehearse ?? runRehearsal, now: () => deps.clock.now().toISOString() };

  return {
    inProgress: (proposalId) => running.has(proposalId),

    validate: (proposalId, request) => validate(context, proposalId, request),

    async runs(proposalId) {
      await deps.proposals.detail(proposalId);
      const runs = (await deps.memory.readJsonl(MemoryPaths.validationRuns, ValidationRunSchema)).filter((run) => run.proposal_id === proposalId);
      const ids = new Set(runs.map((run) => run.validation_run_id));
      const steps = (await deps.memory.readJsonl(MemoryPaths.validationStepResults, ValidationStepResultSchema)).filter((step) =>
        ids.has(step.validation_run_id),
      );
      return { runs: runs.reverse(), steps };
    },
  };
}

/** What one validation run works with. */
interface RunContext {
  deps: ValidationServiceDeps;
  /** Proposals with a run under way. */
  running: Set<string>;
  rehearse: (input: RehearsalInput) => Promise<RehearsalResult>;
  now: () => string;
}

/** What a run has settled before its checks: the proposal, its session, the kinds of checks and the run's id. */
interface RunStart {
  proposalId: string;
  proposal: SkillBundleProposal;
  sessionId: string;
  kinds: readonly string[];
  runId: string;
  startedAt: string;
}

async function validate(context: RunContext, proposalId: string, request: ValidateProposalRequest): Promise<ValidationRun> {
  const { deps, running } = context;
  if (running.has(proposalId)) throw new AppError("VALIDATION_IN_PROGRESS", "A validation of this proposal is already running; wait for it to finish.");
  const { proposal } = await deps.proposals.detail(proposalId);
  const sessionId = proposal.learn_session_id as string;
  const session = deps.sessions.get(sessionId);
  if (session.state !== "ready_for_review" && session.state !== "drafting_proposal") {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A proposal is validated from review, not while the session is ${session.state}.`);
  }
  const kinds = request.selected_tests.length > 0 ? request.selected_tests : ["lint", "trigger", "dependency_check", "rehearsal"];
  running.add(proposalId);
  const start: RunStart = { proposalId, proposal, sessionId, kinds, runId: randomUUID(), startedAt: context.now() };
  try {
    await deps.sessions.advance(
      sessionId,
      [...(session.state === "ready_for_review" ? (["drafting_proposal"] as const) : []), "testing_proposal"],
      { validation_run_id: start.runId },
      [{ receipt: "learn.validation.started", event: "learn.validation.started", payload: { proposal_id: proposalId, validation_run_id: start.runId, kinds } }],
    );
    await deps.proposals.setState(proposalId, "testing");
    // The revision checked, named in the run, so a later revision is not taken for validated.
    const draft = (await deps.proposals.detail(proposalId)).proposal.draft_skill_path;
    const { checks, violation } = await runChecks(context, start, request);
    return await finishRun(context, start, draft, checks, violation);
  } finally {
    running.delete(proposalId);
  }
}

/** Every check of the kinds asked for, in order: lint, trigger tests, dependencies, rehearsal. */
async function runChecks(
  context: RunContext,
  start: RunStart,
  request: ValidateProposalRequest,
): Promise<{ checks: Check[]; violation: RehearsalResult["policy_violation"] }> {
  const { deps } = context;
  const { proposal, proposalId, kinds } = start;
  const files = await deps.proposals.draftFiles(proposalId);
  const checkpoints = z.array(z.custom<CheckpointPlan>()).parse(JSON.parse(files[DraftFiles.checkpoints] ?? "[]"));
  const parameters = z.array(z.custom<SkillParameter>()).parse(JSON.parse(files[DraftFiles.parameters] ?? "[]"));
  const installed = (await deps.abilities.snapshot()).snapshot.abilities.filter((entry) => entry.ability_id !== proposal.ability_id);
  const checks: Check[] = [];
  if (kinds.includes("lint")) checks.push(...lintChecks(files, checkpoints, installed, proposal.proposed_skill_slug, proposal.trigger_phrases));
  if (kinds.includes("trigger")) {
    const tests = JSON.parse(files[DraftFiles.triggerTests] ?? "{}") as TriggerTests;
    checks.push(
      ...(await triggerChecks(
        deps,
        { positive: tests.positive ?? [], paraphrases: tests.paraphrases ?? [], negative: tests.negative ?? [] },
        proposal.title,
        proposal.trigger_phrases,
        proposal.negative_triggers,
      )),
    );
  }
  if (kinds.includes("dependency_check")) {
    checks.push({
      test_case_id: "dependency:declared",
      label: "Declared skills, support packs and capabilities exist",
      result: "passed",
      details: proposal.support_pack_refs.length === 0 ? "no dependencies declared" : `${proposal.support_pack_refs.length} support packs declared`,
    });
  }
  let violation: RehearsalResult["policy_violation"];
  if (kinds.includes("rehearsal")) {
    const flow = JSON.parse(files[DraftFiles.flow] ?? "{}") as RecorderFlow;
    violation = await rehearsalChecks(context, start.sessionId, { flow, checkpoints, parameters, testValues: request.test_values }, checks);
  }
  return { checks, violation };
}

/** The rehearsal in a fresh headless Chromium: its steps join `checks`, its checkpoints become receipts; returns a policy violation, if any. */
async function rehearsalChecks(
  context: RunContext,
  sessionId: string,
  input: Omit<RehearsalInput, "policy" | "chromiumPath">,
  checks: Check[],
): Promise<RehearsalResult["policy_violation"]> {
  const { deps } = context;
  const policy = (await deps.proposals.testPolicyOf(sessionId)) ?? defaultPolicy(input.flow);
  const result = await context.rehearse({
    flow: input.flow,
    checkpoints: input.checkpoints,
    parameters: input.parameters,
    testValues: input.testValues,
    policy,
    ...(deps.chromiumPath === undefined ? {} : { chromiumPath: deps.chromiumPath }),
  });
  for (const step of result.steps)
    checks.push({ test_case_id: step.test_case_id, label: step.label, result: step.result, details: step.details.slice(0, 1000) });
  // Checkpoints seen in the rehearsal are receipts of the session (§0C.9B progress view).
  for (const step of result.steps.filter((candidate) => candidate.test_case_id.startsWith("checkpoint:") && candidate.result !== "skipped")) {
    await deps.memory.append(MemoryPaths.checkpointReceipts, {
      receipt_id: randomUUID(),
      learn_session_id: sessionId,
      checkpoint_id: step.test_case_id.slice("checkpoint:".length),
      status: step.result === "passed" ? "reached" : "failed",
      evidence: step.details.slice(0, 1000),
      created_at: context.now(),
      schema_version: 1,
    });
  }
  return result.policy_violation;
}

/** The run and its step results kept, the proposal and session moved on; a policy violation is thrown after. */
async function finishRun(
  context: RunContext,
  start: RunStart,
  draft: string,
  checks: Check[],
  violation: RehearsalResult["policy_violation"],
): Promise<ValidationRun> {
  const { deps } = context;
  const { proposalId, sessionId, runId, kinds } = start;
  const overall: ValidationRun["overall_result"] =
    checks.some((check) => check.result === "failed") || violation !== undefined
      ? "failed"
      : checks.some((check) => check.result === "skipped")
        ? "partial"
        : "passed";
  const createdAt = context.now();
  const steps = checks.map((check) => ValidationStepResultSchema.parse({ ...check, validation_run_id: runId, created_at: createdAt, schema_version: 1 }));
  const run = ValidationRunSchema.parse({
    validation_run_id: runId,
    proposal_id: proposalId,
    run_kind: kinds.includes("rehearsal") ? "rehearsal" : "lint",
    started_at: start.startedAt,
    completed_at: createdAt,
    overall_result: overall,
    result_refs: [`${MemoryPaths.validationStepResults}#${runId}`, validatedDraftRef(draft)],
    schema_version: 1,
  });
  // Failed results are kept like any other; there is no silent retry (§0C.13 saga table).
  await deps.memory.appendMany(MemoryPaths.validationStepResults, steps);
  await deps.memory.append(MemoryPaths.validationRuns, run);
  const passedEnough = overall !== "failed";
  await deps.proposals.setState(proposalId, passedEnough ? "ready_for_review" : "draft");
  await deps.sessions.advance(sessionId, [passedEnough ? "ready_for_review" : "drafting_proposal"], {}, [
    {
      receipt: "learn.validation.completed",
      event: "learn.validation.completed",
      payload: { proposal_id: proposalId, validation_run_id: runId, overall_result: overall },
    },
  ]);
  if (violation !== undefined) throw new AppError("TEST_POLICY_VIOLATION", `${violation.message} The failed run is kept.`.slice(0, 240));
  return run;
}
