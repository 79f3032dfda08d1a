import { WorkflowBoundarySchema } from "../../../shared/learning/sessions/boundary";
import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-actions/observed-action";
import { InstalledFiles } from "../../../shared/skills/skill-folder";
import { createAbilityRegistry, type InstalledAbility } from "../../abilities/ability-registry";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { applyDesktopSteps } from "../compiler/desktop-steps";
import { interpretTrace, type AnswersByField, type ImprovedSkillBase } from "../compiler/interpret";
import { nextSkillVersion, readSkillOutline } from "../compiler/revision/skill-delta";
import { normalizeTrace } from "../compiler/normalize-trace";
import type { RefinerConfig } from "../refiner/model-refiner";
import { readExclusions } from "../sessions/observation-exclusions";
import { readSnapshots } from "../sessions/session-seed-read";
import type { SessionService } from "../sessions/session-service";

/** What building a draft needs. */
export interface DraftBuilderDeps {
  memory: MemoryStore;
  sessions: SessionService;
  clock: Clock;
  refiner?: RefinerConfig | undefined;
}

/** §0C.4: the installed skill a session improves, as read (read-only) from ELNOR_MEMORY. */
export interface ImprovedSkill {
  ability: InstalledAbility;
  markdown: string;
}

const EventsFileSchema = ObservedActionEventWithDetailSchema;

/**
 * §0C.4 Improving Existing Skill: the installed skill the session names, read from the ability
 * registry and the skill's canonical SKILL.md. Nothing here writes: the installed skill is never
 * edited in place; installing the proposal replaces it through the install saga.
 */
async function improvedSkillOf(deps: DraftBuilderDeps, session: LearnSession): Promise<ImprovedSkill | undefined> {
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
    throw new AppError("ABILITY_NOT_FOUND", "The skill this session improves has no SKILL.md in memory any more; reinstall it or learn a new ability instead.");
  }
  return { ability, markdown };
}

function baseOf(improved: ImprovedSkill): ImprovedSkillBase {
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
}

/**
 * Compiles the session's demonstration with the answers known so far. The interpretation it
 * returns is the deterministic result (DESIGN §6): the one place a refiner would start from;
 * edits, lint and emit follow in `build`.
 */
export async function compile(deps: DraftBuilderDeps, sessionId: string, answers: AnswersByField) {
  const session = deps.sessions.get(sessionId);
  const improved = await improvedSkillOf(deps, session);
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
  const snapshots = await readSnapshots(deps.memory, sessionId, events);
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
}
