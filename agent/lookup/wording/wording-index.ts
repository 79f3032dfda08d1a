import type { AbilityLookupQuery, AbilityLookupResult } from "../../../shared/abilities/lookup-contract";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { createSpellingReader, type SpellingCorrection } from "./wording-spelling";
import { lemmaSetOf, negativeTriggerHit, verbClash, wordingRejection } from "./wording-gates";
import { explainWording, type WordingExplanation } from "./wording-matcher";
import { wordingScore, type LookupDocument } from "./wording-score";
import { buildWordingPostings } from "./wording-postings";
import {
  createRankContext,
  negativeTermsOf,
  opposedDocs,
  rankRequest,
  requestTerms,
  type NearMisses,
  type RankContext,
  type WordingMatch,
} from "./wording-rank";
import { compareCodeUnits } from "../baseline-scorer";
import { ownForms } from "./wording-expansion";

/** An ability the request's words reached below the gate, by id (`NearMiss`), with the score its text would rank by. */
export interface WordingNearMiss {
  ability_id: string;
  text: number;
  rank_text: number;
  score: number;
}

/**
 * The gates `rank` applies whatever the words: why an ability is never returned for this request.
 * `byMeaningAlone`: for an ability the request's words did not find, the title's action the
 * request's action clashes with (`verbClash`) refuses it too — "delete all invoices" reads much
 * like "export the invoices", and only the verbs tell them apart.
 */
function refusalFor(
  context: RankContext,
  byId: ReadonlyMap<string, number>,
  query: AbilityLookupQuery,
): (abilityId: string, byMeaningAlone?: boolean) => string | undefined {
  const { documents, lexicon, index } = context;
  const terms = requestTerms(context, query);
  const lemmas = lemmaSetOf(terms);
  const opposed = opposedDocs(context, terms);
  return (abilityId, byMeaningAlone = false) => {
    const doc = byId.get(abilityId);
    if (doc === undefined) return "not in the snapshot";
    const { entry } = documents[doc] as LookupDocument;
    if (terms.length === 0) return "the request has no words that carry meaning";
    const rejection = wordingRejection(query, entry);
    if (rejection !== undefined) return rejection;
    const negative = negativeTriggerHit(query.user_query, lemmas, entry, lexicon, (text) => negativeTermsOf(context, text));
    if (negative !== undefined) return `negative_trigger_match: "${negative}"`;
    if (opposed?.has(doc) === true) return "opposite_action";
    const clash = byMeaningAlone ? verbClash(terms, index.titleActions[doc] as readonly string[], lexicon, context.actionAround) : undefined;
    return clash === undefined ? undefined : `verb_clash: the request asks for another action than "${clash}"`;
  };
}

/**
 * The wording matcher over one availability snapshot (issue #15): an inverted index from each base
 * form to the abilities whose wording holds it (with the best field weight, and whether the title
 * holds it), built once per snapshot (`wording-postings.ts`). A lookup expands each request word
 * through the lexicon, walks the postings of the forms the index holds, and scores only the
 * abilities reached (`wording-rank.ts`) — the same numbers `explainWording` gives one ability
 * (wording-index.test.ts compares them).
 */
export function createWordingIndex(documents: readonly LookupDocument[], lexicon: Lexicon) {
  const postings = buildWordingPostings(documents, lexicon);
  const context = createRankContext(documents, lexicon, postings);
  const byId = new Map(documents.map((document, doc) => [document.entry.ability_id, doc]));
  const rank = (query: AbilityLookupQuery) => rankRequest(context, query);
  /** Whether an ability's own wording holds a base form (its `ownWords`, a binary search). */
  const holds = (doc: number, lemma: string): boolean => {
    const id = postings.postings.get(lemma)?.id;
    const own = postings.ownWords[doc] as Int32Array;
    if (id === undefined) return false;
    let low = 0;
    let high = own.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((own[middle] as number) < id) low = middle + 1;
      else high = middle;
    }
    return own[low] === id;
  };

  const spelling = createSpellingReader(lexicon, (lemma) => postings.postings.has(lemma));
  /** The request as the matcher reads it: each unknown word one slip from a known word mended (`wording-spelling.ts`). */
  const readSpelling = (query: AbilityLookupQuery): { query: AbilityLookupQuery; corrections: SpellingCorrection[] } => {
    const read = spelling.read(query.user_query);
    return { query: read.corrections.length === 0 ? query : { ...query, user_query: read.text }, corrections: read.corrections };
  };

  return {
    /** The best matches, at most `LOOKUP_MAX_RESULTS`, with their text scores. */
    rank,
    refusal: (query: AbilityLookupQuery) => refusalFor(context, byId, query),
    /**
     * `rank`'s matches (the same), and the `nearMax` abilities the request's own words reached
     * below the gate that they cover most of, best first by the score their text would rank by
     * (lookup's second tier).
     */
    rankWithNearMisses(query: AbilityLookupQuery, nearMax: number): { matches: WordingMatch[]; near: WordingNearMiss[] } {
      const near: NearMisses = { max: nearMax, found: [] };
      const matches = rankRequest(context, query, near);
      const scored = near.found.map(({ doc, text, rankText }) => {
        const { entry } = documents[doc] as LookupDocument;
        return { ability_id: entry.ability_id, text, rank_text: rankText, score: wordingScore(rankText, entry, query.project_id) };
      });
      scored.sort((a, b) => b.score - a.score || compareCodeUnits(a.ability_id, b.ability_id));
      return { matches, near: scored };
    },
    /** The request's own words (as it reads them, not related words) whose base form the ability's wording holds, in request order. */
    sharedWords(query: AbilityLookupQuery, abilityId: string): string[] {
      const doc = byId.get(abilityId);
      if (doc === undefined) return [];
      return requestTerms(context, query)
        .filter((term) => term.implied === undefined && ownForms(term).some((lemma) => holds(doc, lemma)))
        .map((term) => term.word);
    },
    /** The availability entry of an ability of the snapshot. */
    entryOf: (abilityId: string) => {
      const doc = byId.get(abilityId);
      return doc === undefined ? undefined : (documents[doc] as LookupDocument).entry;
    },
    readSpelling,
    /** §0C.11 `matches` of a lookup answer, ranked by the wording matcher (the request read with its typos mended). */
    lookup(query: AbilityLookupQuery): AbilityLookupResult["matches"] {
      return rank(readSpelling(query).query).map(({ text: _text, rank_text: _rankText, ...match }) => match);
    },
    /** How much finding a word says in this snapshot (see `Rarity`). */
    rarity: postings.rarity,
    /** The snapshot's words that begin with a prefix (shortenings, and whether any ability knows a word). */
    wordsStartingWith: postings.wordsStartingWith,
    /** The matcher's verdict on one ability of the snapshot, with reasons; undefined if it is not in it. */
    explain(query: AbilityLookupQuery, abilityId: string): WordingExplanation | undefined {
      const doc = byId.get(abilityId);
      return doc === undefined ? undefined : explainWording(query, documents[doc] as LookupDocument, lexicon, postings.rarity, postings.wordsStartingWith);
    },
  };
}

export type WordingIndex = ReturnType<typeof createWordingIndex>;
