import { randomUUID } from "node:crypto";
import { z } from "zod";
import { WorkflowBoundarySchema } from "../../shared/learning/boundary";
import { ObservedActionEventWithDetailSchema } from "../../shared/learning/observed-action";
import { LearningAnswerSchema, LearningQuestionSchema, type LearningQuestion } from "../../shared/learning/proposal";
import { ProposalTriggerTestsSchema, type RequestMoreTestsRequest, type RequestMoreTestsResponse } from "../../shared/learning/proposal-tests";
import { RefinementOutcomeSchema, type ProposalDetailResponse, type ProposalReviseRequest } from "../../shared/learning/route-contracts";
import { SkillDeltaSchema, type SkillDelta } from "../../shared/learning/skill-delta";
import type { LearnSession } from "../../shared/learning/learn-session";
import {
  SemanticWorkflowInterpretationSchema,
  type SemanticWorkflowInterpretation,
} from "../../shared/learning/semantic-workflow-interpretation";
import { TestPolicyRecordSchema } from "./session-log";
import type { TestPolicy } from "../../shared/learning/test-policy";
import { PageSnapshotSchema, type PageSnapshot } from "../../shared/observation/page-snapshot";
import { SkillBundleProposalSchema, type SkillBundleProposal } from "../../shared/skills/proposal";
import { createAbilityRegistry, type InstalledAbility } from "../abilities/ability-registry";
import type { Clock } from "../clock";
import { AppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { lintCheckpoints, type CheckpointLintReport } from "./compiler/checkpoint-lint";
import { emitRecorderFlow } from "./compiler/emit-recorder-flow";
import { emitCapabilityManifest, emitSkillMarkdown, emitTriggerTests } from "./compiler/emit-skill";
import { applyDesktopSteps } from "./compiler/desktop-steps";
import { interpretTrace, type AnswersByField, type ImprovedSkillBase, type Interpretation } from "./compiler/interpret";
import { moreTriggerTests } from "./compiler/more-trigger-tests";
import { diffSkills, nextSkillVersion, readSkillOutline } from "./compiler/skill-delta";
import { normalizeTrace } from "./compiler/normalize-trace";
import { refineInterpretation, type RefinerConfig } from "./refiner/model-refiner";
import { readExclusions } from "./observation-exclusions";
import type { SessionService } from "./session-service";

/** One line of `proposals.jsonl`: the proposal as it is after a change (last line per id wins). */
const LiveProposalRecordSchema = z.object({
  proposal: SkillBundleProposalSchema,
  revision: z.number().int().min(1),
  lint: z.object({
    passed: z.boolean(),
    findings: z.array(
      z.object({
        rule: z.enum(["CKP-001", "CKP-002", "CKP-003", "CKP-004", "CKP-005"]),
        checkpoint_id: z.string(),
        field: z.enum(["goal", "success_condition"]),
        message: z.string(),
      }),
    ),
    checked: z.number().int(),
  }),
});
type ProposalLogRecord = z.infer<typeof LiveProposalRecordSchema>;
/** A line is the proposal as it is now, or the tombstone its archive (§0C.16D, 14 days) leaves. */
const ProposalLogLineSchema = z.union([LiveProposalRecordSchema, z.object({ archived_proposal_id: z.string().uuid(), archived_at: z.string().datetime() })]);

/**
 * A draft revision's `trigger-tests.json`: the tests, and each "Request More Tests" that added
 * some (what the user asked for, kept with the revision it produced).
 */
const TriggerTestsFileSchema = ProposalTriggerTestsSchema.extend({
  requests: z
    .array(
      z.object({
        requested_at: z.string().datetime(),
        positive_examples: z.array(z.string()),
        negative_examples: z.array(z.string()),
        note: z.string().optional(),
      }),
    )
    .default([]),
});

/** §0C.4: the installed skill a session improves, as read (read-only) from ELNOR_MEMORY. */
interface ImprovedSkill {
  ability: InstalledAbility;
  markdown: string;
}

/** Edits a user may make when revising (issue #5): the meaning, never the recorded trace. */
const EditedFieldsSchema = z
  .object({
    title: z.string().min(1).max(160),
    goal_summary: z.string().min(1).max(600),
    use_conditions: z.array(z.string().max(240)).max(20),
    non_use_conditions: z.array(z.string().max(240)).max(20),
    trigger_phrases: z.array(z.string().max(120)).max(20),
    negative_triggers: z.array(z.string().max(120)).max(20),
    checkpoints: z.array(z.object({ checkpoint_id: z.string().max(80), goal: z.string().min(1).max(240).optional(), success_condition: z.string().max(240).optional() })).max(40),
  })
  .partial()
  .strict();

export interface ProposalService {
  /** `POST …/generate-proposal` (R11.2-11): compile the stopped session into a proposal. */
  generate(sessionId: string): Promise<{ proposalId: string }>;
  /** After answers: rebuild the current proposal with them; moves the session on when none remain. */
  regenerateAfterAnswers(sessionId: string): Promise<void>;
  list(page: number, pageSize: number): { proposals: SkillBundleProposal[]; total: number };
  detail(proposalId: string): Promise<ProposalDetailResponse>;
  revise(proposalId: string, request: ProposalReviseRequest): Promise<ProposalDetailResponse>;
  reject(proposalId: string, reason: string): Promise<ProposalDetailResponse>;
  /** The session's rehearsal policy (§0C.14), if the user set one. */
  testPolicyOf(sessionId: string): Promise<TestPolicy | undefined>;
  /** Moves the proposal's state (validation outcomes). */
  setState(proposalId: string, state: SkillBundleProposal["proposal_state"]): Promise<void>;
  /** The files of the proposal's current draft revision, as text, by file name. */
  draftFiles(proposalId: string): Promise<Record<string, string>>;
  /** Records the install saga's outcome on the proposal (state, lane, ability). */
  recordInstall(proposalId: string, patch: Pick<SkillBundleProposal, "proposal_state" | "install_lane"> & Partial<Pick<SkillBundleProposal, "ability_id" | "primary_capability_id">>): Promise<SkillBundleProposal>;
  /**
   * §0C.18 "Request More Tests": the current revision's trigger tests plus the user's examples and
   * generated ones, as a new draft revision (the previous one is kept). The proposal goes back to
   * `draft` / `drafting_proposal` until a validation runs the new tests.
   */
  requestMoreTests(proposalId: string, request: RequestMoreTestsRequest): Promise<RequestMoreTestsResponse>;
  /** The live proposal of a session, if any. */
  ofSession(sessionId: string): SkillBundleProposal | undefined;
  /**
   * §0C.16D: moves a proposal of a finished session to `archived/proposals/<id>/` (its record,
   * answers to nothing live any more, and the last SKILL.md) and out of the live list.
   */
  archive(proposalId: string): Promise<void>;
}

const EventsFileSchema = ObservedActionEventWithDetailSchema;

/**
 * From demonstration to proposal (issue #5, DESIGN §6): normalize → interpret → emit → lint,
 * drafts under `learning/drafts/<proposal_id>/rev-NNN/`, questions for what cannot be inferred.
 * Deterministic: no model is needed.
 */
export async function createProposalService(deps: {
  memory: MemoryStore;
  sessions: SessionService;
  clock: Clock;
  /** DESIGN §6 step 4: an OpenAI-compatible model that may reword the deterministic result. */
  refiner?: RefinerConfig | undefined;
}): Promise<ProposalService> {
  const records = new Map<string, ProposalLogRecord>();
  for (const line of await deps.memory.readJsonl(MemoryPaths.proposals, ProposalLogLineSchema)) {
    if ("archived_proposal_id" in line) records.delete(line.archived_proposal_id);
    else records.set(line.proposal.proposal_id, line);
  }
  const now = () => deps.clock.now().toISOString();

  /** The draft revision folder a proposal currently points at. */
  const folderOf = (proposal: SkillBundleProposal) => proposal.draft_skill_path.replace(/\/SKILL\.md$/, "");

  const find = (proposalId: string): ProposalLogRecord => {
    const record = records.get(proposalId);
    if (record === undefined) throw new AppError("PROPOSAL_NOT_FOUND", `No proposal ${proposalId}.`);
    return record;
  };
  const put = async (record: ProposalLogRecord) => {
    await deps.memory.append(MemoryPaths.proposals, record);
    records.set(record.proposal.proposal_id, record);
  };

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

  /**
   * §0C.4 Improving Existing Skill: the installed skill the session names, read from the ability
   * registry and the skill's canonical SKILL.md. Nothing here writes: the installed skill is never
   * edited in place; installing the proposal replaces it through the install saga.
   */
  const improvedSkillOf = async (session: LearnSession): Promise<ImprovedSkill | undefined> => {
    if (session.target_kind !== "existing_skill" && session.entry_mode !== "improving_existing_skill") return undefined;
    const target = session.target_skill_id?.trim();
    if (target === undefined || target === "") {
      throw new AppError("ABILITY_NOT_FOUND", "This session improves an existing skill but names none (target_skill_id): start it again from the skill to improve.");
    }
    // The registry file, read afresh: the same lines the ability service keeps (last per id wins).
    const registry = await createAbilityRegistry(deps.memory);
    const ability = registry.get(target) ?? registry.bySkillName(target);
    if (ability === undefined) {
      throw new AppError("ABILITY_NOT_FOUND", "The skill this session improves (target_skill_id) is not installed: pick one of your skills under Skills, or learn a new ability instead.");
    }
    const markdown = await deps.memory.readText(`${MemoryPaths.installedSkill(ability.skill_name)}/SKILL.md`);
    if (markdown === undefined) {
      throw new AppError("ABILITY_NOT_FOUND", "The skill this session improves has no SKILL.md in memory any more; reinstall it or learn a new ability instead.");
    }
    return { ability, markdown };
  };

  const baseOf = (improved: ImprovedSkill): ImprovedSkillBase => {
    const outline = readSkillOutline(improved.markdown);
    return {
      slug: improved.ability.skill_name,
      title: outline.title || improved.ability.title,
      goal_summary: outline.description || `${improved.ability.title}.`,
      use_conditions: outline.use_conditions,
      non_use_conditions: outline.non_use_conditions,
      triggers: outline.triggers.length > 0 ? outline.triggers : improved.ability.trigger_phrases,
      negative_triggers: outline.negative_triggers.length > 0 ? outline.negative_triggers : improved.ability.negative_triggers,
      next_version: nextSkillVersion(outline.version),
    };
  };

  /**
   * Compiles the session's demonstration with the answers known so far. The interpretation it
   * returns is the deterministic result (DESIGN §6): the one place a refiner would start from;
   * edits, lint and emit follow in `build`.
   */
  const compile = async (sessionId: string, answers: AnswersByField) => {
    const session = deps.sessions.get(sessionId);
    const improved = await improvedSkillOf(session);
    const excluded = new Set(await readExclusions(deps.memory, sessionId));
    const events = (await deps.memory.readJsonl(MemoryPaths.observationEvents(sessionId), EventsFileSchema)).filter((event) => !excluded.has(event.event_id));
    const boundaries = (await deps.memory.readJsonl(MemoryPaths.boundaries, WorkflowBoundarySchema)).filter((boundary) => boundary.learn_session_id === sessionId);
    const trace = normalizeTrace({ events, boundaries, start_boundary_ref: session.start_boundary_ref, stop_boundary_ref: session.stop_boundary_ref });
    if (trace.steps.length === 0) {
      throw new AppError(
        "INSUFFICIENT_TRACES",
        events.length === 0
          ? "Nothing was observed in this session: demonstrate the task (at least one action) before generating a proposal."
          : "No action is left within the session's boundaries: widen the trim or demonstrate again.",
      );
    }
    const snapshots = new Map<string, PageSnapshot>();
    for (const sha of new Set(events.flatMap((event) => [event.before_state_ref, event.after_state_ref]).filter((ref): ref is string => ref?.startsWith("snapshot:") === true).map((ref) => ref.slice(9)))) {
      const snapshot = await deps.memory.readJson(MemoryPaths.observationSnapshot(sessionId, sha), PageSnapshotSchema).catch(() => undefined);
      if (snapshot !== undefined) snapshots.set(sha, snapshot);
    }
    const interpretation = applyDesktopSteps(interpretTrace({ trace, snapshots, answers, improves: improved === undefined ? undefined : baseOf(improved) }), trace, events, answers);
    const literals = trace.steps.map((step) => step.consented_value).filter((value): value is string => value !== undefined);
    return { trace, interpretation, literals, improved };
  };

  const policyOf = async (sessionId: string) => {
    const ref = deps.sessions.get(sessionId).test_policy_ref?.replace(/^test_policy:/, "");
    if (ref === undefined) return undefined;
    return (await deps.memory.readJsonl(MemoryPaths.testPolicies, TestPolicyRecordSchema)).reverse().find((record) => record.test_policy.policy_id === ref)?.test_policy;
  };

  /** §0C.4 The delta of a draft against the installed skill it improves, both read from their SKILL.md. */
  const deltaOf = (improved: ImprovedSkill, markdown: string, version: string): SkillDelta => {
    const installed = readSkillOutline(improved.markdown);
    return SkillDeltaSchema.parse({
      target_ability_id: improved.ability.ability_id,
      target_skill_name: improved.ability.skill_name,
      installed_title: (installed.title || improved.ability.title).slice(0, 200),
      ...(installed.version === undefined ? {} : { installed_version: installed.version }),
      proposed_version: version,
      ...diffSkills(installed, readSkillOutline(markdown)),
      compared_at: now(),
      schema_version: 1,
    });
  };

  /**
   * Writes one draft revision: SKILL.md, interpretation, IR, Recorder flow, manifest, trigger tests,
   * lint, and for an improvement its delta against the installed skill (`skill-delta.json`).
   */
  const writeDraft = async (
    proposalId: string,
    revision: number,
    sessionId: string,
    interpretation: Interpretation,
    trace: ReturnType<typeof normalizeTrace>,
    lint: CheckpointLintReport,
    improved: ImprovedSkill | undefined,
  ) => {
    const folder = MemoryPaths.draftRevision(proposalId, revision);
    const markdown = emitSkillMarkdown(interpretation, await policyOf(sessionId));
    await deps.memory.writeText(`${folder}/SKILL.md`, markdown);
    if (improved !== undefined) await deps.memory.writeJson(`${folder}/skill-delta.json`, deltaOf(improved, markdown, interpretation.version ?? nextSkillVersion(undefined)));
    await deps.memory.writeJson(`${folder}/workflow-graph.json`, interpretation.graph);
    await deps.memory.writeJson(`${folder}/flow.recorder.json`, emitRecorderFlow(interpretation, trace.steps));
    await deps.memory.writeJson(`${folder}/capability-manifest.json`, emitCapabilityManifest(interpretation, `learned.${interpretation.slug}`));
    await deps.memory.writeJson(`${folder}/trigger-tests.json`, emitTriggerTests(interpretation));
    await deps.memory.writeJson(`${folder}/checkpoint-lint.json`, lint);
    await deps.memory.writeJson(`${folder}/parameters.json`, interpretation.parameters);
    await deps.memory.writeJson(`${folder}/checkpoints.json`, interpretation.checkpoints);
    return folder;
  };

  const semanticOf = (interpretationId: string, sessionId: string, proposalId: string, interpretation: Interpretation, confirmed: boolean): SemanticWorkflowInterpretation =>
    SemanticWorkflowInterpretationSchema.parse({
      interpretation_id: interpretationId,
      learn_session_id: sessionId,
      proposal_id: proposalId,
      title: interpretation.title,
      goal_summary: interpretation.goal_summary,
      use_conditions: interpretation.use_conditions,
      non_use_conditions: interpretation.non_use_conditions,
      project_scope: interpretation.project_scope,
      preferred_control_surfaces: interpretation.preferred_control_surfaces,
      success_conditions: interpretation.checkpoints.map((checkpoint) => checkpoint.success_condition),
      checkpoints: interpretation.checkpoints.map(({ checkpoint_id, goal, success_condition, order_hint }) => ({ checkpoint_id, goal, success_condition, order_hint })),
      user_confirmed: confirmed,
      created_at: now(),
      schema_version: 1,
    });

  /** Builds revision `revision` of a proposal and stores everything; returns the record (not yet put). */
  const build = async (
    sessionId: string,
    proposalId: string,
    revision: number,
    answers: AnswersByField,
    edits: z.infer<typeof EditedFieldsSchema>,
    base: SkillBundleProposal | undefined,
  ) => {
    const { trace, interpretation: deterministic, literals, improved } = await compile(sessionId, answers);
    // The model only rewords a new skill: an improvement keeps the installed skill's wording.
    const refined =
      deps.refiner === undefined
        ? undefined
        : improved === undefined
          ? await refineInterpretation(deps.refiner, deterministic, literals)
          : { interpretation: deterministic, outcome: { used: "deterministic" as const, model: deps.refiner.model, reason: "an improvement keeps the installed skill's wording" } };
    const compiled = refined?.interpretation ?? deterministic;
    const interpretation: Interpretation = {
      ...compiled,
      ...(edits.title === undefined ? {} : { title: edits.title }),
      ...(edits.goal_summary === undefined ? {} : { goal_summary: edits.goal_summary }),
      ...(edits.use_conditions === undefined ? {} : { use_conditions: edits.use_conditions }),
      ...(edits.non_use_conditions === undefined ? {} : { non_use_conditions: edits.non_use_conditions, negative_triggers: edits.non_use_conditions.map((line) => line.slice(0, 120)) }),
      ...(edits.trigger_phrases === undefined ? {} : { triggers: edits.trigger_phrases }),
      ...(edits.negative_triggers === undefined ? {} : { negative_triggers: edits.negative_triggers }),
      checkpoints: compiled.checkpoints.map((checkpoint) => {
        const edit = edits.checkpoints?.find((candidate) => candidate.checkpoint_id === checkpoint.checkpoint_id);
        return edit === undefined ? checkpoint : { ...checkpoint, ...(edit.goal === undefined ? {} : { goal: edit.goal }), ...(edit.success_condition === undefined ? {} : { success_condition: edit.success_condition, observable: true }) };
      }),
    };
    const lint = lintCheckpoints(interpretation.checkpoints, literals);
    const folder = await writeDraft(proposalId, revision, sessionId, interpretation, trace, lint, improved);
    if (refined !== undefined) await deps.memory.writeJson(`${folder}/refinement.json`, RefinementOutcomeSchema.parse(refined.outcome));
    const interpretationId = randomUUID();
    await deps.memory.writeJson(MemoryPaths.interpretation(interpretationId), semanticOf(interpretationId, sessionId, proposalId, interpretation, revision > 1));
    const at = now();
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
      draft_skill_path: `${folder}/SKILL.md`,
      draft_manifest_path: `${folder}/capability-manifest.json`,
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
  };

  const askQuestions = async (proposalId: string, interpretation: Interpretation): Promise<LearningQuestion[]> => {
    const existing = await questionsOf(proposalId);
    const fresh = interpretation.questions
      .filter((question) => !existing.some((old) => old.field === question.field))
      .map((question) =>
        LearningQuestionSchema.parse({ question_id: randomUUID(), proposal_id: proposalId, field: question.field, prompt: question.prompt, required: question.required, created_at: now(), schema_version: 1 }),
      );
    await deps.memory.appendMany(MemoryPaths.questions, fresh);
    return [...existing, ...fresh];
  };

  const service: ProposalService = {
    async generate(sessionId) {
      const session = deps.sessions.get(sessionId);
      if (session.state !== "stopped" && session.state !== "reviewing") {
        throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A proposal is generated from a stopped session, not one that is ${session.state}.`);
      }
      const proposalId = randomUUID();
      const { proposal, lint, interpretation } = await build(sessionId, proposalId, 1, {}, {}, undefined);
      const questions = await askQuestions(proposalId, interpretation);
      const pendingRequired = questions.filter((question) => question.required && interpretation.questions.some((open) => open.field === question.field && open.required));
      const toReview = session.state === "stopped" ? (["reviewing"] as const) : ([] as const);
      if (pendingRequired.length > 0) {
        await put({ proposal: { ...proposal, proposal_state: "awaiting_questions" }, revision: 1, lint });
        await deps.sessions.advance(sessionId, [...toReview, "awaiting_questions"], { proposal_id: proposalId, interpretation_id: proposal.interpretation_id }, [
          { receipt: "learn.proposal.created", event: "learn.proposal.created", payload: { proposal_id: proposalId } },
          { receipt: "learn.proposal.questions_requested", event: "learn.proposal.questions_requested", payload: { proposal_id: proposalId, questions: pendingRequired.length } },
        ]);
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
      const answered = new Set((await deps.memory.readJsonl(MemoryPaths.answers, LearningAnswerSchema)).filter((answer) => answer.proposal_id === proposalId).map((answer) => answer.question_id));
      const remaining = questions.filter((question) => question.required && !answered.has(question.question_id));
      if (remaining.length > 0) {
        await put({ proposal: { ...proposal, proposal_state: "awaiting_questions" }, revision: record.revision + 1, lint });
        return;
      }
      const ready = lint.passed;
      await put({ proposal: { ...proposal, proposal_state: ready ? "ready_for_review" : "draft" }, revision: record.revision + 1, lint });
      await deps.sessions.advance(sessionId, ["drafting_proposal", ...(ready ? (["ready_for_review"] as const) : [])], { interpretation_id: proposal.interpretation_id }, [
        { receipt: "learn.proposal.created", event: "learn.proposal.created", payload: { proposal_id: proposalId, revision: record.revision + 1, checkpoint_lint_passed: lint.passed } },
      ]);
    },

    list(page, pageSize) {
      const ordered = [...records.values()].map((record) => record.proposal).sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
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
          issues: edits.error.issues.slice(0, 20).map((issue) => ({ path: `body/edited_fields/${issue.path.join("/")}`.slice(0, 240), message: issue.message.slice(0, 240) })),
        });
      }
      const sessionId = record.proposal.learn_session_id as string;
      const session = deps.sessions.get(sessionId);
      if (!["ready_for_review", "testing_proposal", "quarantined", "drafting_proposal"].includes(session.state)) {
        throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A proposal is revised from review, testing or quarantine, not while the session is ${session.state}.`);
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
          payload: { proposal_id: proposalId, revision: record.revision + 1, instructions_length: request.revision_instructions.length, checkpoint_lint_passed: lint.passed },
        },
      ]);
      return service.detail(proposalId);
    },

    async requestMoreTests(proposalId, request) {
      const record = find(proposalId);
      const sessionId = record.proposal.learn_session_id as string;
      const session = deps.sessions.get(sessionId);
      if (session.state === "testing_proposal") {
        throw new AppError("VALIDATION_IN_PROGRESS", "A validation of this proposal is running; request more tests once it has finished.");
      }
      // §0C.1A: each of these may move to drafting_proposal (or is there already).
      if (!["ready_for_review", "drafting_proposal", "quarantined"].includes(session.state)) {
        throw new AppError("INVALID_LEARN_STATE_TRANSITION", `More tests are added to a proposal in review, drafting or quarantine, not while the session is ${session.state}.`);
      }
      const from = folderOf(record.proposal);
      const tests = (await deps.memory.readJson(`${from}/trigger-tests.json`, TriggerTestsFileSchema)) ?? { positive: [], paraphrases: [], negative: [], requests: [] };
      const added = moreTriggerTests(tests, { title: record.proposal.title, triggers: record.proposal.trigger_phrases }, request);
      const count = added.positive.length + added.paraphrases.length + added.negative.length;
      if (count === 0) {
        throw new AppError("REQUEST_INVALID", "Every one of these requests is already a test of this proposal; give a new example request.");
      }
      // A new revision: the current one's files as they are, with the longer test list.
      const revision = record.revision + 1;
      // The session moves first: if the move is refused (the proposal was rejected or a validation
      // started meanwhile), nothing points at the new revision.
      const current = deps.sessions.get(sessionId).state;
      if (current !== session.state) throw new AppError(current === "testing_proposal" ? "VALIDATION_IN_PROGRESS" : "INVALID_LEARN_STATE_TRANSITION", `The proposal changed while the tests were being added (the session is now ${current}); try again.`);
      await deps.sessions.advance(sessionId, current === "drafting_proposal" ? [] : ["drafting_proposal"], {}, [
        {
          receipt: "learn.proposal.revision_requested",
          event: "learn.proposal.created",
          payload: {
            proposal_id: proposalId,
            revision,
            more_tests: { positive: added.positive.length, paraphrases: added.paraphrases.length, negative: added.negative.length },
            note_length: request.note?.length ?? 0,
          },
        },
      ]);
      const folder = MemoryPaths.draftRevision(proposalId, revision);
      for (const name of await deps.memory.list(from)) {
        if (name === "trigger-tests.json") continue;
        const text = await deps.memory.readText(`${from}/${name}`);
        if (text !== undefined) await deps.memory.writeText(`${folder}/${name}`, text);
      }
      const at = now();
      await deps.memory.writeJson(`${folder}/trigger-tests.json`, {
        positive: [...tests.positive, ...added.positive],
        paraphrases: [...tests.paraphrases, ...added.paraphrases],
        negative: [...tests.negative, ...added.negative],
        requests: [
          ...tests.requests,
          { requested_at: at, positive_examples: request.positive_examples, negative_examples: request.negative_examples, ...(request.note === undefined || request.note === "" ? {} : { note: request.note }) },
        ],
      });
      const moved = (path: string | undefined) => (path === undefined ? undefined : `${folder}/${path.slice(from.length + 1)}`);
      // Tests that never ran cannot leave it ready for review: back to draft until validated.
      const proposal = SkillBundleProposalSchema.parse({
        ...record.proposal,
        draft_skill_path: moved(record.proposal.draft_skill_path),
        draft_manifest_path: moved(record.proposal.draft_manifest_path),
        ...(record.proposal.draft_graph_ref === undefined ? {} : { draft_graph_ref: moved(record.proposal.draft_graph_ref) }),
        proposal_state: "draft",
        install_lane: "pending",
        updated_at: at,
      });
      await put({ proposal, revision, lint: record.lint });
      return { ...(await service.detail(proposalId)), added_trigger_tests: added };
    },

    testPolicyOf: policyOf,

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

    ofSession: (sessionId) => [...records.values()].find((record) => record.proposal.learn_session_id === sessionId)?.proposal,

    async archive(proposalId) {
      const record = find(proposalId);
      const finalState = record.proposal.proposal_state === "rejected" ? "rejected" : "cancelled";
      const folder = MemoryPaths.archivedProposal(proposalId);
      const markdown = await deps.memory.readText(record.proposal.draft_skill_path);
      await deps.memory.writeJson(`${folder}/proposal.json`, { ...record, proposal: { ...record.proposal, proposal_state: finalState }, archived_at: now() });
      if (markdown !== undefined) await deps.memory.writeText(`${folder}/SKILL.md`, markdown);
      await deps.memory.append(MemoryPaths.proposals, { archived_proposal_id: proposalId, archived_at: now() });
      records.delete(proposalId);
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
      await deps.sessions.advance(sessionId, ["rejected"], {}, [{ receipt: "learn.proposal.rejected", payload: { proposal_id: proposalId, reason: reason.slice(0, 240) } }]);
      return service.detail(proposalId);
    },
  };
  return service;
}
