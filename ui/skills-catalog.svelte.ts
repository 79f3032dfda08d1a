import type { AbilityAvailabilityResponse } from "../shared/learning/route-contracts";
import { isRouteMissing } from "./agent-client";
import { describeFailure } from "./failure-text";
import { report, type LearnDeps } from "./learn-deps";

export type Ability = AbilityAvailabilityResponse["abilities"][number];
export type AbilityCommand = "activate" | "deactivate" | "quarantine" | "unquarantine" | "promote";
export type SkillsFilter = "all" | "native" | "imported" | "learned" | "bundle" | "disabled" | "quarantined";

/** §0B.9 the source filters of the Skills page. */
export const SKILLS_FILTERS: ReadonlyArray<{ id: SkillsFilter; label: string }> = [
  { id: "all", label: "All" },
  { id: "native", label: "Native" },
  { id: "imported", label: "Imported" },
  { id: "learned", label: "Learned" },
  { id: "bundle", label: "Bundle" },
  { id: "disabled", label: "Disabled" },
  { id: "quarantined", label: "Quarantined" },
];

/**
 * Which abilities a filter shows. The availability contract has no "bundle" source yet, so the
 * Bundle filter shows nothing until the agent reports bundled skills.
 */
export function filterAbilities(abilities: readonly Ability[], filter: SkillsFilter): Ability[] {
  const quarantined = (ability: Ability) => ability.install_lane === "quarantined" || ability.checkpoint_health === "quarantined";
  switch (filter) {
    case "all":
      return abilities.filter((ability) => !quarantined(ability));
    case "native":
      return abilities.filter((ability) => ability.source === "native");
    case "imported":
      return abilities.filter((ability) => ability.source === "imported");
    case "learned":
      return abilities.filter((ability) => ability.source === "learned" || ability.source === "promoted");
    case "bundle":
      return [];
    case "disabled":
      return abilities.filter((ability) => !ability.enabled);
    case "quarantined":
      return abilities.filter(quarantined);
    default:
      return [];
  }
}

const COMMAND_DONE: Record<AbilityCommand, string> = {
  activate: "Activated.",
  deactivate: "Deactivated: your assistant will not use it until you activate it again.",
  quarantine: "Quarantined: it will not be used until you release it.",
  unquarantine: "Released from quarantine.",
  promote: "Promoted: it is shared beyond your workspace.",
};

function assertNever(value: never): never {
  throw new Error(`Unexpected command ${String(value)}`);
}

/**
 * Abilities → Skills (§0B.9). Until the agent has `GET /api/abilities/availability` (issue #6)
 * the page says so; it never shows a made-up list.
 */
export class SkillsCatalogState {
  status = $state<"loading" | "ready" | "unavailable" | "error">("loading");
  abilities = $state.raw<Ability[]>([]);
  snapshotAsOf = $state<string | null>(null);
  filter = $state<SkillsFilter>("all");
  error = $state<string | null>(null);
  /** §0C.11B: the agent says the snapshot is behind its latest change; a fresh one is on its way. */
  stale = $state(false);
  busy = $state<string | null>(null);
  message = $state<string | null>(null);
  readonly #deps: LearnDeps;
  #recheck: ReturnType<typeof setTimeout> | undefined;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  get shown(): Ability[] {
    return filterAbilities(this.abilities, this.filter);
  }

  async load(): Promise<void> {
    if (this.status !== "ready") this.status = "loading";
    try {
      const answer = await this.#deps.client.abilityAvailability();
      this.abilities = answer.abilities;
      this.snapshotAsOf = answer.snapshot_as_of;
      this.stale = answer.stale;
      this.status = "ready";
      if (this.#recheck !== undefined) clearTimeout(this.#recheck);
      this.#recheck = answer.stale ? setTimeout(() => void this.load(), 2000) : undefined;
    } catch (error) {
      if (isRouteMissing(error)) {
        this.status = "unavailable";
        return;
      }
      report(this.#deps, error);
      this.error = describeFailure(error);
      this.status = "error";
    }
  }

  /** Activate, deactivate, quarantine (with a reason), unquarantine or promote to shared. */
  async command(abilityId: string, command: AbilityCommand, reason = ""): Promise<void> {
    if (this.busy !== null) return;
    this.busy = abilityId;
    this.message = null;
    this.error = null;
    const client = this.#deps.client;
    try {
      switch (command) {
        case "activate":
          await client.activateAbility(abilityId);
          break;
        case "deactivate":
          await client.deactivateAbility(abilityId);
          break;
        case "quarantine":
          await client.quarantineAbility(abilityId, reason.trim().slice(0, 240));
          break;
        case "unquarantine":
          await client.unquarantineAbility(abilityId);
          break;
        case "promote":
          await client.promoteAbility(abilityId);
          break;
        default:
          return assertNever(command);
      }
      this.message = COMMAND_DONE[command];
      await this.load();
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.busy = null;
    }
  }

  destroy(): void {
    if (this.#recheck !== undefined) clearTimeout(this.#recheck);
  }
}
