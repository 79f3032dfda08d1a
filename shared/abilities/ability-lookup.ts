import type { AbilityAvailabilityEntry } from "./availability";
import type { AbilityLookupQuery, AbilityLookupResult, ScoredAbility } from "./lookup";

/** §0C.11C Minimum score for an ability to appear in lookup results. */
export const LOOKUP_MIN_SCORE = 0.15;

/** §0C.11C Most results a lookup returns. */
export const LOOKUP_MAX_RESULTS = 10;

// The weights are sums of decimal fractions, so a score that is 0.15 on paper can land a hair
// below it in binary floating point; the threshold tolerates that much and no more.
const SCORE_EPSILON = 1e-9;

/**
 * §0C.11C Scores one ability against a query. Transcribed line for line from the spec, including
 * its quirks, because the agent's lookup route and `POST /api/abilities/explain-match` must agree
 * with any other implementation of the same algorithm:
 * - only the first trigger phrase that matches (fully or by ≥2 shared tokens) counts;
 * - an empty query is contained in every trigger phrase, so it scores as a trigger match;
 * - title overlap counts query tokens that are substrings of the title, not whole words;
 * - a negative trigger returns score 0 regardless of anything else.
 */
export function scoreAbilityMatch(
  query: string,
  ability: AbilityAvailabilityEntry,
  projectId?: string,
): ScoredAbility {
  let score = 0;
  const reasons: string[] = [];
  const queryLower = query.toLowerCase();
  const queryTokens = queryLower.split(/\s+/);

  // 1. Trigger phrase matching (primary signal, weight 0.4)
  for (const trigger of ability.trigger_phrases) {
    const triggerLower = trigger.toLowerCase();
    if (queryLower.includes(triggerLower) || triggerLower.includes(queryLower)) {
      score += 0.4;
      reasons.push(`trigger_phrase_match: "${trigger}"`);
      break;
    }
    const triggerTokens = triggerLower.split(/\s+/);
    const overlap = queryTokens.filter((t) => triggerTokens.includes(t)).length;
    if (overlap >= 2) {
      score += 0.2;
      reasons.push(`trigger_partial_match: ${overlap} tokens`);
      break;
    }
  }

  // 2. Negative trigger exclusion (hard filter)
  for (const neg of ability.negative_triggers) {
    if (queryLower.includes(neg.toLowerCase())) {
      return {
        ability_id: ability.ability_id,
        score: 0,
        match_reasons: [`negative_trigger_match: "${neg}"`],
        install_lane: ability.install_lane,
        usable_now: ability.usable_now,
        reason_unusable: ability.reason_unusable,
      };
    }
  }

  // 3. Title and family matching (weight 0.2)
  const titleLower = ability.title.toLowerCase();
  const titleOverlap = queryTokens.filter((t) => titleLower.includes(t)).length;
  if (titleOverlap >= 2) {
    score += 0.2;
    reasons.push(`title_match: ${titleOverlap} tokens`);
  }

  // 4. Project scope matching (weight 0.15)
  if (projectId && ability.project_scopes.includes(projectId)) {
    score += 0.15;
    reasons.push(`project_scope_match: ${projectId}`);
  } else if (ability.project_scopes.length === 0 || ability.project_scopes.includes("*")) {
    score += 0.05;
    reasons.push("global_scope");
  }

  // 5. Install lane preference (weight 0.1)
  if (ability.install_lane === "shared_promoted") score += 0.1;
  else if (ability.install_lane === "approved_workspace") score += 0.07;
  else if (ability.install_lane === "experimental_private") score += 0.03;

  // 6. Checkpoint health bonus (weight 0.05)
  if (ability.checkpoint_health === "strong") score += 0.05;
  else if (ability.checkpoint_health === "weak") score -= 0.05;

  // 7. Usability gate: demote but don't exclude — the caller decides
  if (!ability.usable_now) {
    score *= 0.5;
    reasons.push(`usable_now=false: ${ability.reason_unusable}`);
  }

  return {
    ability_id: ability.ability_id,
    score: Math.min(1, Math.max(0, score)),
    match_reasons: reasons,
    install_lane: ability.install_lane,
    usable_now: ability.usable_now,
    reason_unusable: ability.reason_unusable,
  };
}

/**
 * Why an ability may not appear in a lookup at all, before scoring; `undefined` when it may.
 * Exported so explain-match can report it as a rejection reason.
 *
 * - Quarantined abilities never match (R11.2-31). A `checkpoint_health` of `quarantined` counts
 *   too: routing a quarantined ability is the failure this rule exists to prevent.
 * - `include_private_owned_by_user` adds `experimental_private` to the allowed lanes. The agent
 *   is local and single-user, so every private ability is the user's own; without this a freshly
 *   taught ability (installed privately) could not be found by the default query.
 */
export function lookupRejectionReason(
  query: AbilityLookupQuery,
  ability: AbilityAvailabilityEntry,
): string | undefined {
  if (ability.install_lane === "quarantined" || ability.checkpoint_health === "quarantined") {
    return "quarantined";
  }
  if (query.install_lanes_allowed.some((lane) => lane === ability.install_lane)) return undefined;
  if (ability.install_lane === "experimental_private" && query.include_private_owned_by_user) {
    return undefined;
  }
  return `install_lane_not_allowed: ${ability.install_lane}`;
}

// Plain code-unit order: `localeCompare` would make the tie order depend on the host's locale.
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * §0C.11C Eligible abilities scored, at or above `LOOKUP_MIN_SCORE`, best first, at most
 * `LOOKUP_MAX_RESULTS`, with their reasons. Equal scores are ordered by `ability_id` so the same
 * snapshot always gives the same answer.
 */
export function rankAbilities(
  query: AbilityLookupQuery,
  abilities: readonly AbilityAvailabilityEntry[],
): ScoredAbility[] {
  return abilities
    .filter((ability) => lookupRejectionReason(query, ability) === undefined)
    .map((ability) => scoreAbilityMatch(query.user_query, ability, query.project_id))
    .filter((scored) => scored.score >= LOOKUP_MIN_SCORE - SCORE_EPSILON)
    .sort((a, b) => b.score - a.score || compareCodeUnits(a.ability_id, b.ability_id))
    .slice(0, LOOKUP_MAX_RESULTS);
}

/**
 * §0C.11 / §0C.11C The `matches` of an `AbilityLookupResult`. The caller adds `created_at`, so
 * this stays free of clocks.
 */
export function lookupAbilities(
  query: AbilityLookupQuery,
  abilities: readonly AbilityAvailabilityEntry[],
): AbilityLookupResult["matches"] {
  return rankAbilities(query, abilities).map((scored) => ({
    ability_id: scored.ability_id,
    score: scored.score,
    install_lane: scored.install_lane,
    usable_now: scored.usable_now,
    ...(scored.reason_unusable === undefined ? {} : { reason_unusable: scored.reason_unusable }),
  }));
}

interface IndexedAbility {
  entry: AbilityAvailabilityEntry;
  triggers: string[];
  triggerTokens: Array<Set<string>>;
  negatives: string[];
  title: string;
  scopes: ReadonlySet<string>;
  global: boolean;
  /** Lane and checkpoint-health weights, which do not depend on the query. */
  fixed: number;
}

/**
 * The §0C.11C lookup over a snapshot, with everything that does not depend on the query
 * (lower-cased phrases, trigger tokens, lane and health weights) computed once per snapshot, so a
 * lookup over 10,000 abilities stays in the low milliseconds. Scores are exactly
 * `scoreAbilityMatch`'s (shared/abilities/ability-lookup.test.ts checks that on random data);
 * the returned matches carry its reasons.
 */
export function createLookupIndex(abilities: readonly AbilityAvailabilityEntry[]) {
  const indexed: IndexedAbility[] = abilities.map((entry) => {
    const triggers = entry.trigger_phrases.map((phrase) => phrase.toLowerCase());
    const lane = entry.install_lane === "shared_promoted" ? 0.1 : entry.install_lane === "approved_workspace" ? 0.07 : entry.install_lane === "experimental_private" ? 0.03 : 0;
    const health = entry.checkpoint_health === "strong" ? 0.05 : entry.checkpoint_health === "weak" ? -0.05 : 0;
    return {
      entry,
      triggers,
      triggerTokens: triggers.map((phrase) => new Set(phrase.split(/\s+/))),
      negatives: entry.negative_triggers.map((phrase) => phrase.toLowerCase()),
      title: entry.title.toLowerCase(),
      scopes: new Set(entry.project_scopes),
      global: entry.project_scopes.length === 0 || entry.project_scopes.includes("*"),
      fixed: lane + health,
    };
  });

  const score = (item: IndexedAbility, queryLower: string, queryTokens: readonly string[], projectId: string | undefined): number => {
    // Same order of additions as scoreAbilityMatch, so floating-point results are identical.
    let total = 0;
    for (let i = 0; i < item.triggers.length; i += 1) {
      const trigger = item.triggers[i] as string;
      if (queryLower.includes(trigger) || trigger.includes(queryLower)) {
        total += 0.4;
        break;
      }
      const tokens = item.triggerTokens[i] as Set<string>;
      let overlap = 0;
      for (const token of queryTokens) if (tokens.has(token)) overlap += 1;
      if (overlap >= 2) {
        total += 0.2;
        break;
      }
    }
    for (const negative of item.negatives) if (queryLower.includes(negative)) return 0;
    let titleOverlap = 0;
    for (const token of queryTokens) {
      if (item.title.includes(token)) {
        titleOverlap += 1;
        if (titleOverlap >= 2) break;
      }
    }
    if (titleOverlap >= 2) total += 0.2;
    if (projectId && item.scopes.has(projectId)) total += 0.15;
    else if (item.global) total += 0.05;
    const lane = item.entry.install_lane;
    if (lane === "shared_promoted") total += 0.1;
    else if (lane === "approved_workspace") total += 0.07;
    else if (lane === "experimental_private") total += 0.03;
    if (item.entry.checkpoint_health === "strong") total += 0.05;
    else if (item.entry.checkpoint_health === "weak") total -= 0.05;
    if (!item.entry.usable_now) total *= 0.5;
    return Math.min(1, Math.max(0, total));
  };

  return {
    /** Same answer as `lookupAbilities(query, abilities)`. */
    lookup(query: AbilityLookupQuery): AbilityLookupResult["matches"] {
      const queryLower = query.user_query.toLowerCase();
      const queryTokens = queryLower.split(/\s+/);
      const hits: Array<{ item: IndexedAbility; score: number }> = [];
      for (const item of indexed) {
        if (lookupRejectionReason(query, item.entry) !== undefined) continue;
        const value = score(item, queryLower, queryTokens, query.project_id);
        if (value >= LOOKUP_MIN_SCORE - SCORE_EPSILON) hits.push({ item, score: value });
      }
      hits.sort((a, b) => b.score - a.score || compareCodeUnits(a.item.entry.ability_id, b.item.entry.ability_id));
      return hits.slice(0, LOOKUP_MAX_RESULTS).map(({ item, score: value }) => ({
        ability_id: item.entry.ability_id,
        score: value,
        install_lane: item.entry.install_lane,
        usable_now: item.entry.usable_now,
        ...(item.entry.reason_unusable === undefined ? {} : { reason_unusable: item.entry.reason_unusable }),
      }));
    },
  };
}
