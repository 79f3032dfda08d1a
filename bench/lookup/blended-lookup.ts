import type { AbilityLookupQuery } from "../../shared/abilities/lookup-contract";
import { createMeaningIndex, lookupBlended, lookupReading, meaningPhrases, meaningText } from "../../agent/lookup/meaning/meaning-index";
import { createWordingIndex } from "../../agent/lookup/wording/wording-index";
import type { Lexicon } from "../../agent/lookup/lexicon/wording-lexicon";
import type { LookupDocument } from "../../agent/lookup/wording/wording-score";
import type { SentenceEncoder } from "../../agent/lookup/meaning/sentence-encoder";
import { lookupTiers } from "../../agent/lookup/meaning/also-consider";
import type { EvalAbility } from "./fixtures/lookup-eval.fixture";
import { lookupQuery as query, type LookupSet } from "./lookup-sets";

/**
 * Lookup by wording and meaning as the agent answers it, over a bench's documents, and how well it
 * finds each set's abilities (the meaning bench and the blind sets' both measure with these).
 */

export interface SetQuality {
  p1: number;
  recall3: number;
  unrelatedMatched: number;
  unrelatedCount: number;
  requests: number;
}

/** A lookup by wording and meaning over `documents`, as the agent's lookup service answers, with each request's vector read first. */
export async function blendedLookupOver(documents: readonly LookupDocument[], lexicon: Lexicon, encoder: SentenceEncoder) {
  const wording = createWordingIndex(documents, lexicon);
  const phrases = [...new Set(documents.flatMap(meaningPhrases))];
  const vectors = await encoder.encode(phrases);
  const byPhrase = new Map(phrases.map((phrase, at) => [phrase, vectors[at] as Float32Array]));
  const meaning = createMeaningIndex(documents, (phrase) => byPhrase.get(phrase));
  return {
    wording,
    meaning,
    /** The request's vector (not kept), then the blended ranking: what one lookup costs. */
    async lookup(asked: AbilityLookupQuery) {
      return lookupReading(wording, meaning, asked, async (request) => (await encoder.encode([meaningText(request.user_query)], { keep: false }))[0]);
    },
    /** The lookup route's answer (issue #34): the same matches, and the low-confidence tier below them. */
    async tiers(asked: AbilityLookupQuery) {
      return lookupTiers(wording, meaning, asked, async (request) => (await encoder.encode([meaningText(request.user_query)], { keep: false }))[0]);
    },
    /** The same, with the request read exactly as typed (no typo mended): what mending adds. */
    async lookupAsTyped(request: AbilityLookupQuery) {
      const [vector] = await encoder.encode([meaningText(request.user_query)], { keep: false });
      return lookupBlended(wording, meaning, request, vector as Float32Array);
    },
    /** Issue #34: the same with the second tier, given the request's vector (nothing read on the model's thread). */
    async tiersWith(asked: AbilityLookupQuery, vector: Float32Array) {
      return lookupTiers(wording, meaning, asked, async () => vector);
    },
    /** The blended ranking alone, given the vector of the request as read (`readSpelling`). */
    rankWith(asked: AbilityLookupQuery, vector: Float32Array) {
      return lookupBlended(wording, meaning, wording.readSpelling(asked).query, vector);
    },
  };
}

export async function qualityOf(
  set: LookupSet,
  lookup: (request: AbilityLookupQuery) => Promise<ReadonlyArray<{ ability_id: string }>>,
  typed: (requests: readonly string[]) => readonly string[] = (requests) => requests,
): Promise<SetQuality> {
  let top1 = 0;
  let top3 = 0;
  let requests = 0;
  for (const ability of set.abilities) {
    for (const request of typed(ability.requests)) {
      const ids = (await lookup(query(request))).map((match) => match.ability_id);
      requests += 1;
      if (ids[0] === `learned.${ability.id}`) top1 += 1;
      if (ids.slice(0, 3).includes(`learned.${ability.id}`)) top3 += 1;
    }
  }
  let unrelatedMatched = 0;
  for (const request of typed(set.unrelated)) if ((await lookup(query(request))).length > 0) unrelatedMatched += 1;
  return { p1: top1 / requests, recall3: top3 / requests, unrelatedMatched, unrelatedCount: set.unrelated.length, requests };
}

/** Issue #34: a lookup's two tiers, as ids (matches first, then also_consider). */
export type TierLookup = (
  request: AbilityLookupQuery,
) => Promise<{ matches: ReadonlyArray<{ ability_id: string }>; also_consider: ReadonlyArray<{ ability_id: string }> }>;

export interface TierQuality {
  /** The request's ability among the first five of matches followed by also_consider. */
  recall5: number;
  /** The same over matches alone (what recall@5 was before the second tier). */
  matchesRecall5: number;
  /** Unrelated requests with any match (must stay as without the tier) and with any also_consider. */
  unrelatedMatched: number;
  unrelatedConsidered: number;
  unrelatedCount: number;
  requests: number;
}

/** Issue #34: recall@5 over `matches` + `also_consider` (one list, matches first), and what unrelated requests get. */
export async function tierQualityOf(set: { abilities: readonly EvalAbility[]; unrelated: readonly string[] }, lookup: TierLookup): Promise<TierQuality> {
  let top5 = 0;
  let matchesTop5 = 0;
  let requests = 0;
  for (const ability of set.abilities) {
    for (const request of ability.requests) {
      const { matches, also_consider } = await lookup(query(request));
      const ids = [...matches, ...also_consider].map((match) => match.ability_id);
      requests += 1;
      if (ids.slice(0, 5).includes(`learned.${ability.id}`)) top5 += 1;
      if (matches.slice(0, 5).some((match) => match.ability_id === `learned.${ability.id}`)) matchesTop5 += 1;
    }
  }
  let unrelatedMatched = 0;
  let unrelatedConsidered = 0;
  for (const request of set.unrelated) {
    const { matches, also_consider } = await lookup(query(request));
    if (matches.length > 0) unrelatedMatched += 1;
    if (also_consider.length > 0) unrelatedConsidered += 1;
  }
  return {
    recall5: top5 / requests,
    matchesRecall5: matchesTop5 / requests,
    unrelatedMatched,
    unrelatedConsidered,
    unrelatedCount: set.unrelated.length,
    requests,
  };
}
