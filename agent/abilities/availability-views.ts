import type { AbilityAvailabilityEntry, AbilityAvailabilitySnapshot } from "../../shared/abilities/availability";
import { AbilityAvailabilitySnapshotSchema } from "../../shared/abilities/availability";
import type { SkillCatalogCurrent } from "../../shared/abilities/catalog";
import type { CapabilityBridgeCurrent } from "../../shared/capabilities/bridge-entry";
import type { Clock } from "../common/clock";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { availabilityEntryOf, checkpointHealthOf, type InstalledAbility } from "./ability-registry";
import { checkpointStatuses } from "./checkpoint-health";
import type { WorkspaceProjector } from "./workspace-projection";

export interface AvailabilityViewsDeps {
  memory: MemoryStore;
  projector: WorkspaceProjector;
  clock: Clock;
  /** §0C.21 the categories an ability is filed in, for the Skills catalog. */
  categoriesOf?: (abilityId: string) => string[];
  /** Skills the agent did not install (the assistant's own skill folders), given the names it did. */
  external?: (own: ReadonlySet<string>) => Promise<AbilityAvailabilityEntry[]>;
}

const nowOf = (deps: AvailabilityViewsDeps) => deps.clock.now().toISOString();

/** §0C.11A: the capability bridge, one entry per installed ability. */
function bridgeOf(deps: AvailabilityViewsDeps, abilities: readonly InstalledAbility[]): CapabilityBridgeCurrent {
  return {
    entries: abilities.map((ability) => ({
      capability_id: ability.capability_id,
      family: ability.family,
      title: ability.title,
      aliases: [],
      action_verbs: [],
      route_tier: 3,
      requires_supervision: true,
      dry_run_supported: false,
      routing_eligible: ability.enabled && !ability.quarantined,
      health_status: ability.quarantined ? "quarantined" : ability.enabled ? "healthy" : "disabled",
      origin_owner: "doc3",
      built_in_openclaw: false,
      metadata_ref: MemoryPaths.capabilityMetadata(ability.capability_id),
      updated_at: ability.updated_at,
      schema_version: 1,
    })),
    rebuilt_at: nowOf(deps),
    schema_version: 1,
  };
}

/** §0C.11B: the availability snapshot of the installed abilities, then the skills the agent did not install. */
async function snapshotOf(deps: AvailabilityViewsDeps, abilities: readonly InstalledAbility[]): Promise<AbilityAvailabilitySnapshot> {
  // Issue 32: from the checkpoint-health view, not the whole checkpoint receipts log.
  const statuses = await checkpointStatuses(deps.memory);
  const installed = await Promise.all(
    abilities.map(async (ability) =>
      availabilityEntryOf(ability, {
        filesPresent: await deps.projector.exists(ability.skill_name),
        checkpointHealth: checkpointHealthOf(statuses.get(ability.ability_id) ?? []),
      }),
    ),
  );
  const external = (await deps.external?.(new Set(abilities.map((ability) => ability.skill_name)))) ?? [];
  return {
    abilities: [...installed, ...external],
    snapshot_as_of: nowOf(deps),
    schema_version: 1,
  };
}

/** The Skills catalog of a snapshot: each entry with its categories and its install record's dates. */
function catalogOf(deps: AvailabilityViewsDeps, snapshot: AbilityAvailabilitySnapshot, abilities: readonly InstalledAbility[]): SkillCatalogCurrent {
  return {
    items: snapshot.abilities.map((entry) => {
      // A skill of the assistant's own folders has no install record: it is as old as this snapshot says.
      const ability = abilities.find((candidate) => candidate.ability_id === entry.ability_id);
      return {
        ability_id: entry.ability_id,
        title: entry.title,
        family: entry.family,
        source: entry.source,
        install_lane: entry.install_lane,
        enabled: entry.enabled,
        usable_now: entry.usable_now,
        ...(entry.reason_unusable === undefined ? {} : { reason_unusable: entry.reason_unusable }),
        tags: [],
        category_ids: deps.categoriesOf?.(entry.ability_id) ?? [],
        created_at: ability?.installed_at ?? snapshot.snapshot_as_of,
        updated_at: ability?.updated_at ?? snapshot.snapshot_as_of,
        schema_version: 1,
      };
    }),
    refreshed_at: snapshot.snapshot_as_of,
    schema_version: 1,
  };
}

/**
 * The views derived from the registry (§0C.11A–B): the capability bridge, the availability
 * snapshot and the Skills catalog. Every trigger rebuilds them from the installed abilities;
 * the last snapshot written is kept so lookups do not re-read the file.
 */
export function createAvailabilityViews(deps: AvailabilityViewsDeps) {
  /** The snapshot as last written, so lookups do not re-read the file; undefined means "read it". */
  let current: AbilityAvailabilitySnapshot | undefined;
  const readCurrent = () => deps.memory.readJson(MemoryPaths.availabilityCurrent, AbilityAvailabilitySnapshotSchema);

  return {
    bridgeOf: (abilities: readonly InstalledAbility[]) => bridgeOf(deps, abilities),
    /** Rebuilds and writes the snapshot and the catalog for these abilities (§0C.11B: every trigger rebuilds both from the registry). */
    async write(abilities: readonly InstalledAbility[]): Promise<AbilityAvailabilitySnapshot> {
      const snapshot = await snapshotOf(deps, abilities);
      current = undefined;
      await deps.memory.writeJson(MemoryPaths.availabilityCurrent, snapshot);
      await deps.memory.writeJson(MemoryPaths.catalogCurrent, catalogOf(deps, snapshot, abilities));
      current = snapshot;
      return snapshot;
    },
    /** The snapshot as last written or on disk; undefined when there is none yet. */
    async read(): Promise<AbilityAvailabilitySnapshot | undefined> {
      current ??= await readCurrent();
      return current;
    },
    /** Rewrites the catalog from the current snapshot (categories changed, nothing else did). */
    async refreshCatalog(abilities: readonly InstalledAbility[]): Promise<void> {
      const snapshot = current ?? (await readCurrent());
      if (snapshot !== undefined) await deps.memory.writeJson(MemoryPaths.catalogCurrent, catalogOf(deps, snapshot, abilities));
    },
    /** Forget the kept snapshot (files were put back behind our back by a compensation). */
    forget(): void {
      current = undefined;
    },
  };
}

export type AvailabilityViews = ReturnType<typeof createAvailabilityViews>;
