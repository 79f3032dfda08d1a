import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import { ValidationRunSchema, ValidationStepResultSchema, type ValidationRun, type ValidationStepResult } from "../../../shared/learning/validation-run";
import type { ValidateProposalRequest } from "../../../shared/learning/session-requests";
import { TestPolicySchema, type TestPolicy } from "../../../shared/learning/test-policy";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { AbilityService } from "../../abilities/ability-service";
import { validatedDraftRef } from "../../abilities/availability-validation";
import { lintCheckpoints } from "../compiler/checkpoint-lint";
import { parseSkillFrontmatter } from "../../../shared/skills/frontmatter";
import type { TriggerTests } from "../compiler/emit-skill";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import type { SkillParameter, CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import type { ProposalService } from "../proposals/proposal-service";
import type { SessionService } from "../sessions/session-service";
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

type Check = Omit<ValidationStepResult, "validation_run_id" | "created_at" | "schema_version">;
const STRUCTURE_SECTIONS = ["## When to use", "## When not to use", "## Inputs", "## Checkpoints", "## Guidance", "## Safety"];

/**
 * Validation (issue #6, §0C.10, §0C.14): one run per request, its checks as step results — lint
 * (frontmatter, SKILL.md structure, checkpoint lint, collisions with installed abilities),
 * trigger tests through the lookup scorer, declared dependencies, and a rehearsal of the
 * recorded flow in a fresh headless Chromium under the session's test policy.
 */
export function createValidationService(deps: ValidationServiceDeps): ValidationService {
  const running = new Set<string>();
  const rehearse = deps.rehearse ?? runRehearsal;
  const now = () => deps.clock.now().toISOString();

  /** `installed` excludes this proposal's own ability, so any overlap is a real collision. */
  const lintChecks = (
    files: Record<string, string>,
    checkpoints: CheckpointPlan[],
    installed: AbilityAvailabilityEntry[],
    slug: string,
    triggers: string[],
  ): Check[] => {
    const checks: Check[] = [];
    const markdown = files[DraftFiles.skill] ?? "";
    const frontmatter = parseSkillFrontmatter(markdown);
    checks.push({
      test_case_id: "lint:frontmatter",
      label: "SKILL.md frontmatter is valid (§0.2C)",
      result: frontmatter ? "passed" : "failed",
      details: frontmatter ? `name ${frontmatter.name}` : "frontmatter missing or invalid",
    });
    const missing = STRUCTURE_SECTIONS.filter((section) => !markdown.includes(section));
    checks.push({
      test_case_id: "lint:structure",
      label: "SKILL.md has every section",
      result: missing.length === 0 ? "passed" : "failed",
      details: missing.length === 0 ? "all sections present" : `missing: ${missing.join(", ")}`,
    });
    const lint = lintCheckpoints(checkpoints);
    checks.push({
      test_case_id: "lint:checkpoints",
      label: "Checkpoints pass the checkpoint lint (CKP-001…005)",
      result: lint.passed ? "passed" : "failed",
      details: lint.passed
        ? `${lint.checked} checkpoints clean`
        : lint.findings
            .map((finding) => `${finding.rule} ${finding.checkpoint_id}: ${finding.message}`)
            .join("; ")
            .slice(0, 1000),
    });
    const nameTaken = installed.find((entry) => entry.skill_slug === slug);
    checks.push({
      test_case_id: "collision:name",
      label: "No installed ability has the same name",
      result: nameTaken === undefined ? "passed" : "failed",
      details: nameTaken === undefined ? "name is free" : `"${slug}" is already installed (${nameTaken.ability_id})`,
    });
    const ours = new Set(triggers.map((phrase) => phrase.toLowerCase()));
    const shared = installed.flatMap((entry) =>
      entry.trigger_phrases.filter((phrase) => ours.has(phrase.toLowerCase())).map((phrase) => `${phrase} (${entry.ability_id})`),
    );
    checks.push({
      test_case_id: "collision:triggers",
      label: "No trigger phrase is already used by an installed ability",
      result: shared.length === 0 ? "passed" : "failed",
      details: shared.length === 0 ? "no shared trigger phrases" : `shared: ${shared.join(", ")}`.slice(0, 1000),
    });
    return checks;
  };

  const triggerChecks = async (tests: TriggerTests, title: string, triggers: string[], negatives: string[]): Promise<Check[]> => {
    const entry: AbilityAvailabilityEntry = {
      ability_id: "candidate",
      title,
      family: "learned",
      source: "learned",
      install_lane: "experimental_private",
      enabled: true,
      usable_now: true,
      trigger_phrases: triggers,
      negative_triggers: negatives,
      aliases: [],
      project_scopes: [],
      preferred_control_surfaces: [],
      support_pack_refs: [],
      schema_version: 1,
    };
    // What lookup does (issue #15: wording and meaning), on this skill alone.
    const verdictOf = await deps.abilities.lookups.verdictsFor(entry);
    const check = async (kind: string, phrase: string, index: number, shouldMatch: boolean): Promise<Check> => {
      const verdict = await verdictOf(phrase);
      return {
        test_case_id: `trigger:${kind}-${index + 1}`,
        label: `${shouldMatch ? "Finds" : "Does not find"} it for "${phrase}"`.slice(0, 240),
        result: verdict.matched === shouldMatch ? "passed" : "failed",
        details: [...verdict.reasons, ...verdict.rejections].join("; ").slice(0, 1000),
      };
    };
    return Promise.all([
      ...tests.positive.map((phrase, index) => check("positive", phrase, index, true)),
      ...tests.paraphrases.map((phrase, index) => check("paraphrase", phrase, index, true)),
      ...tests.negative.map((phrase, index) => check("negative", phrase, index, false)),
    ]);
  };

  const defaultPolicy = (flow: RecorderFlow): TestPolicy => {
    const firstUrl = flow.steps.find((step): step is Extract<RecorderFlow["steps"][number], { type: "navigate" }> => step.type === "navigate")?.url;
    const host = firstUrl === undefined ? undefined : new URL(firstUrl).hostname;
    return TestPolicySchema.parse({ policy_id: randomUUID(), mode: "dry_run_only", allowed_domains: host === undefined ? [] : [host], schema_version: 1 });
  };

  return {
    inProgress: (proposalId) => running.has(proposalId),

    async validate(proposalId, request) {
      if (running.has(proposalId)) throw new AppError("VALIDATION_IN_PROGRESS", "A validation of this proposal is already running; wait for it to finish.");
      const { proposal } = await deps.proposals.detail(proposalId);
      const sessionId = proposal.learn_session_id as string;
      const session = deps.sessions.get(sessionId);
      if (session.state !== "ready_for_review" && session.state !== "drafting_proposal") {
        throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A proposal is validated from review, not while the session is ${session.state}.`);
      }
      const kinds = request.selected_tests.length > 0 ? request.selected_tests : ["lint", "trigger", "dependency_check", "rehearsal"];
      running.add(proposalId);
      const runId = randomUUID();
      const startedAt = now();
      try {
        await deps.sessions.advance(
          sessionId,
          [...(session.state === "ready_for_review" ? (["drafting_proposal"] as const) : []), "testing_proposal"],
          { validation_run_id: runId },
          [{ receipt: "learn.validation.started", event: "learn.validation.started", payload: { proposal_id: proposalId, validation_run_id: runId, kinds } }],
        );
        await deps.proposals.setState(proposalId, "testing");
        // The revision checked, named in the run, so a later revision is not taken for validated.
        const draft = (await deps.proposals.detail(proposalId)).proposal.draft_skill_path;
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
          const policy = (await deps.proposals.testPolicyOf(sessionId)) ?? defaultPolicy(flow);
          const result = await rehearse({
            flow,
            checkpoints,
            parameters,
            testValues: request.test_values,
            policy,
            ...(deps.chromiumPath === undefined ? {} : { chromiumPath: deps.chromiumPath }),
          });
          violation = result.policy_violation;
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
              created_at: now(),
              schema_version: 1,
            });
          }
        }
        const overall: ValidationRun["overall_result"] =
          checks.some((check) => check.result === "failed") || violation !== undefined
            ? "failed"
            : checks.some((check) => check.result === "skipped")
              ? "partial"
              : "passed";
        const createdAt = now();
        const steps = checks.map((check) => ValidationStepResultSchema.parse({ ...check, validation_run_id: runId, created_at: createdAt, schema_version: 1 }));
        const run = ValidationRunSchema.parse({
          validation_run_id: runId,
          proposal_id: proposalId,
          run_kind: kinds.includes("rehearsal") ? "rehearsal" : "lint",
          started_at: startedAt,
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
      } finally {
        running.delete(proposalId);
      }
    },

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
