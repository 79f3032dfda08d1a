import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import { FULL_TEXT } from "../../../shared/abilities/lookup-contract";

/**
 * The wording matcher's numbers (issue #15): how well an ability's wording covers a request, whatever
 * words the request uses. `wording-index.ts` answers lookups over a whole snapshot with them,
 * `wording-matcher.ts` explains them for one ability (`explain-match`), `wording-gates.ts` holds
 * what is never matched.
 *
 * - Text: each word of the request that carries meaning is looked for in the ability's fields —
 *   as written, by base form, or through a related word from the lexicon (synonym, derivation,
 *   broader or narrower word), scaled by how close the relation is and by the field it is found in
 *   (title and triggers count fully, trigger tests and "when to use" lines a little less, the
 *   description less). `coverage` is the share of the request's meaning found, each word weighed
 *   by how much it says (rare words more than "get" or "make"); `title_share` is the share of the
 *   ability's title the request covers, which prefers "Export invoices" over "Export invoices and
 *   email them" for "export the invoices".
 *   Each word of the ability counts for one word of the request (the one it says most for), and
 *   each word of its title once: "timer" and "minutes" both lead to "time", but "time" does not
 *   cover the request twice.
 * - A match needs `text ≥ TEXT_MIN`: calibrated so a request about something else returns nothing.
 * - `rank_text` is `text` with each ability word weighed by its rarity in the snapshot (`Rarity`):
 *   found as a word most abilities hold ("make", "time"), a request word tells them apart less.
 * - `score` (what lookup returns, and ranks by) = 0.6 × min(1, rank_text / 0.6), plus §0C.11C's
 *   scope, lane and checkpoint-health weights, halved when the ability is not usable now, in [0, 1].
 *   0.6 is what §0C.11C gives its text signals (trigger 0.4 + title 0.2), reached from a text score
 *   of `FULL_TEXT`, so scope and lane weigh as they do there.
 * - Never matched: quarantined abilities, disabled ones, lanes the query does not search, and
 *   any request containing a negative trigger (as written, or all its words by base form).
 */

/** The wording of one ability, as the matcher reads it: its availability entry and its SKILL.md. */
export interface LookupDocument {
  entry: AbilityAvailabilityEntry;
  /** The SKILL.md description (the goal summary). */
  description?: string | undefined;
  /** The "When to use" lines of SKILL.md. */
  when_to_use?: readonly string[] | undefined;
  /** Requests the skill was validated with (positive trigger tests and paraphrases). */
  trigger_tests?: readonly string[] | undefined;
}

export const FIELDS = ["title", "triggers", "trigger_tests", "when_to_use", "description"] as const;
export type Field = (typeof FIELDS)[number];
export const FIELD_WEIGHTS: Record<Field, number> = { title: 1, triggers: 1, trigger_tests: 0.9, when_to_use: 0.9, description: 0.8 };

export const COVERAGE_SHARE = 0.8;
/**
 * A request says at least this much: one rare word weighs 1, a common or time word about 0.35.
 * "what day of the week is it" is two weak words; found in full, it still covers little.
 */
export const MIN_REQUEST_WEIGHT = 1.2;
export const TEXT_WEIGHT = 0.6;

/** The texts of each field of a document. */
export function fieldTexts(document: LookupDocument): Record<Field, readonly string[]> {
  return {
    title: [document.entry.title],
    triggers: [...document.entry.trigger_phrases, ...document.entry.aliases],
    trigger_tests: document.trigger_tests ?? [],
    when_to_use: document.when_to_use ?? [],
    description: document.description === undefined ? [] : [document.description],
  };
}

/**
 * What finding a word at a closeness counts for: squared, so that one close word (a synonym, 0.72)
 * counts for more than several loosely related ones (a broader word, 0.36): requests about
 * something else meet an ability's words only loosely, and must not add up to a match.
 */
export function evidence(value: number): number {
  return value * value;
}

/** `text` from the per-word results: Σ weight × found / Σ weight, and the title's share. */
export function textScore(totalWeight: number, found: number, titleFound: number, titleTerms: number): number {
  if (totalWeight <= 0) return 0;
  const coverage = found / Math.max(totalWeight, MIN_REQUEST_WEIGHT);
  const titleShare = titleTerms === 0 ? 0 : Math.min(1, titleFound / titleTerms);
  return COVERAGE_SHARE * coverage + (1 - COVERAGE_SHARE) * titleShare;
}

/** §0C.11C steps 4–7 around the text score: scope, lane, checkpoint health, usability. */
export function wordingScore(text: number, entry: AbilityAvailabilityEntry, projectId: string | undefined): number {
  let score = TEXT_WEIGHT * Math.min(1, text / FULL_TEXT);
  if (projectId && entry.project_scopes.includes(projectId)) score += 0.15;
  else if (entry.project_scopes.length === 0 || entry.project_scopes.includes("*")) score += 0.05;
  if (entry.install_lane === "shared_promoted") score += 0.1;
  else if (entry.install_lane === "approved_workspace") score += 0.07;
  else if (entry.install_lane === "experimental_private") score += 0.03;
  if (entry.checkpoint_health === "strong") score += 0.05;
  else if (entry.checkpoint_health === "weak") score -= 0.05;
  if (!entry.usable_now) score *= 0.5;
  return Math.min(1, Math.max(0, score));
}

/**
 * How much finding a request word as an ability word says, by how many abilities hold that word
 * (as their own, or as a broader or defining word of theirs): a word most abilities hold ("make",
 * "time", "act") tells them apart less than one only a few hold. 1 for a word held by one ability
 * in `MIN_POPULATION`, down to `1 - RARITY_SHARE` for a word all abilities hold. The share is
 * counted over at least `MIN_POPULATION` abilities, so that with a handful installed a word is not
 * discounted for being in one of them.
 */
export type Rarity = (lemma: string) => number;
export const NO_RARITY: Rarity = () => 1;
export const RARITY_SHARE = 0.5;
export const MIN_POPULATION = 20;
export function rarityOf(holders: number, population: number): number {
  return 1 - RARITY_SHARE * Math.sqrt(holders / Math.max(population, MIN_POPULATION, holders));
}
