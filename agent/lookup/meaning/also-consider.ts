import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import {
  ALSO_CONSIDER_FAINT_SIMILARITY,
  ALSO_CONSIDER_MAX,
  ALSO_CONSIDER_MIN_SIMILARITY,
  type AbilityAlsoConsidered,
  type AbilityLookupQuery,
} from "../../../shared/abilities/lookup-contract";
import { compareCodeUnits } from "../baseline-scorer";
import type { WordingIndex, WordingNearMiss } from "../wording/wording-index";
import { wordingScore } from "../wording/wording-score";
import { blendedText, blendMatches, isFolderName, type BlendedMatch, type Closeness, type MeaningIndex } from "./meaning-index";

/**
 * Lookup's second tier (issue #34): the abilities below the gate that share some meaning or wording
 * with the request, so that an assistant (or a person, "Maybe you meant") still sees the right one
 * when the request is worded far from it. `matches` are untouched; this tier only adds.
 *
 * - Candidates: the abilities the meaning index shortlisted, and the `NEAR_READ` best the
 *   request's own words reached below the wording gate; never one of `matches`, never one a hard
 *   gate refuses (quarantined, disabled, lane not searched, negative trigger, opposite action).
 * - The floor: a candidate stays when its closest phrase reaches a cosine of `ALSO_CONSIDER_MIN_SIMILARITY`, or
 *   when it holds one of the request's own words by base form. A request sharing neither with
 *   any ability gets an empty tier. The reason says the first that holds (the phrase, or the words).
 *   When fewer than `ALSO_CONSIDER_MAX` pass, the next closest under the floor (from a cosine of
 *   `ALSO_CONSIDER_FAINT_SIMILARITY`) follow them, their reason saying they read only faintly close (issue #34, third round): the
 *   floor says whether the request shares anything at all, not which five to show an assistant.
 * - Ranked by how close each reads (`blendedText`: the matches' blend of wording and meaning, the
 *   wording below the gate counted as its text score), not by the scope, lane and checkpoint weights
 *   `score` adds to it: for a skill worded far from the request, which lane it was installed in says
 *   nothing about whether it is the one meant (BENCHMARKS.md "Issue 34", chosen on the tuned sets).
 *   The meaning is read there as the mean cosine of its two closest phrases (`Closeness.second`):
 *   one phrase reading close by chance counts for less than two that agree. `score` and the reason
 *   still read the closest alone. Ties by `score`. At most `ALSO_CONSIDER_MAX`.
 */
export { ALSO_CONSIDER_MAX, ALSO_CONSIDER_MIN_SIMILARITY, ALSO_CONSIDER_FAINT_SIMILARITY };
/** How many of the abilities reached below the wording gate are read as candidates. */
const NEAR_READ = 20;

/** What the tier needs of one snapshot's indexes. */
export interface AlsoConsiderSources {
  entryOf(abilityId: string): AbilityAvailabilityEntry | undefined;
  /** The hard gates (`WordingIndex.refusal(query)`, without the verb clash). */
  refusal(abilityId: string): string | undefined;
  sharedWords(abilityId: string): string[];
  /** An ability's closest phrase when the meaning index did not shortlist it; undefined without meaning. */
  closenessOf(abilityId: string): Closeness | undefined;
}

/** The plain reason a candidate came up: its closest phrase by meaning, and the words it shares. */
function reasonOf(close: Closeness | undefined, shared: readonly string[], entry: AbilityAvailabilityEntry): string {
  const parts: string[] = [];
  if (close !== undefined && close.similarity >= ALSO_CONSIDER_MIN_SIMILARITY) parts.push(closenessReason(close, entry, "reads close"));
  if (shared.length > 0) parts.push(`shares the word${shared.length === 1 ? "" : "s"} ${shared.map((word) => `"${word}"`).join(", ")}`);
  return parts.join("; ");
}

/** The reason of a candidate under the floor, filling the list: the phrase it reads closest to, said to read only faintly so. */
function faintReasonOf(close: Closeness, entry: AbilityAvailabilityEntry): string {
  return closenessReason(close, entry, "reads only faintly close");
}

/** How close a candidate reads, quoting a phrase a person wrote, never the skill's folder name (`Closeness.quote`). */
function closenessReason(close: Closeness, entry: AbilityAvailabilityEntry, reads: string): string {
  const quoted = close.quote ?? close;
  return close.quote === undefined && isFolderName(close.phrase, entry)
    ? `${reads} in meaning (similarity ${close.similarity.toFixed(2)})`
    : `${reads} to "${quoted.phrase}" (similarity ${quoted.similarity.toFixed(2)})`;
}

/** The second tier of one lookup, best first (see above). */
export function alsoConsider(
  query: AbilityLookupQuery,
  matches: readonly { ability_id: string }[],
  near: readonly WordingNearMiss[],
  closeness: ReadonlyMap<string, Closeness>,
  sources: AlsoConsiderSources,
): AbilityAlsoConsidered[] {
  const taken = new Set(matches.map((match) => match.ability_id));
  const nearText = new Map(near.map((miss) => [miss.ability_id, miss.rank_text]));
  const candidates = new Set([...closeness.keys(), ...nearText.keys()]);
  // Ranked first, then walked best first until five pass the floor: an ability's shared words
  // (its wording read word by word, the dearest part) are read only when its meaning does not pass.
  const ranked: Array<{ item: Omit<AbilityAlsoConsidered, "reason">; close: Closeness | undefined; entry: AbilityAvailabilityEntry; order: number }> = [];
  for (const abilityId of candidates) {
    if (taken.has(abilityId) || sources.refusal(abilityId) !== undefined) continue;
    const entry = sources.entryOf(abilityId);
    if (entry === undefined) continue;
    const close = closeness.get(abilityId) ?? sources.closenessOf(abilityId);
    const wordingText = nearText.get(abilityId) ?? 0;
    const near = blendedText(wordingText, close?.similarity ?? 0);
    ranked.push({
      close,
      entry,
      order: blendedText(wordingText, readsAs(close)),
      item: {
        ability_id: abilityId,
        score: wordingScore(near, entry, query.project_id),
        confidence: "low",
        install_lane: entry.install_lane,
        usable_now: entry.usable_now,
        ...(entry.reason_unusable === undefined ? {} : { reason_unusable: entry.reason_unusable }),
      },
    });
  }
  ranked.sort((a, b) => b.order - a.order || b.item.score - a.item.score || compareCodeUnits(a.item.ability_id, b.item.ability_id));
  const offered: AbilityAlsoConsidered[] = [];
  const faint: AbilityAlsoConsidered[] = [];
  for (const { item, close, entry } of ranked) {
    if (offered.length === ALSO_CONSIDER_MAX) break;
    const { ability_id, score, ...rest } = item;
    const byMeaning = close !== undefined && close.similarity >= ALSO_CONSIDER_MIN_SIMILARITY;
    const shared = byMeaning ? [] : sources.sharedWords(ability_id);
    if (byMeaning || shared.length > 0) offered.push({ ability_id, score, reason: reasonOf(close, shared, entry), ...rest });
    else if (close !== undefined && close.similarity >= ALSO_CONSIDER_FAINT_SIMILARITY && faint.length < ALSO_CONSIDER_MAX)
      faint.push({ ability_id, score, reason: faintReasonOf(close, entry), ...rest });
  }
  // Under the floor, the next closest (from ALSO_CONSIDER_FAINT_SIMILARITY) fill the list, after those above it; never alone: a request
  // sharing nothing with any ability keeps an empty tier.
  return offered.length === 0 ? [] : [...offered, ...faint].slice(0, ALSO_CONSIDER_MAX);
}

/** How close a candidate reads, for the tier's order: the mean of its two closest phrases' cosines (`Closeness.second`). */
function readsAs(close: Closeness | undefined): number {
  return close === undefined ? 0 : (close.similarity + (close.second ?? close.similarity)) / 2;
}

/** Lookup's answer in two tiers: `matches` exactly as `lookupReading` gives them, and `also_consider`. */
export interface LookupTiers {
  matches: BlendedMatch[];
  also_consider: AbilityAlsoConsidered[];
}

/**
 * `lookupReading` with the second tier: the request read with its typos mended, its vector asked
 * for first, the wording ranked (with its near misses kept), then the blend and the tier. The
 * matches are the same as `lookupReading`'s (also-consider.test.ts compares them).
 */
export async function lookupTiers(
  wording: WordingIndex,
  meaning: MeaningIndex | undefined,
  asked: AbilityLookupQuery,
  vectorOf: (query: AbilityLookupQuery) => Promise<Float32Array | undefined>,
): Promise<LookupTiers> {
  const { query } = wording.readSpelling(asked);
  const reading = meaning === undefined ? undefined : vectorOf(query);
  const ranked = wording.rankWithNearMisses(query, NEAR_READ);
  const vector = await reading;
  const refusal = wording.refusal(query);
  const read = meaning === undefined || vector === undefined ? undefined : { meaning, vector };
  const closeness =
    read === undefined
      ? new Map<string, Closeness>()
      : read.meaning.nearest(
          read.vector,
          ranked.matches.map((match) => match.ability_id),
        );
  const matches = read === undefined ? ranked.matches : blendMatches(query, ranked.matches, closeness, read.meaning.entryOf, refusal);
  const also = alsoConsider(query, matches, ranked.near, closeness, {
    entryOf: wording.entryOf,
    refusal: (abilityId) => refusal(abilityId),
    sharedWords: (abilityId) => wording.sharedWords(query, abilityId),
    closenessOf: (abilityId) => (read === undefined ? undefined : read.meaning.closenessOf(read.vector, abilityId)),
  });
  return { matches, also_consider: also };
}
