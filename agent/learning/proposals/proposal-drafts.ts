import { ProposalEditsSchema as EditedFieldsSchema, type ProposalEdits } from "../../../shared/learning/proposal-edits";
import { applyDesktopSteps } from "../compiler/desktop-steps";
import { randomUUID } from "node:crypto";
import { WorkflowBoundarySchema } from "../../../shared/learning/boundary";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-action";
import { RefinementOutcomeSchema } from "../../../shared/learning/route-contracts";
import { SkillDeltaSchema, type SkillDelta } from "../../../shared/learning/skill-delta";
import type { LearnSession } from "../../../shared/learning/learn-session";
import { SemanticWorkflowInterpretationSchema, type SemanticWorkflowInterpretation } from "../../../shared/learning/semantic-workflow-interpretation";
import { parseSuccessCondition } from "../../../shared/learning/success-conditions";
import type { TestPolicy } from "../../../shared/learning/test-policy";
import { PageSnapshotSchema, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { SkillBundleProposalSchema, type SkillBundleProposal } from "../../../shared/skills/proposal";
import { createAbilityRegistry, type InstalledAbility } from "../../abilities/ability-registry";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { lintCheckpoints, type CheckpointLintReport } from "../compiler/checkpoint-lint";
import { emitRecorderFlow } from "../compiler/emit-recorder-flow";
import { emitCapabilityManifest, emitSkillMarkdown, emitTriggerTests } from "../compiler/emit-skill";
import { interpretTrace, type AnswersByField, type ImprovedSkillBase, type Interpretation } from "../compiler/interpret";
import { diffSkills, nextSkillVersion, readSkillOutline } from "../compiler/skill-delta";
import { normalizeTrace } from "../compiler/normalize-trace";
import { refineInterpretation, type RefinerConfig } from "../refiner/model-refiner";
import { carryExamples } from "./example-files";
import { readExclusions } from "../sessions/observation-exclusions";
import { draftFolderOf } from "./proposal-log";
import { TestPolicyRecordSchema } from "../sessions/session-log";
import type { SessionService } from "../sessions/session-service";
import { DraftFiles, InstalledFiles } from "../../../shared/skills/skill-folder";

/** §0C.4: the installed skill a session improves, as read (read-only) from ELNOR_MEMORY. */
interface ImprovedSkill {
  ability: InstalledAbility;
  markdown: string;
}

export { EditedFieldsSchema };
export type DraftEdits = ProposalEdits;

const EventsFileSchema = ObservedActionEventWithDetailSchema;

export interface DraftBuilder {
  /**
   * Builds revision `revision` of a proposal from the session's demonstration, the answers so far
   * and the user's edits, and stores everything under `learning/drafts/<proposal_id>/rev-NNN/`;
   * returns the proposal record (not yet put in the log).
   */
  build(
    sessionId: string,
    proposalId: string,
    revision: number,
    answers: AnswersByField,
    edits: DraftEdits,
    base: SkillBundleProposal | undefined,
  ): Promise<{ proposal: SkillBundleProposal; lint: CheckpointLintReport; interpretation: Interpretation }>;
  /** The session's rehearsal policy (§0C.14), if the user set one. */
  policyOf(sessionId: string): Promise<TestPolicy | undefined>;
}

/**
 * From demonstration to draft (issue #5, DESIGN §6): normalize → interpret → (refine) → edits →
 * lint → emit. Deterministic unless a refiner is configured.
 */
export function createDraftBuilder(deps: { memory: MemoryStore; sessions: SessionService; clock: Clock; refiner?: RefinerConfig | undefined }): DraftBuilder {
  const now = () => deps.clock.now().toISOString();

  /**
   * §0C.4 Improving Existing Skill: the installed skill the session names, read from the ability
   * registry and the skill's canonical SKILL.md. Nothing here writes: the installed skill is never
   * edited in place; installing the proposal replaces it through the install saga.
   */
  const improvedSkillOf = async (session: LearnSession): Promise<ImprovedSkill | undefined> => {
    if (session.target_kind !== "existing_skill" && session.entry_mode !== "improving_existing_skill") return undefined;
    const target = session.target_skill_id?.trim();
    if (target === undefined || target === "") {
      throw new AppError(
        "ABILITY_NOT_FOUND",
        "This session improves an existing skill but names none (target_skill_id): start it again from the skill to improve.",
      );
    }
    // The registry file, read afresh: the same lines the ability service keeps (last per id wins).
    const registry = await createAbilityRegistry(deps.memory);
    const ability = registry.get(target) ?? registry.bySkillName(target);
    if (ability === undefined) {
      throw new AppError(
        "ABILITY_NOT_FOUND",
        "The skill this session improves (target_skill_id) is not installed: pick one of your skills under Skills, or learn a new ability instead.",
      );
    }
    const markdown = await deps.memory.readText(`${MemoryPaths.installedSkill(ability.skill_name)}/${InstalledFiles.skill}`);
    if (markdown === undefined) {
      throw new AppError(
        "ABILITY_NOT_FOUND",
        "The skill this session improves has no SKILL.md in memory any more; reinstall it or learn a new ability instead.",
      );
    }
    return { ability, markdown };
  };

  const baseOf = (improved: ImprovedSkill): ImprovedSkillBase => {
    const outline = readSkillOutline(improved.markdown);
    return {
      slug: improved.ability.skill_name,
      title: outline.title || improved.ability.title,
      goal_summary: outline.summary || `${improved.ability.title}.`,
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
    const boundaries = (await deps.memory.readJsonl(MemoryPaths.boundaries, WorkflowBoundarySchema)).filter(
      (boundary) => boundary.learn_session_id === sessionId,
    );
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
    for (const sha of new Set(
      events
        .flatMap((event) => [event.before_state_ref, event.after_state_ref])
        .filter((ref): ref is string => ref?.startsWith("snapshot:") === true)
        .map((ref) => ref.slice(9)),
    )) {
      const snapshot = await deps.memory.readJson(MemoryPaths.observationSnapshot(sessionId, sha), PageSnapshotSchema).catch(() => undefined);
      if (snapshot !== undefined) snapshots.set(sha, snapshot);
    }
    // The snapshots the page took as it settled after an action (issue #14: evidence that lasts).
    const moments = events.flatMap((event) =>
      event.adapter_kind === "browser_snapshot" && event.after_state_ref !== undefined ? [{ at: event.created_at, ref: event.after_state_ref }] : [],
    );
    const interpretation = applyDesktopSteps(
      interpretTrace({ trace, snapshots, moments, answers, improves: improved === undefined ? undefined : baseOf(improved) }),
      trace,
      events,
      answers,
    );
    const literals = trace.steps.map((step) => step.consented_value).filter((value): value is string => value !== undefined);
    return { trace, interpretation, literals, improved };
  };

  const policyOf = async (sessionId: string) => {
    const ref = deps.sessions.get(sessionId).test_policy_ref?.replace(/^test_policy:/, "");
    if (ref === undefined) return undefined;
    return (await deps.memory.readJsonl(MemoryPaths.testPolicies, TestPolicyRecordSchema)).reverse().find((record) => record.test_policy.policy_id === ref)
      ?.test_policy;
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
    await deps.memory.writeText(`${folder}/${DraftFiles.skill}`, markdown);
    if (improved !== undefined)
      await deps.memory.writeJson(`${folder}/${DraftFiles.skillDelta}`, deltaOf(improved, markdown, interpretation.version ?? nextSkillVersion(undefined)));
    await deps.memory.writeJson(`${folder}/workflow-graph.json`, interpretation.graph);
    await deps.memory.writeJson(`${folder}/${DraftFiles.flow}`, emitRecorderFlow(interpretation, trace.steps));
    await deps.memory.writeJson(`${folder}/${DraftFiles.manifest}`, emitCapabilityManifest(interpretation, `learned.${interpretation.slug}`));
    await deps.memory.writeJson(`${folder}/${DraftFiles.triggerTests}`, emitTriggerTests(interpretation));
    await deps.memory.writeJson(`${folder}/${DraftFiles.checkpointLint}`, lint);
    await deps.memory.writeJson(`${folder}/${DraftFiles.parameters}`, interpretation.parameters);
    await deps.memory.writeJson(`${folder}/${DraftFiles.checkpoints}`, interpretation.checkpoints);
    return folder;
  };

  const semanticOf = (
    interpretationId: string,
    sessionId: string,
    proposalId: string,
    interpretation: Interpretation,
    confirmed: boolean,
  ): SemanticWorkflowInterpretation =>
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
      checkpoints: interpretation.checkpoints.map(({ checkpoint_id, goal, success_condition, order_hint, verification }) => ({
        checkpoint_id,
        goal,
        success_condition,
        order_hint,
        ...(verification === undefined ? {} : { verification }),
      })),
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
    edits: DraftEdits,
    base: SkillBundleProposal | undefined,
  ) => {
    const { trace, interpretation: deterministic, literals, improved } = await compile(sessionId, answers);
    // The model only rewords a new skill: an improvement keeps the installed skill's wording.
    const refined =
      deps.refiner === undefined
        ? undefined
        : improved === undefined
          ? await refineInterpretation(deps.refiner, deterministic, literals)
          : {
              interpretation: deterministic,
              outcome: { used: "deterministic" as const, model: deps.refiner.model, reason: "an improvement keeps the installed skill's wording" },
            };
    const compiled = refined?.interpretation ?? deterministic;
    const interpretation: Interpretation = {
      ...compiled,
      ...(edits.title === undefined ? {} : { title: edits.title }),
      ...(edits.goal_summary === undefined ? {} : { goal_summary: edits.goal_summary }),
      ...(edits.use_conditions === undefined ? {} : { use_conditions: edits.use_conditions }),
      ...(edits.non_use_conditions === undefined
        ? {}
        : { non_use_conditions: edits.non_use_conditions, negative_triggers: edits.non_use_conditions.map((line) => line.slice(0, 120)) }),
      ...(edits.trigger_phrases === undefined ? {} : { triggers: edits.trigger_phrases }),
      ...(edits.negative_triggers === undefined ? {} : { negative_triggers: edits.negative_triggers }),
      checkpoints: compiled.checkpoints.map((checkpoint) => {
        const edit = edits.checkpoints?.find((candidate) => candidate.checkpoint_id === checkpoint.checkpoint_id);
        if (edit === undefined) return checkpoint;
        // A condition the user wrote is checked in the page only when it is one of the sentences the rehearsal reads.
        const verification =
          edit.verified_by === "person"
            ? { by: "person" as const, reason: "You chose to confirm this yourself at each run." }
            : edit.success_condition === undefined
              ? checkpoint.verification
              : parseSuccessCondition(edit.success_condition).kind === "by_hand"
                ? { by: "person" as const, reason: "You wrote this condition in your own words; a person confirms it." }
                : { by: "page" as const };
        return {
          ...checkpoint,
          ...(edit.goal === undefined ? {} : { goal: edit.goal }),
          ...(edit.success_condition === undefined ? {} : { success_condition: edit.success_condition, observable: true }),
          verification,
        };
      }),
    };
    const lint = lintCheckpoints(interpretation.checkpoints, literals);
    const folder = await writeDraft(proposalId, revision, sessionId, interpretation, trace, lint, improved);
    if (base !== undefined) await carryExamples(deps.memory, draftFolderOf(base), folder);
    if (refined !== undefined) await deps.memory.writeJson(`${folder}/${DraftFiles.refinement}`, RefinementOutcomeSchema.parse(refined.outcome));
    const interpretationId = randomUUID();
    await deps.memory.writeJson(
      MemoryPaths.interpretation(interpretationId),
      semanticOf(interpretationId, sessionId, proposalId, interpretation, revision > 1),
    );
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
      draft_skill_path: `${folder}/${DraftFiles.skill}`,
      draft_manifest_path: `${folder}/${DraftFiles.manifest}`,
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

  return { build, policyOf };
}
