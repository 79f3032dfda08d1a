import { TEXT_MIN, type AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import { compareCodeUnits, LOOKUP_MAX_RESULTS } from "../baseline-scorer";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { ACTION_PENALTY, queryTermsOf, type QueryTerm } from "./wording-expansion";
import { lemmaSetOf, negativeTriggerHit, opposedAction, VERB_CLASH_SHARE, verbClash, wordingRejection } from "./wording-gates";
import { evidence, textScore, wordingScore, type LookupDocument } from "./wording-score";
import type { Posting, WordingPostings } from "./wording-postings";
import { termsOf, type Term } from "./wording-terms";
import { addAbilityWords, addTitleWords, createRankScratch, nextEpoch, reachTouched, type RankScratch } from "./wording-rank-scratch";

/** One match of the wording matcher: the lookup response's fields and the text score behind it. */
export interface WordingMatch {
  ability_id: string;
  score: number;
  text: number;
  rank_text: number;
  install_lane: string;
  usable_now: boolean;
  reason_unusable?: string;
}

type HeldExpansion = { lemma: string; closeness: number; list: Posting };

/** What ranking reads and keeps between requests over one snapshot: its postings, caches and scratch. */
export interface RankContext {
  documents: readonly LookupDocument[];
  lexicon: Lexicon;
  index: WordingPostings;
  scratch: RankScratch;
  /** `queryTermsOf`'s cache of each request word's expansions. */
  expansions: Map<string, QueryTerm>;
  /** Kept per request word: the expansion cache hands back the same object for the same word. */
  held: WeakMap<QueryTerm, readonly HeldExpansion[]>;
  /** Each negative trigger's words, read once. */
  negatives: Map<string, readonly Term[]>;
  /** The words a title action brings (`verbClash`), apart from the build's cache so that one is not kept. */
  actionAround: Map<string, ReadonlyMap<string, number>>;
}

export function createRankContext(documents: readonly LookupDocument[], lexicon: Lexicon, index: WordingPostings): RankContext {
  return {
    documents,
    lexicon,
    index,
    scratch: createRankScratch(documents.length),
    expansions: new Map(),
    held: new WeakMap(),
    negatives: new Map(),
    actionAround: new Map(),
  };
}

/** The request's words as the matcher reads them (`queryTermsOf`). */
export function requestTerms(context: RankContext, query: AbilityLookupQuery): QueryTerm[] {
  return queryTermsOf(query.user_query, context.lexicon, context.index.wordsStartingWith, context.expansions);
}

/** A negative trigger's words (`termsOf`), read once per index. */
export function negativeTermsOf(context: RankContext, text: string): readonly Term[] {
  let terms = context.negatives.get(text);
  if (terms === undefined) context.negatives.set(text, (terms = termsOf(text, context.lexicon)));
  return terms;
}

/** A request word's expansions that some ability holds, in expansion order, with their postings. */
function heldExpansions(context: RankContext, term: QueryTerm): readonly HeldExpansion[] {
  let found = context.held.get(term);
  if (found === undefined) {
    const list: HeldExpansion[] = [];
    for (const [lemma, { closeness }] of term.expansions) {
      const posting = context.index.postings.get(lemma);
      if (posting !== undefined) list.push({ lemma, closeness, list: posting });
    }
    context.held.set(term, (found = list));
  }
  return found;
}

/** The abilities whose title begins with the opposite of the request's action (`opposedAction`). */
export function opposedDocs(context: RankContext, terms: readonly QueryTerm[]): Set<number> | undefined {
  const action = terms[0];
  if (action === undefined || action.opposites.length === 0) return undefined;
  let opposed: Set<number> | undefined;
  for (const opposite of action.opposites) {
    for (const doc of context.index.titleActionDocs.get(opposite) ?? []) {
      if (opposedAction(terms, context.index.titleActions[doc] as readonly string[]) !== undefined) (opposed ??= new Set()).add(doc);
    }
  }
  return opposed;
}

/**
 * Numbers the ability words more than one request word may be found as: only these need
 * `WordUse`'s bookkeeping (per ability, in `slots` and `titleSlots`); any other word is found for
 * one request word at most, and simply adds up.
 */
function numberSharedLemmas(context: RankContext, ownTerms: readonly QueryTerm[]): void {
  const { lemmaIds } = context.scratch;
  lemmaIds.clear();
  const seenOnce = new Set<string>();
  const shared = new Set<string>();
  for (const term of ownTerms) {
    for (const { lemma } of heldExpansions(context, term)) {
      if (seenOnce.has(lemma)) shared.add(lemma);
      else seenOnce.add(lemma);
    }
  }
  for (const lemma of shared) lemmaIds.set(lemma, lemmaIds.size);
}

/** One request word's best place in each ability it reaches (`findTerm`): how many abilities it touched, in `touched`. */
function placeOwnTerm(context: RankContext, term: QueryTerm): number {
  const { termStamp, termValue, termTitle, termLemma, termRarity, termTitleLemma, touched, lemmaIds } = context.scratch;
  const termEpoch = nextEpoch(context.scratch);
  let touchedCount = 0;
  for (const { lemma, closeness, list } of heldExpansions(context, term)) {
    // -1: a word no other request word is found as.
    const lemmaId = lemmaIds.get(lemma) ?? -1;
    for (let at = 0; at < list.docs.length; at += 1) {
      const doc = list.docs[at] as number;
      if (termStamp[doc] !== termEpoch) {
        termStamp[doc] = termEpoch;
        termValue[doc] = 0;
        termTitle[doc] = 0;
        touched[touchedCount] = doc;
        touchedCount += 1;
      }
      const value = closeness * (list.weights[at] as number);
      if (value > (termValue[doc] as number)) {
        termValue[doc] = value;
        termLemma[doc] = lemmaId;
        termRarity[doc] = list.rarity;
      }
      const title = closeness * (list.titles[at] as number);
      if (title > (termTitle[doc] as number)) {
        termTitle[doc] = title;
        termTitleLemma[doc] = lemmaId;
      }
    }
  }
  return touchedCount;
}

/**
 * The cues' words, found only in the abilities reached: what each adds to the ranking (a
 * circumstance cue ranks, it never makes a match). Returns their weight.
 */
function rankCueTerms(context: RankContext, cueTerms: readonly QueryTerm[], queryEpoch: number): number {
  const { scratch } = context;
  const { termStamp, termValue, termRarity, touched, queryStamp, cueRanked } = scratch;
  let cueWeight = 0;
  for (const term of cueTerms) {
    cueWeight += term.weight;
    const termEpoch = nextEpoch(scratch);
    let touchedCount = 0;
    for (const { closeness, list } of heldExpansions(context, term)) {
      for (let at = 0; at < list.docs.length; at += 1) {
        const doc = list.docs[at] as number;
        if (queryStamp[doc] !== queryEpoch) continue;
        if (termStamp[doc] !== termEpoch) {
          termStamp[doc] = termEpoch;
          termValue[doc] = 0;
          touched[touchedCount] = doc;
          touchedCount += 1;
        }
        const value = closeness * (list.weights[at] as number);
        if (value > (termValue[doc] as number)) {
          termValue[doc] = value;
          termRarity[doc] = list.rarity;
        }
      }
    }
    for (let n = 0; n < touchedCount; n += 1) {
      const doc = touched[n] as number;
      cueRanked[doc] = (cueRanked[doc] as number) + term.weight * evidence((termValue[doc] as number) * (termRarity[doc] as number));
    }
  }
  return cueWeight;
}

type Scored = { doc: number; text: number; rankText: number; score: number };

/**
 * An ability the request's own words reached whose text score stays below the gate (`TEXT_MIN`):
 * a candidate for lookup's second tier (`also-consider.ts`), never a match.
 */
export interface NearMiss {
  doc: number;
  text: number;
  rankText: number;
}

/**
 * Where `rankRequest` puts the near misses: the `max` of highest text score (ties: the first
 * reached), their ranking text read for those only — a common word reaches thousands of abilities
 * in a large snapshot, and reading each one's ranking text would double a lookup's time.
 */
export interface NearMisses {
  max: number;
  found: NearMiss[];
}

/** Keeps `found` the `max` best by text score, best first (insertion into a short array). */
function keepNearMiss(near: NearMisses, doc: number, text: number): void {
  const { found, max } = near;
  if (found.length === max && text <= (found[max - 1] as NearMiss).text) return;
  let at = found.length === max ? max - 1 : found.length;
  if (found.length < max) found.push({ doc, text, rankText: 0 });
  while (at > 0 && (found[at - 1] as NearMiss).text < text) {
    found[at] = found[at - 1] as NearMiss;
    at -= 1;
  }
  found[at] = { doc, text, rankText: 0 };
}

/**
 * The abilities reached whose text score makes a match, with their scores, best first (numbers
 * only). With `near`, the best of the others reached are kept there (`NearMisses`).
 */
function scoreReached(
  context: RankContext,
  query: AbilityLookupQuery,
  terms: readonly QueryTerm[],
  totalWeight: number,
  cueWeight: number,
  queryEpoch: number,
  near?: NearMisses,
): Scored[] {
  const { documents, lexicon, index, scratch } = context;
  const action = terms[0]?.action === true;
  // The title actions the request's action clashes with (`verbClash`), read once per title action.
  const clashes = new Map<string, boolean>();
  const clashesWith = (doc: number): boolean => {
    const titleAction = index.titleActions[doc] as readonly string[];
    const key = titleAction.join(" ");
    let found = clashes.get(key);
    if (found === undefined) clashes.set(key, (found = verbClash(terms, titleAction, lexicon, context.actionAround) !== undefined));
    return found;
  };
  const { reached, reachedCount, actionStamp, found, titleFound, ranked, cueRanked } = scratch;
  const { titleTerms } = index;
  const scored: Scored[] = [];
  const rankTextOf = (doc: number, total: number) =>
    textScore(total + cueWeight, (ranked[doc] as number) + (cueRanked[doc] as number), titleFound[doc] as number, titleTerms[doc] as number) *
    (clashesWith(doc) ? VERB_CLASH_SHARE : 1);
  // The request's weight for one ability: its action counts twice where the ability has nothing of it.
  const totalOf = (doc: number) => (action && actionStamp[doc] !== queryEpoch ? totalWeight + ACTION_PENALTY * (terms[0] as QueryTerm).weight : totalWeight);
  for (let n = 0; n < reachedCount; n += 1) {
    const doc = reached[n] as number;
    const total = totalOf(doc);
    const text = textScore(total, found[doc] as number, titleFound[doc] as number, titleTerms[doc] as number);
    if (text < TEXT_MIN) {
      if (near !== undefined) keepNearMiss(near, doc, text);
      continue;
    }
    const rankText = rankTextOf(doc, total);
    scored.push({ doc, text, rankText, score: wordingScore(rankText, (documents[doc] as LookupDocument).entry, query.project_id) });
  }
  if (near !== undefined) {
    for (const miss of near.found) miss.rankText = rankTextOf(miss.doc, totalOf(miss.doc));
  }
  scored.sort(
    (a, b) =>
      b.score - a.score ||
      b.text - a.text ||
      compareCodeUnits((documents[a.doc] as LookupDocument).entry.ability_id, (documents[b.doc] as LookupDocument).entry.ability_id),
  );
  return scored;
}

/** The best read in order, each checked against the gates, until ten pass: most abilities a common word reaches are never turned into a match. */
function gatedMatches(context: RankContext, query: AbilityLookupQuery, terms: readonly QueryTerm[], scored: readonly Scored[]): WordingMatch[] {
  const lemmas = lemmaSetOf(terms);
  const opposed = opposedDocs(context, terms);
  const matches: WordingMatch[] = [];
  for (const { doc, text, rankText, score } of scored) {
    if (matches.length === LOOKUP_MAX_RESULTS) break;
    const { entry } = context.documents[doc] as LookupDocument;
    if (wordingRejection(query, entry) !== undefined) continue;
    if (negativeTriggerHit(query.user_query, lemmas, entry, context.lexicon, (text) => negativeTermsOf(context, text)) !== undefined) continue;
    if (opposed?.has(doc) === true) continue;
    matches.push({
      ability_id: entry.ability_id,
      score,
      text,
      rank_text: rankText,
      install_lane: entry.install_lane,
      usable_now: entry.usable_now,
      ...(entry.reason_unusable === undefined ? {} : { reason_unusable: entry.reason_unusable }),
    });
  }
  return matches;
}

/**
 * The best matches, at most `LOOKUP_MAX_RESULTS`, best first: each request word's postings walked
 * (the request's own words, then its circumstance cues'), only the abilities reached scored. With
 * `near`, the abilities reached below the gate are put there too (lookup's second tier); the
 * matches are the same either way.
 */
export function rankRequest(context: RankContext, query: AbilityLookupQuery, near?: NearMisses): WordingMatch[] {
  const terms = requestTerms(context, query);
  if (terms.length === 0) return [];
  const { scratch } = context;
  const queryEpoch = nextEpoch(scratch);
  scratch.reachedCount = 0;
  // A circumstance cue's word (`implied`) ranks the abilities the request's own words reach; it never makes a match.
  const ownTerms = terms.filter((term) => term.implied === undefined);
  const cueTerms = terms.filter((term) => term.implied !== undefined);
  numberSharedLemmas(context, ownTerms);
  let totalWeight = 0;
  for (const term of ownTerms) {
    totalWeight += term.weight;
    const touchedCount = placeOwnTerm(context, term);
    // Each ability's sums are its own: the three passes give what one pass per ability gives.
    reachTouched(scratch, term, touchedCount, queryEpoch);
    addTitleWords(scratch, touchedCount);
    addAbilityWords(scratch, term, touchedCount);
  }
  const cueWeight = rankCueTerms(context, cueTerms, queryEpoch);
  return gatedMatches(context, query, terms, scoreReached(context, query, terms, totalWeight, cueWeight, queryEpoch, near));
}
