import { compareCodeUnits, LOOKUP_MIN_SCORE, SCORE_EPSILON } from "../../../agent/lookup/baseline-scorer";
import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";

// The §0C.11C weights as positions, every score they can make and each ability's sort key: what the
// baseline index (baseline-index.ts) sorts and bounds by. The weights of §0C.11C steps 1 and 3–6 by
// position. Quarantined abilities are never returned, so only the three searchable lanes have a position.
export const SEARCHABLE_LANES = ["experimental_private", "approved_workspace", "shared_promoted"] as const;
const LANE_WEIGHTS = [0.03, 0.07, 0.1] as const;
const HEALTH_WEIGHTS = [0, 0.05, -0.05] as const; // other, strong, weak
const TRIGGER_WEIGHTS = [0, 0.2, 0.4] as const; // none, ≥ 2 shared tokens, phrase contained
const TITLE_WEIGHTS = [0, 0.2] as const; // fewer than 2 tokens, ≥ 2 tokens
const SCOPE_WEIGHTS = [0, 0.05, 0.15] as const; // scoped elsewhere, global, the query's project

/**
 * §0C.11C steps 1 and 3–7 in the scorer's order of additions, so the result is bit for bit the
 * scorer's. Floating-point addition is monotone: larger text weights never give a smaller total,
 * which lets the index use the weights an ability might have as an upper bound on its score.
 */
function weigh(trigger: number, title: number, scope: number, lane: number, health: number, usable: boolean): number {
  let total = 0;
  total += trigger;
  total += title;
  total += scope;
  total += lane;
  total += health;
  if (!usable) total *= 0.5;
  return Math.min(1, Math.max(0, total));
}

/** Position of a weight combination in `SCORES.position`; `weightClass` is (lane, health, usable). */
export function scoreSlot(weightClass: number, trigger: number, title: number, scope: number): number {
  return ((weightClass * 3 + trigger) * 2 + title) * 3 + scope;
}

/**
 * Every score a searchable ability can get, best first (`values`), and for each weight
 * combination the position of its score (`position`). Ordering by (position, rank) is ordering by
 * (score descending, ability_id), with one integer per ability (`key`).
 */
export const SCORES = (() => {
  const slots: number[] = [];
  for (const lane of LANE_WEIGHTS)
    for (const health of HEALTH_WEIGHTS)
      for (const usable of [false, true]) {
        for (const trigger of TRIGGER_WEIGHTS)
          for (const title of TITLE_WEIGHTS)
            for (const scope of SCOPE_WEIGHTS) {
              slots.push(weigh(trigger, title, scope, lane, health, usable));
            }
      }
  const values = [...new Set(slots)].sort((a, b) => b - a);
  return {
    values,
    position: Int32Array.from(slots, (value) => values.indexOf(value)),
    /** Positions below this one reach `LOOKUP_MIN_SCORE`. */
    passing: values.filter((value) => value >= LOOKUP_MIN_SCORE - SCORE_EPSILON).length,
  };
})();

// An ability's key is position × RANK_SPAN + rank, smaller first: exact in a double for any
// snapshot an array can hold.
export const RANK_SPAN = 2 ** 31;

export interface IndexedAbility {
  entry: AbilityAvailabilityEntry;
  /** Lower-cased trigger phrases and title; the rest is read from `entry` for the few abilities scored. */
  triggers: string[];
  title: string;
  /** Index into SCOPE_WEIGHTS when the query's project is not one of the ability's scopes. */
  scope: number;
  /** Position in SEARCHABLE_LANES; -1 when no lookup may return the ability (quarantined). */
  lane: number;
  /** (lane, checkpoint health, usable_now) as one number, for `scoreSlot`; 0 when quarantined. */
  weightClass: number;
}

/** The exact §0C.11C score of a searchable ability: `scoreAbilityMatch(...).score`, bit for bit. */
export function scoreIndexed(item: IndexedAbility, queryLower: string, queryTokens: readonly string[], projectId: string | undefined): number {
  let trigger = 0;
  for (let i = 0; i < item.triggers.length; i += 1) {
    const phrase = item.triggers[i] as string;
    if (queryLower.includes(phrase) || phrase.includes(queryLower)) {
      trigger = 0.4;
      break;
    }
    const tokens = phrase.split(/\s+/);
    let overlap = 0;
    for (const token of queryTokens) if (tokens.includes(token)) overlap += 1;
    if (overlap >= 2) {
      trigger = 0.2;
      break;
    }
  }
  for (const negative of item.entry.negative_triggers) if (queryLower.includes(negative.toLowerCase())) return 0;
  let titleOverlap = 0;
  for (const token of queryTokens) {
    if (item.title.includes(token)) {
      titleOverlap += 1;
      if (titleOverlap >= 2) break;
    }
  }
  const scope = projectId && item.entry.project_scopes.includes(projectId) ? 2 : item.scope;
  const { entry } = item;
  return weigh(
    trigger,
    titleOverlap >= 2 ? 0.2 : 0,
    SCOPE_WEIGHTS[scope] as number,
    LANE_WEIGHTS[item.lane] as number,
    HEALTH_WEIGHTS[entry.checkpoint_health === "strong" ? 1 : entry.checkpoint_health === "weak" ? 2 : 0],
    entry.usable_now,
  );
}

function indexedAbility(entry: AbilityAvailabilityEntry): IndexedAbility {
  const triggers = entry.trigger_phrases.map((phrase) => phrase.toLowerCase());
  const quarantined = entry.install_lane === "quarantined" || entry.checkpoint_health === "quarantined";
  const lane = quarantined ? -1 : SEARCHABLE_LANES.findIndex((searchable) => searchable === entry.install_lane);
  const health = entry.checkpoint_health === "strong" ? 1 : entry.checkpoint_health === "weak" ? 2 : 0;
  return {
    entry,
    triggers,
    title: entry.title.toLowerCase(),
    scope: entry.project_scopes.length === 0 || entry.project_scopes.includes("*") ? 1 : 0,
    lane,
    weightClass: quarantined ? 0 : (lane * 3 + health) * 2 + (entry.usable_now ? 1 : 0),
  };
}

/** The snapshot's abilities, ranked, with what bounds and sort keys read in typed arrays (a lookup may touch thousands). */
export interface RankedAbilities {
  items: IndexedAbility[];
  /** Rank: position in (ability_id, snapshot position) order, the tie order of rankAbilities' stable sort. */
  byRank: number[];
  rankOf: Int32Array;
  laneOf: Int8Array;
  scopeOf: Uint8Array;
  weightClassOf: Uint8Array;
  passingKeys: number;
}

export function rankedAbilities(abilities: readonly AbilityAvailabilityEntry[]): RankedAbilities {
  const byRank = abilities.map((_, position) => position);
  byRank.sort(
    (a, b) => compareCodeUnits((abilities[a] as AbilityAvailabilityEntry).ability_id, (abilities[b] as AbilityAvailabilityEntry).ability_id) || a - b,
  );
  const rankOf = new Int32Array(abilities.length);
  byRank.forEach((position, rank) => {
    rankOf[position] = rank;
  });
  const items = abilities.map(indexedAbility);
  return {
    items,
    byRank,
    rankOf,
    laneOf: Int8Array.from(items, (item) => item.lane),
    scopeOf: Uint8Array.from(items, (item) => item.scope),
    weightClassOf: Uint8Array.from(items, (item) => item.weightClass),
    passingKeys: SCORES.passing * RANK_SPAN,
  };
}

export function keyOf(ranked: RankedAbilities, index: number, trigger: number, title: number, scope: number): number {
  return (SCORES.position[scoreSlot(ranked.weightClassOf[index] as number, trigger, title, scope)] as number) * RANK_SPAN + (ranked.rankOf[index] as number);
}
