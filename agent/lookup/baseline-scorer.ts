import type { AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import type { AbilityLookupQuery, AbilityLookupResult, ScoredAbility } from "../../shared/abilities/lookup-contract";

/** §0C.11C Minimum score for an ability to appear in lookup results. */
export const LOOKUP_MIN_SCORE = 0.15;

/** §0C.11C Most results a lookup returns. */
export const LOOKUP_MAX_RESULTS = 10;

// The weights are sums of decimal fractions, so a score that is 0.15 on paper can land a hair
// below it in binary floating point; the threshold tolerates that much and no more.
export const SCORE_EPSILON = 1e-9;

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
  if (searchesLane(query, ability.install_lane)) return undefined;
  return `install_lane_not_allowed: ${ability.install_lane}`;
}

/** Whether a query searches a lane: one it allows, or the private lane when it includes the user's own. */
export function searchesLane(query: AbilityLookupQuery, lane: AbilityAvailabilityEntry["install_lane"]): boolean {
  if (query.install_lanes_allowed.some((allowed) => allowed === lane)) return true;
  return lane === "experimental_private" && query.include_private_owned_by_user;
}

// Plain code-unit order: `localeCompare` would make the tie order depend on the host's locale.
export function compareCodeUnits(a: string, b: string): number {
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
