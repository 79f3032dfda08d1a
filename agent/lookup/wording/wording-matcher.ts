import { TEXT_MIN, type AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { ACTION_PENALTY, queryTermsOf, wordsAround, type QueryTerm } from "./wording-expansion";
import { lemmaSetOf, negativeTriggerHit, opposedAction, VERB_CLASH_SHARE, verbClash, wordingRejection } from "./wording-gates";
import { evidence, FIELD_WEIGHTS, FIELDS, fieldTexts, NO_RARITY, textScore, wordingScore, type Field, type LookupDocument, type Rarity } from "./wording-score";
import { contentSize, normalizeText, termsOf } from "./wording-terms";

// The wording matcher's verdict on one ability, with reasons a person can read (`explain-match`):
// the numbers of `wording-score.ts`, found word by word; `wording-index.ts` gives the same over a snapshot.

/** What the matcher found for one ability, with reasons a person can read. */
export interface WordingExplanation {
  matched: boolean;
  score: number;
  /** The share of the request the ability's wording covers: a match needs `TEXT_MIN`. */
  text: number;
  /** The same, each ability word weighed by how few abilities hold it: `score` is made from it. */
  rank_text: number;
  reasons: string[];
  rejections: string[];
  /** The one of `rejections` that says the wording covers too little of the request, if it does. */
  text_rejection?: string;
}

/**
 * The words of each field of a document: its own base forms (closeness 1) and their broader words
 * (`Lexicon.broader`), each with the closeness it is found at.
 */
export type DocumentWords = ReadonlyMap<Field, ReadonlyMap<string, number>>;

/**
 * The best place a request word is found in a document: closeness × field weight, the ability word
 * it is found as (`lemma`), and its best closeness to a word of the title.
 */
export function findTerm(term: QueryTerm, fields: DocumentWords): { value: number; title: number; lemma?: string; titleLemma?: string; reason?: string } {
  let value = 0;
  let title = 0;
  let best: string | undefined;
  let titleLemma: string | undefined;
  let reason: string | undefined;
  for (const [lemma, { closeness, via }] of term.expansions) {
    for (const field of FIELDS) {
      const own = fields.get(field)?.get(lemma);
      if (own === undefined) continue;
      // Multiplied in the order the index multiplies: closeness × (own closeness × field weight).
      const found = closeness * (own * FIELD_WEIGHTS[field]);
      if (found > value) {
        value = found;
        best = lemma;
        const how =
          closeness === 1 && own === 1
            ? lemma === term.word.replace(" ", "_") || lemma === term.word
              ? "as written"
              : `as "${lemma}"`
            : own < 1
              ? `via "${lemma}", which a word of the ability is a kind of, is defined by or is made of (${(closeness * own).toFixed(2)})`
              : `via related word "${lemma}" (of "${via}", ${closeness.toFixed(2)})`;
        reason = `"${term.word}" found ${how} in ${field}`;
      }
      // An own title word counts for the words it stands for (`contentSize`), a related one for one.
      const titleValue = closeness * own * (own === 1 ? contentSize(lemma) : 1);
      if (field === "title" && titleValue > title) {
        title = titleValue;
        titleLemma = lemma;
      }
    }
  }
  return { value, title, ...(best === undefined || reason === undefined ? {} : { lemma: best, reason }), ...(titleLemma === undefined ? {} : { titleLemma }) };
}

/**
 * Each word of an ability counts for one word of the request, the one it says most for: "timer"
 * and "minutes" both lead to "time", but a request is not covered twice by one word. `found` and
 * `title` are the sums over the ability words used.
 */
export class WordUse {
  private readonly used = new Map<string, { found: number; ranked: number; term: string }>();
  found = 0;
  /** `found` with each ability word weighed by its rarity (see `Rarity`): what ranking reads. */
  ranked = 0;
  title = 0;

  private readonly titleUsed = new Map<string, number>();

  /** A title word found for a request word, closeness `title`: each title word counts once, at its best. */
  addTitle(lemma: string, title: number): void {
    const seen = this.titleUsed.get(lemma) ?? 0;
    if (seen >= title) return;
    this.title += title - seen;
    this.titleUsed.set(lemma, title);
  }

  add(lemma: string, found: number, ranked: number, term: string): boolean {
    const seen = this.used.get(lemma);
    if (seen !== undefined && seen.found >= found) return false;
    this.found += found - (seen?.found ?? 0);
    this.ranked += ranked - (seen?.ranked ?? 0);
    this.used.set(lemma, { found, ranked, term });
    return true;
  }

  /** The request word an ability word was used for. */
  termOf(lemma: string): string | undefined {
    return this.used.get(lemma)?.term;
  }
}

/** How many words that carry meaning a title has, a phrase counting for its words (`contentSize`). */
export function titleSize(title: string, lexicon: Lexicon): number {
  return termsOf(title, lexicon).reduce((sum, term) => sum + contentSize(term.lemmas[0] as string), 0);
}

/** The words of each field of a document, and how many words its title has. */
export function documentWords(
  document: LookupDocument,
  lexicon: Lexicon,
  /** Shared by the documents of one index: a word's broader and defining words are the same in each. */
  cache: Map<string, ReadonlyMap<string, number>> = new Map(),
): { fields: Map<Field, Map<string, number>>; titleTerms: number } {
  const texts = fieldTexts(document);
  const around = (lemma: string) => wordsAround(lemma, lexicon, cache);
  const fields = new Map<Field, Map<string, number>>();
  for (const field of FIELDS) {
    const words = new Map<string, number>();
    const lemmas = texts[field].flatMap((text) => termsOf(text, lexicon).flatMap((term) => term.lemmas));
    const note = (word: string, closeness: number) => {
      if ((words.get(word) ?? 0) < closeness) words.set(word, closeness);
    };
    for (const lemma of lemmas) for (const [word, closeness] of around(lemma)) note(word, closeness);
    for (const lemma of lemmas) words.set(lemma, 1);
    fields.set(field, words);
  }
  return { fields, titleTerms: titleSize(document.entry.title, lexicon) };
}

/** How a request's terms met an ability's words: what was found, what was not, and the circumstance cues that only rank. */
interface TermTally {
  total: number;
  use: WordUse;
  hits: Array<{ term: string; lemma: string; reason: string }>;
  missing: string[];
  actionMissing: string | undefined;
  actionWeight: number;
  cueWeight: number;
  cueRanked: number;
  cueReasons: string[];
}

function tallyTerms(terms: ReturnType<typeof queryTermsOf>, fields: Map<Field, Map<string, number>>, rarity: Rarity): TermTally {
  const tally: TermTally = {
    total: 0,
    use: new WordUse(),
    hits: [],
    missing: [],
    actionMissing: undefined,
    actionWeight: 0,
    cueWeight: 0,
    cueRanked: 0,
    cueReasons: [],
  };
  for (const term of terms) {
    // A circumstance cue's word ranks the abilities the request's own words find; it never makes a match.
    if (term.implied !== undefined) {
      tally.cueWeight += term.weight;
      const hit = findTerm(term, fields);
      if (hit.lemma === undefined || hit.reason === undefined) tally.missing.push(term.word);
      else {
        tally.cueRanked += term.weight * evidence(hit.value * rarity(hit.lemma));
        tally.cueReasons.push(`${hit.reason} (the action the request's circumstance implies: it ranks, it does not make a match)`);
      }
      continue;
    }
    tally.total += term.weight;
    const hit = findTerm(term, fields);
    if (term.action === true && hit.value === 0) {
      tally.actionMissing = term.word;
      tally.actionWeight = term.weight;
    }
    if (hit.titleLemma !== undefined) tally.use.addTitle(hit.titleLemma, hit.title);
    if (hit.lemma === undefined || hit.reason === undefined) {
      tally.missing.push(term.word);
      continue;
    }
    tally.use.add(hit.lemma, term.weight * evidence(hit.value), term.weight * evidence(hit.value * rarity(hit.lemma)), term.word);
    tally.hits.push({ term: term.word, lemma: hit.lemma, reason: hit.reason });
  }
  return tally;
}

/** The matcher's verdict on one ability, with its reasons: the same score a lookup gives it. */
export function explainWording(
  query: AbilityLookupQuery,
  document: LookupDocument,
  lexicon: Lexicon,
  rarity: Rarity = NO_RARITY,
  /** The words of the snapshot the ability is in, that begin with a prefix (an index's); by default the ability's own. */
  wordsStartingWith?: (prefix: string) => Iterable<string>,
): WordingExplanation {
  const { fields, titleTerms } = documentWords(document, lexicon);
  const words = [...new Set([...fields.values()].flatMap((field) => [...field.keys()]))].sort();
  const terms = queryTermsOf(query.user_query, lexicon, wordsStartingWith ?? ((prefix) => words.filter((word) => word.startsWith(prefix))));
  const { total, use, hits, missing, actionMissing, actionWeight, cueWeight, cueRanked, cueReasons } = tallyTerms(terms, fields, rarity);
  const reasons: string[] = [];
  for (const { term, lemma, reason } of hits) {
    const owner = use.termOf(lemma);
    reasons.push(owner === term ? reason : `${reason}, but "${lemma}" counts for "${owner}"`);
  }
  reasons.push(...cueReasons);
  const penalty = ACTION_PENALTY * actionWeight;
  const text = textScore(total + penalty, use.found, use.title, titleTerms);
  const titleFirst = termsOf(document.entry.title, lexicon)[0];
  const clash = verbClash(terms, titleFirst?.lemmas ?? [], lexicon, new Map());
  const rankText = textScore(total + penalty + cueWeight, use.ranked + cueRanked, use.title, titleTerms) * (clash === undefined ? 1 : VERB_CLASH_SHARE);
  const score = wordingScore(rankText, document.entry, query.project_id);
  const rejections: string[] = [];
  const rejection = wordingRejection(query, document.entry);
  if (rejection !== undefined) rejections.push(rejection);
  const negative = negativeTriggerHit(query.user_query, lemmaSetOf(terms), document.entry, lexicon);
  if (negative !== undefined) rejections.push(`negative_trigger_match: "${negative}"`);
  const opposed = opposedAction(terms, titleFirst?.lemmas ?? []);
  if (opposed !== undefined)
    rejections.push(`opposite_action: the request asks to "${opposed.asked}", the opposite of "${opposed.opposite}" at the start of its title`);
  let textRejection: string | undefined;
  if (terms.length === 0) rejections.push(`the request "${normalizeText(query.user_query).slice(0, 80)}" has no words that carry meaning`);
  else if (text < TEXT_MIN)
    rejections.push((textRejection = `wording covers ${(text * 100).toFixed(0)} % of the request, below ${(TEXT_MIN * 100).toFixed(0)} %`));
  if (missing.length > 0) reasons.push(`not found: ${missing.map((word) => `"${word}"`).join(", ")}`);
  if (clash !== undefined)
    reasons.push(
      `the request asks to "${terms[0]?.word}", and the ability's title begins with another action, "${clash}": it ranks lower (× ${VERB_CLASH_SHARE})`,
    );
  if (actionMissing !== undefined)
    reasons.push(`"${actionMissing}", the action asked for, is nowhere in the ability's wording: it counts twice in the request`);
  reasons.unshift(
    `wording text score ${text.toFixed(2)} (matches from ${TEXT_MIN.toFixed(2)}); ${rankText.toFixed(2)} weighed by how few abilities hold the words found (ranks by it)`,
  );
  if (!document.entry.usable_now) reasons.push(`usable_now=false: ${document.entry.reason_unusable ?? "unknown"}`);
  return {
    matched: rejections.length === 0,
    score,
    text,
    rank_text: rankText,
    reasons,
    rejections,
    ...(textRejection === undefined ? {} : { text_rejection: textRejection }),
  };
}
