import type { AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import type { AbilityLookupQuery, AbilityLookupResult, ScoredAbility } from "../../shared/abilities/lookup-contract";

/** §0C.11C Minimum score for an ability to appear in lookup results. */
export const LOOKUP_MIN_SCORE = 0.15;

/** §0C.11C Most results a lookup returns. */
export const LOOKUP_MAX_RESULTS = 10;

// The weights are sums of decimal fractions, so a score that is 0.15 on paper can land a hair
// below it in binary floating point; the threshold tolerates that much and no more.
export const SCORE_EPSILON = 1e-9;

/** §0C.11C's running score and its reasons, added to step by step in the spec's order. */
type Tally = { score: number; reasons: string[] };

/** §0C.11C step 1, trigger phrase matching (primary signal, weight 0.4): only the first trigger that matches counts. */
function addTriggerMatch(tally: Tally, ability: AbilityAvailabilityEntry, queryLower: string, queryTokens: readonly string[]): void {
  for (const trigger of ability.trigger_phrases) {
    const triggerLower = trigger.toLowerCase();
    if (queryLower.includes(triggerLower) || triggerLower.includes(queryLower)) {
      tally.score += 0.4;
      tally.reasons.push(`trigger_phrase_match: "${trigger}"`);
      break;
    }
    const triggerTokens = triggerLower.split(/\s+/);
    const overlap = queryTokens.filter((t) => triggerTokens.includes(t)).length;
    if (overlap >= 2) {
      tally.score += 0.2;
      tally.reasons.push(`trigger_partial_match: ${overlap} tokens`);
      break;
    }
  }
}

/** §0C.11C steps 3–4: title and family matching (weight 0.2), project scope matching (weight 0.15). */
function addTitleAndScope(tally: Tally, ability: AbilityAvailabilityEntry, queryTokens: readonly string[], projectId: string | undefined): void {
  const titleLower = ability.title.toLowerCase();
  const titleOverlap = queryTokens.filter((t) => titleLower.includes(t)).length;
  if (titleOverlap >= 2) {
    tally.score += 0.2;
    tally.reasons.push(`title_match: ${titleOverlap} tokens`);
  }
  if (projectId && ability.project_scopes.includes(projectId)) {
    tally.score += 0.15;
    tally.reasons.push(`project_scope_match: ${projectId}`);
  } else if (ability.project_scopes.length === 0 || ability.project_scopes.includes("*")) {
    tally.score += 0.05;
    tally.reasons.push("global_scope");
  }
}

/** §0C.11C steps 5–7: install lane preference (weight 0.1), checkpoint health (0.05), the usability gate. */
function addLaneHealthAndUsability(tally: Tally, ability: AbilityAvailabilityEntry): void {
  if (ability.install_lane === "shared_promoted") tally.score += 0.1;
  else if (ability.install_lane === "approved_workspace") tally.score += 0.07;
  else if (ability.install_lane === "experimental_private") tally.score += 0.03;
  if (ability.checkpoint_health === "strong") tally.score += 0.05;
  else if (ability.checkpoint_health === "weak") tally.score -= 0.05;
  // Demote but don't exclude — the caller decides.
  if (!ability.usable_now) {
    tally.score *= 0.5;
    tally.reasons.push(`usable_now=false: ${ability.reason_unusable}`);
  }
}

function scored(ability: AbilityAvailabilityEntry, score: number, reasons: string[]): ScoredAbility {
  return {
    ability_id: ability.ability_id,
    score,
    match_reasons: reasons,
    install_lane: ability.install_lane,
    usable_now: ability.usable_now,
    reason_unusable: ability.reason_unusable,
  };
}

/**
 * §0C.11C Scores one ability against a query. Transcribed step by step from the spec, in its order
 * of additions, including its quirks, because the agent's lookup route and
 * `POST /api/abilities/explain-match` must agree with any other implementation of the same algorithm:
 * - only the first trigger phrase that matches (fully or by ≥2 shared tokens) counts;
 * - an empty query is contained in every trigger phrase, so it scores as a trigger match;
 * - title overlap counts query tokens that are substrings of the title, not whole words;
 * - a negative trigger returns score 0 regardless of anything else.
 */
export function scoreAbilityMatch(query: string, ability: AbilityAvailabilityEntry, projectId?: string): ScoredAbility {
  const tally: Tally = { score: 0, reasons: [] };
  const queryLower = query.toLowerCase();
  const queryTokens = queryLower.split(/\s+/);
  addTriggerMatch(tally, ability, queryLower, queryTokens);
  // 2. Negative trigger exclusion (hard filter)
  for (const neg of ability.negative_triggers) {
    if (queryLower.includes(neg.toLowerCase())) return scored(ability, 0, [`negative_trigger_match: "${neg}"`]);
  }
  addTitleAndScope(tally, ability, queryTokens, projectId);
  addLaneHealthAndUsability(tally, ability);
  return scored(ability, Math.min(1, Math.max(0, tally.score)), tally.reasons);
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
export function lookupRejectionReason(query: AbilityLookupQuery, ability: AbilityAvailabilityEntry): string | undefined {
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
export function rankAbilities(query: AbilityLookupQuery, abilities: readonly AbilityAvailabilityEntry[]): ScoredAbility[] {
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
export function lookupAbilities(query: AbilityLookupQuery, abilities: readonly AbilityAvailabilityEntry[]): AbilityLookupResult["matches"] {
  return rankAbilities(query, abilities).map((scored) => ({
    ability_id: scored.ability_id,
    score: scored.score,
    install_lane: scored.install_lane,
    usable_now: scored.usable_now,
    ...(scored.reason_unusable === undefined ? {} : { reason_unusable: scored.reason_unusable }),
  }));
}
