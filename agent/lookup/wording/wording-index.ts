import { compareCodeUnits, LOOKUP_MAX_RESULTS } from "../baseline-scorer";
import { TEXT_MIN, type AbilityLookupQuery, type AbilityLookupResult } from "../../../shared/abilities/lookup-contract";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { createSpellingReader, type SpellingCorrection } from "./wording-spelling";
import { contentSize, termsOf, type Term } from "./wording-terms";
import { ACTION_PENALTY, MAX_QUERY_TERMS, queryTermsOf, wordsAround, type QueryTerm } from "./wording-expansion";
import {
  evidence,
  fieldTexts,
  explainWording,
  FIELD_WEIGHTS,
  FIELDS,
  lemmaSetOf,
  negativeTriggerHit,
  opposedAction,
  rarityOf,
  textScore,
  VERB_CLASH_SHARE,
  verbClash,
  wordingRejection,
  wordingScore,
  type LookupDocument,
  type Rarity,
  type WordingExplanation,
} from "./wording-matcher";

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

/**
 * The wording matcher over one availability snapshot (issue #15): an inverted index from each base
 * form to the abilities whose wording holds it (with the best field weight, and whether the title
 * holds it), built once per snapshot. A lookup expands each request word through the lexicon,
 * walks the postings of the forms the index holds, and scores only the abilities reached — the
 * same numbers `explainWording` gives one ability (wording-index.test.ts compares them).
 *
 * The scratch arrays are per handle; `lookup` is synchronous, so lookups never share them at once.
 */
export function createWordingIndex(documents: readonly LookupDocument[], lexicon: Lexicon) {
  const count = documents.length;
  const titleTerms = new Int32Array(count);
  const titleActions: Array<readonly string[]> = new Array(count);
  const titleActionDocs = new Map<string, number[]>();
  // Postings as (doc, field weight, in title) built per lemma, then frozen into typed arrays.
  const building = new Map<string, { docs: number[]; weights: number[]; titles: number[] }>();
  // Shared by all documents while building: the lemmas of a text, and the words around a lemma.
  const around = new Map<string, ReadonlyMap<string, number>>();
  const textLemmas = new Map<string, readonly string[]>();
  const lemmasOfText = (text: string): readonly string[] => {
    let lemmas = textLemmas.get(text);
    if (lemmas === undefined) textLemmas.set(text, (lemmas = termsOf(text, lexicon).flatMap((term) => term.lemmas)));
    return lemmas;
  };
  documents.forEach((document, doc) => {
    // The same numbers as `documentWords` + `findTerm` (explain), computed per distinct lemma:
    // a word's best place is max over lemmas of closeness × the best field weight of that lemma.
    const texts = fieldTexts(document);
    const own = new Map<string, { weight: number; title: number }>();
    for (const field of FIELDS) {
      for (const text of texts[field]) {
        for (const lemma of lemmasOfText(text)) {
          const seen = own.get(lemma) ?? { weight: 0, title: 0 };
          if (FIELD_WEIGHTS[field] > seen.weight) seen.weight = FIELD_WEIGHTS[field];
          if (field === "title") seen.title = contentSize(lemma);
          own.set(lemma, seen);
        }
      }
    }
    const titleWords = termsOf(document.entry.title, lexicon);
    titleTerms[doc] = titleWords.reduce((sum, term) => sum + contentSize(term.lemmas[0] as string), 0);
    // The title's first word, its action: a request for the opposite action never finds it.
    const action = titleWords[0]?.lemmas ?? [];
    titleActions[doc] = action;
    for (const lemma of action) {
      let list = titleActionDocs.get(lemma);
      if (list === undefined) titleActionDocs.set(lemma, (list = []));
      list.push(doc);
    }
    const best = new Map<string, { weight: number; title: number }>();
    const note = (word: string, weight: number, title: number) => {
      const seen = best.get(word);
      if (seen === undefined) best.set(word, { weight, title });
      else {
        if (weight > seen.weight) seen.weight = weight;
        if (title > seen.title) seen.title = title;
      }
    };
    for (const [lemma, { weight, title }] of own) note(lemma, weight, title);
    for (const [lemma, { weight, title }] of own) {
      for (const [word, closeness] of wordsAround(lemma, lexicon, around)) {
        note(word, closeness * weight, title > 0 ? closeness : 0);
      }
    }
    for (const [lemma, { weight, title }] of best) {
      let postings = building.get(lemma);
      if (postings === undefined) building.set(lemma, (postings = { docs: [], weights: [], titles: [] }));
      postings.docs.push(doc);
      postings.weights.push(weight);
      postings.titles.push(title);
    }
  });
  const postings = new Map<string, { docs: Int32Array; weights: Float64Array; titles: Float64Array; rarity: number }>();
  const rarities = new Map<string, number>();
  for (const [lemma, list] of building) {
    const share = rarityOf(list.docs.length, count);
    rarities.set(lemma, share);
    postings.set(lemma, { docs: Int32Array.from(list.docs), weights: Float64Array.from(list.weights), titles: Float64Array.from(list.titles), rarity: share });
  }
  const rarity: Rarity = (lemma) => rarities.get(lemma) ?? 1;
  building.clear();
  // The index's words in code-unit order, for the words that begin with a prefix.
  const vocabulary = [...postings.keys()].sort((a, b) => compareCodeUnits(a, b));
  const wordsStartingWith = function* (prefix: string): Generator<string> {
    let low = 0;
    let high = vocabulary.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((vocabulary[middle] as string) < prefix) low = middle + 1;
      else high = middle;
    }
    for (let at = low; at < vocabulary.length && (vocabulary[at] as string).startsWith(prefix); at += 1) yield vocabulary[at] as string;
  };

  // Per-query scratch: an entry is valid where its stamp equals the current term's (or query's) epoch.
  let epoch = 0;
  const termStamp = new Int32Array(count);
  const termValue = new Float64Array(count);
  const termTitle = new Float64Array(count);
  const termLemma = new Int32Array(count);
  const termRarity = new Float64Array(count);
  const termTitleLemma = new Int32Array(count);
  const titleUsedCount = new Int32Array(count);
  // (title word, closeness) pairs, side by side so that one ability's are read together.
  const titleSlots = new Float64Array(count * MAX_QUERY_TERMS * 2);
  // Per ability reached: the ability words used so far and what each counts for (see `WordUse`).
  const usedCount = new Int32Array(count);
  // (ability word, found, ranked) triples, side by side.
  const slots = new Float64Array(count * MAX_QUERY_TERMS * 3);
  const lemmaIds = new Map<string, number>();
  const queryStamp = new Int32Array(count);
  const found = new Float64Array(count);
  const titleFound = new Float64Array(count);
  const ranked = new Float64Array(count);
  // What circumstance cues' words add to `ranked` (see `QueryTerm.implied`).
  const cueRanked = new Float64Array(count);
  const touched = new Int32Array(count);
  const reached = new Int32Array(count);
  // Abilities whose wording has the request's action (its first word, when a verb), stamped per query.
  const actionStamp = new Int32Array(count);
  const expansions = new Map<string, QueryTerm>();
  // Each negative trigger's words, read once.
  const negatives = new Map<string, readonly Term[]>();
  const negativeTerms = (text: string): readonly Term[] => {
    let terms = negatives.get(text);
    if (terms === undefined) negatives.set(text, (terms = termsOf(text, lexicon)));
    return terms;
  };
  // The words a title action brings (`verbClash`), apart from the build's cache so that one is not kept.
  const actionAround = new Map<string, ReadonlyMap<string, number>>();
  const byId = new Map(documents.map((document, doc) => [document.entry.ability_id, doc]));

  // A request word's expansions that some ability holds, in expansion order, with their postings
  // (kept per request word: the expansion cache hands back the same object for the same word).
  type Posting = { docs: Int32Array; weights: Float64Array; titles: Float64Array; rarity: number };
  const held = new WeakMap<QueryTerm, ReadonlyArray<{ lemma: string; closeness: number; list: Posting }>>();
  const heldExpansions = (term: QueryTerm) => {
    let found = held.get(term);
    if (found === undefined) {
      const list: Array<{ lemma: string; closeness: number; list: Posting }> = [];
      for (const [lemma, { closeness }] of term.expansions) {
        const posting = postings.get(lemma);
        if (posting !== undefined) list.push({ lemma, closeness, list: posting });
      }
      held.set(term, (found = list));
    }
    return found;
  };

  const nextEpoch = () => {
    epoch += 1;
    if (epoch === 0x7fffffff) {
      termStamp.fill(0);
      queryStamp.fill(0);
      actionStamp.fill(0);
      epoch = 1;
    }
    return epoch;
  };

  /** The abilities whose title begins with the opposite of the request's action (`opposedAction`). */
  const opposedDocs = (terms: readonly QueryTerm[]): Set<number> | undefined => {
    const action = terms[0];
    if (action === undefined || action.opposites.length === 0) return undefined;
    let opposed: Set<number> | undefined;
    for (const opposite of action.opposites) {
      for (const doc of titleActionDocs.get(opposite) ?? []) {
        if (opposedAction(terms, titleActions[doc] as readonly string[]) !== undefined) (opposed ??= new Set()).add(doc);
      }
    }
    return opposed;
  };

  /** The best matches, at most `LOOKUP_MAX_RESULTS`, best first. */
  const rank = (query: AbilityLookupQuery): WordingMatch[] => {
    const terms = queryTermsOf(query.user_query, lexicon, wordsStartingWith, expansions);
    if (terms.length === 0) return [];
    const queryEpoch = nextEpoch();
    let reachedCount = 0;
    let totalWeight = 0;
    lemmaIds.clear();
    // Ability words more than one request word may be found as: only these need `WordUse`'s
    // bookkeeping (per ability, in `slots` and `titleSlots`); any other word is found for one
    // request word at most, and simply adds up.
    const seenOnce = new Set<string>();
    const shared = new Set<string>();
    // A circumstance cue's word (`implied`) ranks the abilities the request's own words reach; it never makes a match.
    const ownTerms = terms.filter((term) => term.implied === undefined);
    const cueTerms = terms.filter((term) => term.implied !== undefined);
    for (const term of ownTerms) {
      for (const { lemma } of heldExpansions(term)) {
        if (seenOnce.has(lemma)) shared.add(lemma);
        else seenOnce.add(lemma);
      }
    }
    for (const lemma of shared) lemmaIds.set(lemma, lemmaIds.size);
    const action = terms[0]?.action === true;
    for (const term of ownTerms) {
      totalWeight += term.weight;
      const termEpoch = nextEpoch();
      let touchedCount = 0;
      for (const { lemma, closeness, list } of heldExpansions(term)) {
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
      for (let n = 0; n < touchedCount; n += 1) {
        const doc = touched[n] as number;
        if (term.action === true) actionStamp[doc] = queryEpoch;
        if (queryStamp[doc] !== queryEpoch) {
          queryStamp[doc] = queryEpoch;
          found[doc] = 0;
          ranked[doc] = 0;
          titleFound[doc] = 0;
          usedCount[doc] = 0;
          titleUsedCount[doc] = 0;
          cueRanked[doc] = 0;
          reached[reachedCount] = doc;
          reachedCount += 1;
        }
        // The same steps as `WordUse`: an ability word counts once, for the request word it says most for.
        if ((termTitle[doc] as number) > 0 && termTitleLemma[doc] === -1) titleFound[doc] = (titleFound[doc] as number) + (termTitle[doc] as number);
        else if ((termTitle[doc] as number) > 0) {
          // `WordUse.addTitle`: each title word counts once, at its best.
          const base = doc * MAX_QUERY_TERMS * 2;
          const used = titleUsedCount[doc] as number;
          let slot = 0;
          while (slot < used && titleSlots[base + 2 * slot] !== termTitleLemma[doc]) slot += 1;
          if (slot === used) {
            titleSlots[base + 2 * slot] = termTitleLemma[doc] as number;
            titleSlots[base + 2 * slot + 1] = 0;
            titleUsedCount[doc] = used + 1;
          }
          if ((termTitle[doc] as number) > (titleSlots[base + 2 * slot + 1] as number)) {
            titleFound[doc] = (titleFound[doc] as number) + ((termTitle[doc] as number) - (titleSlots[base + 2 * slot + 1] as number));
            titleSlots[base + 2 * slot + 1] = termTitle[doc] as number;
          }
        }
        const contribution = term.weight * evidence(termValue[doc] as number);
        if (termLemma[doc] === -1) {
          found[doc] = (found[doc] as number) + contribution;
          ranked[doc] = (ranked[doc] as number) + term.weight * evidence((termValue[doc] as number) * (termRarity[doc] as number));
          continue;
        }
        const base = doc * MAX_QUERY_TERMS * 3;
        const used = usedCount[doc] as number;
        let slot = 0;
        while (slot < used && slots[base + 3 * slot] !== termLemma[doc]) slot += 1;
        if (slot === used) {
          slots[base + 3 * slot] = termLemma[doc] as number;
          slots[base + 3 * slot + 1] = 0;
          slots[base + 3 * slot + 2] = 0;
          usedCount[doc] = used + 1;
        } else if ((slots[base + 3 * slot + 1] as number) >= contribution) continue;
        const rankedContribution = term.weight * evidence((termValue[doc] as number) * (termRarity[doc] as number));
        found[doc] = (found[doc] as number) + (contribution - (slots[base + 3 * slot + 1] as number));
        ranked[doc] = (ranked[doc] as number) + (rankedContribution - (slots[base + 3 * slot + 2] as number));
        slots[base + 3 * slot + 1] = contribution;
        slots[base + 3 * slot + 2] = rankedContribution;
      }
    }
    // Scores first (numbers only), then the best read in order, each checked against the gates,
    // until ten pass: most abilities a common word reaches are never turned into a match.
    // The cues' words, found only in the abilities reached: what each adds to the ranking.
    let cueWeight = 0;
    for (const term of cueTerms) {
      cueWeight += term.weight;
      const termEpoch = nextEpoch();
      let touchedCount = 0;
      for (const { closeness, list } of heldExpansions(term)) {
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
    // The title actions the request's action clashes with (`verbClash`), read once per title action.
    const clashes = new Map<string, boolean>();
    const clashesWith = (doc: number): boolean => {
      const titleAction = titleActions[doc] as readonly string[];
      const key = titleAction.join(" ");
      let found = clashes.get(key);
      if (found === undefined) clashes.set(key, (found = verbClash(terms, titleAction, lexicon, actionAround) !== undefined));
      return found;
    };
    const scored: Array<{ doc: number; text: number; rankText: number; score: number }> = [];
    for (let n = 0; n < reachedCount; n += 1) {
      const doc = reached[n] as number;
      const missing = action && actionStamp[doc] !== queryEpoch;
      const total = missing ? totalWeight + ACTION_PENALTY * ((terms[0] as QueryTerm).weight) : totalWeight;
      const text = textScore(total, found[doc] as number, titleFound[doc] as number, titleTerms[doc] as number);
      if (text < TEXT_MIN) continue;
      const rankText = textScore(total + cueWeight, (ranked[doc] as number) + (cueRanked[doc] as number), titleFound[doc] as number, titleTerms[doc] as number) * (clashesWith(doc) ? VERB_CLASH_SHARE : 1);
      scored.push({ doc, text, rankText, score: wordingScore(rankText, (documents[doc] as LookupDocument).entry, query.project_id) });
    }
    scored.sort((a, b) => b.score - a.score || b.text - a.text || compareCodeUnits((documents[a.doc] as LookupDocument).entry.ability_id, (documents[b.doc] as LookupDocument).entry.ability_id));
    const lemmas = lemmaSetOf(terms);
    const opposed = opposedDocs(terms);
    const matches: WordingMatch[] = [];
    for (const { doc, text, rankText, score } of scored) {
      if (matches.length === LOOKUP_MAX_RESULTS) break;
      const { entry } = documents[doc] as LookupDocument;
      if (wordingRejection(query, entry) !== undefined) continue;
      if (negativeTriggerHit(query.user_query, lemmas, entry, lexicon, negativeTerms) !== undefined) continue;
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
  };

  const spelling = createSpellingReader(lexicon, (lemma) => postings.has(lemma));
  /** The request as the matcher reads it: each unknown word one slip from a known word mended (`wording-spelling.ts`). */
  const readSpelling = (query: AbilityLookupQuery): { query: AbilityLookupQuery; corrections: SpellingCorrection[] } => {
    const read = spelling.read(query.user_query);
    return { query: read.corrections.length === 0 ? query : { ...query, user_query: read.text }, corrections: read.corrections };
  };

  /**
   * The gates `rank` applies whatever the words: why an ability is never returned for this request.
   * `byMeaningAlone`: for an ability the request's words did not find, the title's action the
   * request's action clashes with (`verbClash`) refuses it too — "delete all invoices" reads much
   * like "export the invoices", and only the verbs tell them apart.
   */
  const refusal = (query: AbilityLookupQuery): ((abilityId: string, byMeaningAlone?: boolean) => string | undefined) => {
    const terms = queryTermsOf(query.user_query, lexicon, wordsStartingWith, expansions);
    const lemmas = lemmaSetOf(terms);
    const opposed = opposedDocs(terms);
    return (abilityId, byMeaningAlone = false) => {
      const doc = byId.get(abilityId);
      if (doc === undefined) return "not in the snapshot";
      const { entry } = documents[doc] as LookupDocument;
      if (terms.length === 0) return "the request has no words that carry meaning";
      const rejection = wordingRejection(query, entry);
      if (rejection !== undefined) return rejection;
      const negative = negativeTriggerHit(query.user_query, lemmas, entry, lexicon, negativeTerms);
      if (negative !== undefined) return `negative_trigger_match: "${negative}"`;
      if (opposed?.has(doc) === true) return "opposite_action";
      const clash = byMeaningAlone ? verbClash(terms, titleActions[doc] as readonly string[], lexicon, actionAround) : undefined;
      return clash === undefined ? undefined : `verb_clash: the request asks for another action than "${clash}"`;
    };
  };

  return {
    /** The best matches, at most `LOOKUP_MAX_RESULTS`, with their text scores. */
    rank,
    refusal,
    readSpelling,
    /** §0C.11 `matches` of a lookup answer, ranked by the wording matcher (the request read with its typos mended). */
    lookup(query: AbilityLookupQuery): AbilityLookupResult["matches"] {
      return rank(readSpelling(query).query).map(({ text: _text, rank_text: _rankText, ...match }) => match);
    },
    /** The matcher's verdict on one ability of the snapshot, with reasons; undefined if it is not in it. */
    /** How much finding a word says in this snapshot (see `Rarity`). */
    rarity,
    /** The snapshot's words that begin with a prefix (shortenings, and whether any ability knows a word). */
    wordsStartingWith,
    explain(query: AbilityLookupQuery, abilityId: string): WordingExplanation | undefined {
      const doc = byId.get(abilityId);
      return doc === undefined ? undefined : explainWording(query, documents[doc] as LookupDocument, lexicon, rarity, wordsStartingWith);
    },
  };
}

export type WordingIndex = ReturnType<typeof createWordingIndex>;
