import { z } from "zod";
import { ControlSurfaceSchema } from "../../shared/capabilities/control-surface";
import { AbilityAvailabilityEntrySchema, LastValidationResultSchema, type AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import { InstallLaneSchema } from "../../shared/skills/proposal";
import type { MemoryStore } from "../memory/memory-store";
import { checkedBy, createLogViewKeeper, openLogView, type LogViewSpec } from "../memory/log-view";
import { MemoryPaths } from "../memory/memory-paths";

/**
 * An installed ability as the agent keeps it (one line of `abilities/registry.jsonl`, last line
 * per id wins): where its files are, its lane, and whether the user switched it off or
 * quarantined it. The availability snapshot and the Skills catalog are derived from these.
 */
export const InstalledAbilitySchema = z.object({
  ability_id: z.string().max(160),
  skill_name: z.string().max(64),
  capability_id: z.string().max(160),
  title: z.string().max(200),
  family: z.string().max(80),
  install_lane: InstallLaneSchema.exclude(["pending", "quarantined"]),
  enabled: z.boolean(),
  quarantined: z.boolean(),
  quarantine_reason: z.string().max(240).optional(),
  trigger_phrases: z.array(z.string().max(120)),
  negative_triggers: z.array(z.string().max(120)),
  project_scopes: z.array(z.string().max(160)),
  preferred_control_surfaces: z.array(ControlSurfaceSchema),
  support_pack_refs: z.array(z.string().max(240)),
  /** Learned here (from a proposal) or imported from a bundle (§0C.20); older lines are learned. */
  source: z.enum(["learned", "imported"]).default("learned"),
  proposal_id: z.string().uuid().optional(),
  import_id: z.string().uuid().optional(),
  learn_session_id: z.string().uuid().optional(),
  /** The validation run of exactly the installed content (§0C.10), when there was one. */
  last_validated_at: z.string().datetime().optional(),
  last_validation_result: LastValidationResultSchema.optional(),
  last_validation_run_id: z.string().uuid().optional(),
  /** The installed SKILL.md's `version`; older lines have none. */
  skill_version: z.string().max(32).optional(),
  installed_at: z.string().datetime(),
  updated_at: z.string().datetime(),
});
export type InstalledAbility = z.infer<typeof InstalledAbilitySchema>;

/** A line saying the ability was deleted (issue #30): from here on the registry does not name it. */
const RemovedAbilitySchema = z.object({ ability_id: z.string().max(160), removed_at: z.string().datetime() });
const RegistryLineSchema = z.union([InstalledAbilitySchema, RemovedAbilitySchema]);

export interface AbilityRegistry {
  all(): InstalledAbility[];
  get(abilityId: string): InstalledAbility | undefined;
  bySkillName(skillName: string): InstalledAbility | undefined;
  put(ability: InstalledAbility): Promise<void>;
  /** The commit point of a delete: appended, then the ability is no longer installed. */
  remove(abilityId: string, at: string): Promise<void>;
  /** At the agent's stop: the registry's view brought up to date (issue 32: the next start then reads no ability). */
  settleView(): Promise<void>;
}

/**
 * Issue 32: the registry read through its current view (`registry_current.json`, agent/memory/log-view.ts):
 * each installed ability's last line, up to a byte of the log, its skill name kept in the view's index.
 * Every line the view folds is checked in full as it is read (a line that does not match stops the
 * agent, as it always did); an ability the view file kept is parsed and checked the first time it is
 * read (MEMORY_RECORD_CORRUPT then, not at start-up).
 */
const registryLogView: LogViewSpec<z.infer<typeof RegistryLineSchema>> = {
  log: MemoryPaths.abilityRegistry,
  view: MemoryPaths.abilityRegistryCurrent,
  line: RegistryLineSchema,
  change: (line) => ("removed_at" in line ? { id: line.ability_id, put: false } : { id: line.ability_id, put: true, record: line }),
  marks: (_previous, record) => skillNameOf(record),
};

/** An ability's skill name, the one mark the registry's view keeps (a line the fold put is an installed ability). */
function skillNameOf(record: unknown): string[] {
  const name = typeof record === "object" && record !== null && "skill_name" in record ? record.skill_name : undefined;
  return typeof name === "string" ? [name] : [];
}

/** An installed ability's last version, parsed in full; one that does not match is MEMORY_RECORD_CORRUPT. */
const checkAbility = checkedBy(InstalledAbilitySchema, MemoryPaths.abilityRegistry, "ability");

/**
 * The registry as its view keeps it. Start-up needs no ability: a current view's index is read at
 * the first call that needs the abilities (`openLogView`).
 */
export async function createAbilityRegistry(memory: MemoryStore): Promise<AbilityRegistry> {
  // Each ability's skill name, from the view's index: found by name without parsing every ability.
  const read = await openLogView(memory, registryLogView, checkAbility);
  const view = createLogViewKeeper(memory, registryLogView, checkAbility);
  return {
    all: () => [...read().records.values()],
    get: (abilityId) => read().records.get(abilityId),
    bySkillName(skillName) {
      const { records: abilities, marks: skillNames } = read();
      for (const [abilityId, [name]] of skillNames) if (name === skillName) return abilities.get(abilityId);
      return undefined;
    },
    async put(ability) {
      const { records: abilities, marks: skillNames } = read();
      await memory.append(MemoryPaths.abilityRegistry, ability);
      abilities.set(ability.ability_id, ability);
      skillNames.set(ability.ability_id, [ability.skill_name]);
      await view.noteAppend();
    },
    async remove(abilityId, at) {
      const { records: abilities, marks: skillNames } = read();
      await memory.append(MemoryPaths.abilityRegistry, RemovedAbilitySchema.parse({ ability_id: abilityId, removed_at: at }));
      abilities.delete(abilityId);
      skillNames.delete(abilityId);
      await view.noteAppend();
    },
    settleView: () => view.settle(),
  };
}

/** §0C.11A: one availability entry; an ability is usable when it is on, not quarantined, and its files exist. */
export function availabilityEntryOf(
  ability: InstalledAbility,
  facts: { filesPresent: boolean; checkpointHealth?: AbilityAvailabilityEntry["checkpoint_health"] },
): AbilityAvailabilityEntry {
  const reason = ability.quarantined
    ? `quarantined${ability.quarantine_reason ? `: ${ability.quarantine_reason}` : ""}`
    : !ability.enabled
      ? "deactivated by the user"
      : !facts.filesPresent
        ? "skill files are missing from the workspace"
        : undefined;
  return AbilityAvailabilityEntrySchema.parse({
    ability_id: ability.ability_id,
    title: ability.title,
    family: ability.family,
    source: ability.source,
    skill_slug: ability.skill_name,
    primary_capability_id: ability.capability_id,
    install_lane: ability.quarantined ? "quarantined" : ability.install_lane,
    enabled: ability.enabled,
    usable_now: reason === undefined,
    ...(reason === undefined ? {} : { reason_unusable: reason.slice(0, 240) }),
    trigger_phrases: ability.trigger_phrases,
    negative_triggers: ability.negative_triggers,
    aliases: [],
    project_scopes: ability.project_scopes,
    preferred_control_surfaces: ability.preferred_control_surfaces,
    support_pack_refs: ability.support_pack_refs,
    checkpoint_health: ability.quarantined ? "quarantined" : (facts.checkpointHealth ?? "no_data"),
    ...(ability.last_validated_at === undefined ? {} : { last_validated_at: ability.last_validated_at }),
    ...(ability.last_validation_result === undefined ? {} : { last_validation_result: ability.last_validation_result }),
    ...(ability.skill_version === undefined ? {} : { skill_version: ability.skill_version }),
    schema_version: 1,
  });
}

/**
 * §0C.11A `checkpoint_health` from an ability's latest checkpoint receipts (issue #6): no receipts
 * → no_data; ≥ 30 % failed among the last ten → weak; three or more reached and none failed →
 * strong; anything else → moderate.
 */
export function checkpointHealthOf(statuses: ReadonlyArray<"reached" | "skipped" | "failed">): NonNullable<AbilityAvailabilityEntry["checkpoint_health"]> {
  const recent = statuses.slice(-10);
  if (recent.length === 0) return "no_data";
  const failed = recent.filter((status) => status === "failed").length;
  if (failed / recent.length >= 0.3) return "weak";
  if (failed === 0 && recent.filter((status) => status === "reached").length >= 3) return "strong";
  return "moderate";
}
