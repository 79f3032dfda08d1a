import type { AbilityAvailabilityResponse } from "../../shared/learning/route-contracts";
import { isRouteMissing } from "../agent-link/transport/agent-failure";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import { assertNever } from "../../shared/common/assert-never";

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

/** A skill shipped with the assistant: `native` by source (§0C.11A has no bundle source), `bundled` by family. */
export const isBundled = (ability: Ability) => ability.source === "native" && ability.family === "bundled";

/** Which abilities a filter shows (§0B.9). Native and bundled skills are the assistant's own, read-only. */
export function filterAbilities(abilities: readonly Ability[], filter: SkillsFilter): Ability[] {
  const quarantined = (ability: Ability) => ability.install_lane === "quarantined" || ability.checkpoint_health === "quarantined";
  switch (filter) {
    case "all":
      return abilities.filter((ability) => !quarantined(ability));
    case "native":
      return abilities.filter((ability) => ability.source === "native" && !isBundled(ability));
    case "imported":
      return abilities.filter((ability) => ability.source === "imported");
    case "learned":
      return abilities.filter((ability) => ability.source === "learned" || ability.source === "promoted");
    case "bundle":
      return abilities.filter(isBundled);
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
  /** Abilities that appeared while the page was open (R11.2-35): marked as new. */
  arrived = $state.raw<ReadonlySet<string>>(new Set());
  readonly #deps: LearnDeps;
  #recheck: ReturnType<typeof setTimeout> | undefined;
  #watch: ReturnType<typeof setInterval> | undefined;
  #etag: string | null = null;
  #seen: Set<string> | undefined;
  #polling = false;
  /** Numbers the availability requests, so only the latest one's answer is shown. */
  #requests = 0;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  /** What the user typed in the search box. */
  search = $state("");
  /**
   * Issue #15: the abilities the agent's lookup found for `search`, best first (the wording
   * matcher, as the assistant finds them); null while there is no search.
   */
  found = $state.raw<string[] | null>(null);
  /**
   * Issue #34: the abilities lookup offers below its gate for `search` ("Maybe you meant"), best
   * first, each with why it came up; empty while there is no search.
   */
  maybe = $state.raw<ReadonlyArray<{ ability_id: string; reason: string }>>([]);
  #searches = 0;
  #searchTimer: ReturnType<typeof setTimeout> | undefined;

  get shown(): Ability[] {
    const filtered = filterAbilities(this.abilities, this.filter);
    if (this.found === null) return filtered;
    const rank = new Map(this.found.map((id, index) => [id, index]));
    return filtered.filter((ability) => rank.has(ability.ability_id)).sort((a, b) => (rank.get(a.ability_id) ?? 0) - (rank.get(b.ability_id) ?? 0));
  }

  /** The skills of `maybe` that the filter shows, best first, none of `shown`. */
  get maybeShown(): Ability[] {
    if (this.found === null) return [];
    const shown = new Set(this.found);
    const byId = new Map(filterAbilities(this.abilities, this.filter).map((ability) => [ability.ability_id, ability]));
    return this.maybe.flatMap(({ ability_id }) => (shown.has(ability_id) ? [] : [byId.get(ability_id)].filter((ability) => ability !== undefined)));
  }

  /** Why lookup offered one skill of `maybe` (its closest phrase, the words it shares). */
  maybeReason(abilityId: string): string | undefined {
    return this.maybe.find((item) => item.ability_id === abilityId)?.reason;
  }

  /** Searches as the user types, once they pause: an empty box shows every skill again. */
  searchSoon(text: string, delayMs = 250): void {
    this.search = text;
    if (this.#searchTimer !== undefined) clearTimeout(this.#searchTimer);
    this.#searchTimer = setTimeout(() => void this.runSearch(), delayMs);
  }

  async runSearch(): Promise<void> {
    const request = ++this.#searches;
    const text = this.search.trim();
    if (text.length === 0) {
      this.found = null;
      this.maybe = [];
      return;
    }
    try {
      const answer = await this.#deps.client.lookupAbilities(text);
      if (request !== this.#searches) return;
      this.found = answer.matches.map((match) => match.ability_id);
      this.maybe = answer.also_consider.map(({ ability_id, reason }) => ({ ability_id, reason }));
    } catch (error) {
      report(this.#deps, error);
      if (request === this.#searches) this.error = describeFailure(error);
    }
  }

  async load(): Promise<void> {
    if (this.status !== "ready") this.status = "loading";
    const request = ++this.#requests;
    try {
      const answer = await this.#deps.client.abilityAvailability();
      if (request === this.#requests) this.#apply(answer);
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

  /**
   * Keeps the page current while it is open (R11.2-35): every `intervalMs` it asks the agent
   * whether the availability snapshot changed (a 304 when it did not), so an ability installed,
   * promoted or quarantined by another client shows up without the user doing anything. Skipped
   * while the panel is hidden.
   */
  watch(intervalMs = 3000): void {
    this.unwatch();
    this.#watch = setInterval(() => void this.#poll(), intervalMs);
  }

  unwatch(): void {
    if (this.#watch !== undefined) clearInterval(this.#watch);
    this.#watch = undefined;
  }

  async #poll(): Promise<void> {
    if (this.#polling || this.status !== "ready" || this.#etag === null) return;
    if (typeof document !== "undefined" && document.visibilityState === "hidden") return;
    this.#polling = true;
    try {
      const request = ++this.#requests;
      const answer = await this.#deps.client.abilityAvailabilityIfChanged(this.#etag);
      // An answer overtaken by a later request (a reload after a command) is older than what it would replace.
      if (answer.changed && request === this.#requests) this.#apply(answer);
    } catch (error) {
      // The status bar says the agent is unreachable; the list stays as it was, not emptied.
      report(this.#deps, error);
    } finally {
      this.#polling = false;
    }
  }

  #apply(answer: { abilities: Ability[]; snapshot_as_of: string; stale: boolean; etag: string | null }): void {
    if (this.#seen !== undefined) {
      const seen = this.#seen;
      const fresh = answer.abilities.filter((ability) => !seen.has(ability.ability_id)).map((ability) => ability.ability_id);
      if (fresh.length > 0) this.arrived = new Set([...this.arrived, ...fresh]);
    }
    this.#seen = new Set([...(this.#seen ?? []), ...answer.abilities.map((ability) => ability.ability_id)]);
    this.abilities = answer.abilities;
    this.snapshotAsOf = answer.snapshot_as_of;
    this.stale = answer.stale;
    this.#etag = answer.etag;
    this.status = "ready";
    if (this.#recheck !== undefined) clearTimeout(this.#recheck);
    this.#recheck = answer.stale ? setTimeout(() => void this.load(), 2000) : undefined;
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
    this.unwatch();
    if (this.#searchTimer !== undefined) clearTimeout(this.#searchTimer);
    if (this.#recheck !== undefined) clearTimeout(this.#recheck);
  }
}
