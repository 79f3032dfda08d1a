import { randomUUID } from "node:crypto";
import { SkillExampleSchema, type SkillExample, type UseAsExampleRequest, type UseAsExampleResponse } from "../../../shared/learning/proposals/skill-example";
import { SkillDeltaSchema } from "../../../shared/learning/proposals/skill-delta";
import { SkillBundleProposalSchema } from "../../../shared/skills/proposal";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import { lintCheckpoints } from "../compiler/checkpoints/checkpoint-lint";
import { parseSkillFrontmatter } from "../../../shared/skills/frontmatter";
import type { CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import { diffSkills, nextSkillVersion, readSkillOutline } from "../compiler/revision/skill-delta";
import { readPracticeBase, type PracticeBase, type PracticeBaseDeps } from "../practice/practice-base";
import type { ProposalService } from "../proposals/proposal-service";
import type { SessionService } from "../sessions/session-service";
import { withExample } from "../proposals/example-files";
import { writeInterpretationOf } from "../proposals/proposal-interpretation";
import { DraftFiles } from "../../../shared/skills/skill-folder";

export interface ExampleServiceDeps extends PracticeBaseDeps {
  sessions: SessionService;
  proposals: PracticeBaseDeps["proposals"] & Pick<ProposalService, "reviseFiles" | "adopt">;
  clock: Clock;
}

export interface ExampleService {
  /** `POST /api/learn/examples` (§0B.6 Use as Example). */
  use(request: UseAsExampleRequest): Promise<UseAsExampleResponse>;
}

/** Files of the installed skill that a new proposal does not carry over as they were. */
const NOT_CARRIED = new Set(["skill-delta.json", "refinement.json"]);

/** The installed skill an example goes into; "not found" says why it cannot take one. */
async function installedBase(deps: ExampleServiceDeps, abilityId: string): Promise<PracticeBase> {
  try {
    return await readPracticeBase(deps, { ability_id: abilityId });
  } catch (error) {
    if (error instanceof AppError && error.code === "ABILITY_NOT_FOUND") {
      throw new AppError(
        "ABILITY_NOT_FOUND",
        "That skill cannot take an example: it is not installed by this agent, or the files it was installed from are missing.",
      );
    }
    throw error;
  }
}

/** The next version's files (the installed ones, the example added) and what the version of each is. */
function nextRevisionOf(base: PracticeBase, example: SkillExample) {
  const outline = readSkillOutline(base.files[DraftFiles.skill] as string);
  const version = nextSkillVersion(outline.version);
  const carried = Object.fromEntries(Object.entries(base.files).filter(([name]) => !NOT_CARRIED.has(name)));
  return { outline, version, files: withExample(carried, example, version).files };
}

type NextRevision = ReturnType<typeof nextRevisionOf>;

/** Writes the draft revision's files and its skill delta (what changes against the installed version). */
async function writeDraftRevision(deps: ExampleServiceDeps, folder: string, base: PracticeBase, next: NextRevision, at: string): Promise<void> {
  const ability = base.ability!;
  for (const [name, text] of Object.entries(next.files)) await deps.memory.writeText(`${folder}/${name}`, text);
  await deps.memory.writeJson(
    `${folder}/${DraftFiles.skillDelta}`,
    SkillDeltaSchema.parse({
      target_ability_id: ability.ability_id,
      target_skill_name: ability.skill_name,
      installed_title: (next.outline.title || ability.title).slice(0, 200),
      ...(next.outline.version === undefined ? {} : { installed_version: next.outline.version }),
      proposed_version: next.version,
      ...diffSkills(next.outline, readSkillOutline(next.files[DraftFiles.skill] as string)),
      compared_at: at,
      schema_version: 1,
    }),
  );
}

/** The proposal of the skill's next version: installing it replaces the installed skill. */
function nextVersionProposal(
  ids: { proposalId: string; sessionId: string; interpretationId: string; folder: string },
  base: PracticeBase,
  next: NextRevision,
  at: string,
) {
  const ability = base.ability!;
  const frontmatter = parseSkillFrontmatter(next.files[DraftFiles.skill] as string);
  return SkillBundleProposalSchema.parse({
    proposal_id: ids.proposalId,
    learn_session_id: ids.sessionId,
    interpretation_id: ids.interpretationId,
    source_trace_ids: [ids.sessionId],
    source_mode: "user_guided",
    title: frontmatter?.title ?? (next.outline.title || ability.title),
    proposed_skill_slug: frontmatter?.name ?? ability.skill_name,
    trigger_phrases: frontmatter?.triggers ?? ability.trigger_phrases,
    negative_triggers: frontmatter?.negative_triggers ?? ability.negative_triggers,
    draft_skill_path: `${ids.folder}/${DraftFiles.skill}`,
    draft_manifest_path: `${ids.folder}/${DraftFiles.manifest}`,
    ...(next.files["workflow-graph.json"] === undefined ? {} : { draft_graph_ref: `${ids.folder}/workflow-graph.json` }),
    proposal_state: "draft",
    install_lane: "pending",
    ability_id: ability.ability_id,
    ambiguity_flags: [],
    created_at: at,
    updated_at: at,
    schema_version: 1,
  });
}

/**
 * Use as Example (§0B.6, issue #16): the example (a finished session or a run, read as Learn From
 * This reads it: labels, never a typed value) goes into a new revision with the requests it answers
 * as trigger tests. Everything that can be refused is checked before the first write.
 */
export function createExampleService(deps: ExampleServiceDeps): ExampleService {
  const now = () => deps.clock.now().toISOString();

  const exampleOf = async (request: UseAsExampleRequest): Promise<SkillExample> => {
    const seed = await deps.sessions.previewSeed(request.example);
    return SkillExampleSchema.parse({
      example_id: randomUUID(),
      source: request.example,
      title: seed.title,
      steps: seed.steps,
      pages: seed.pages,
      ...(seed.stopped_at === undefined ? {} : { outcome: seed.stopped_at.message }),
      trigger_tests: request.trigger_tests,
      added_at: now(),
      schema_version: 1,
    });
  };

  /** An installed skill: a new proposal for its next version, owned by an Improving Existing Skill session seeded with the example. */
  const toSkill = async (request: UseAsExampleRequest, abilityId: string, example: SkillExample): Promise<UseAsExampleResponse> => {
    const base = await installedBase(deps, abilityId);
    const next = nextRevisionOf(base, example);
    // The first write: refused (another session open) before anything else is written.
    const created = await deps.sessions.create({
      entry_mode: "improving_existing_skill",
      observation_mode: "none",
      build_policy: "build_then_review",
      execution_mode: "guided",
      target_kind: "existing_skill",
      target_skill_id: base.ability!.ability_id,
      target_app_whitelist: [],
      ask_before_build: false,
      allow_private_install: false,
      source_trace: request.example,
    });
    const sessionId = created.session.learn_session_id;
    try {
      await deps.sessions.start(sessionId, { adapters_requested: [] }, "system_inferred");
      await deps.sessions.stop(sessionId, "system_inferred");
      const proposalId = randomUUID();
      const folder = MemoryPaths.draftRevision(proposalId, 1);
      await writeDraftRevision(deps, folder, base, next, now());
      const lint = lintCheckpoints(base.storedCheckpoints as unknown as CheckpointPlan[]);
      const at = now();
      const markdown = next.files[DraftFiles.skill] as string;
      const interpretationId = await writeInterpretationOf(deps.memory, { sessionId, proposalId, markdown, checkpoints: base.plan.checkpoints, now: at });
      const proposal = nextVersionProposal({ proposalId, sessionId, interpretationId, folder }, base, next, at);
      await deps.proposals.adopt({ proposal, revision: 1, lint });
      await deps.sessions.advance(sessionId, ["reviewing", "drafting_proposal"], { proposal_id: proposalId }, [
        {
          receipt: "learn.proposal.created",
          event: "learn.proposal.created",
          payload: { proposal_id: proposalId, example: { source: request.example.kind, trigger_tests: example.trigger_tests.length } },
        },
      ]);
      return { proposal_id: proposalId, revision: 1, learn_session_id: sessionId, example, schema_version: 1 };
    } catch (error) {
      // The session made for the example holds nothing usable: it ends, and says why.
      await deps.sessions.cancel(sessionId, "system_inferred", "the example could not be added").catch(() => undefined);
      throw error;
    }
  };

  return {
    async use(request) {
      const example = await exampleOf(request);
      if ("ability_id" in request.target) return toSkill(request, request.target.ability_id, example);
      const { revision, sessionId } = await deps.proposals.reviseFiles(request.target.proposal_id, (files) => withExample(files, example).files, {
        example: { source: request.example.kind, trigger_tests: example.trigger_tests.length },
      });
      return { proposal_id: request.target.proposal_id, revision, learn_session_id: sessionId, example, schema_version: 1 };
    },
  };
}
