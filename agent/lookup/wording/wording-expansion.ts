import { oppositesOf } from "./wording-domain";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { circumstanceCuesOf, IMPLIED_SHARE } from "./wording-circumstance";
import { normalizeText, STOP_WORDS, termsOf, type Term } from "./wording-terms";

/**
 * How the wording matcher (issue #15) widens words before comparing them: a request word's ways
 * to be found (its base forms, related words, the words that define it, the parts of a word
 * WordNet does not list, shortenings both ways) and the words an ability word brings with it (its
 * broader words, the words that define it, its parts). `wording-rank.ts` compares the two
 * (`wording-matcher.ts` for one ability).
 */

/** Most words of a request the matcher reads; the rest of a very long request is ignored. */
export const MAX_QUERY_TERMS = 32;

/** A request word's ways to be found: base forms (closeness 1) and related words. */
export interface QueryTerm extends Term {
  weight: number;
  /** For a word a circumstance cue adds ("where is …" → track, status), the cue: it weighs `IMPLIED_SHARE` of a word and only ranks (never makes a match). */
  implied?: string;
  /**
   * The action the request asks for: its first word, when that word is mostly used as a verb and
   * is not a light one ("delete all invoices"; not "get", "make"). An ability whose wording has
   * nothing of it, not even loosely, likely does something else to the same things ("Export the
   * monthly invoices"): the action then weighs `1 + ACTION_PENALTY` times in the request.
   */
  action?: boolean;
  expansions: ReadonlyMap<string, { closeness: number; via: string }>;
  /**
   * For the request's first word (its action), the actions that undo it (`oppositesOf`: "turn_on"
   * for "turn off", "buy" for "sell", "subscribe" for "unsubscribe"): an ability whose title begins
   * with one of them does the opposite of what is asked and is never matched. Empty for the other words.
   */
  opposites: readonly string[];
}

/** A word's own base forms: for a phrase ("turn off"), the phrase, not the words it is made of ("turn"). */
export function ownForms(term: Term): readonly string[] {
  return term.word.includes(" ") ? term.lemmas.slice(0, 1) : term.lemmas;
}

/** A verb weighing less than this (used very often: "get", "make", "save") is not read as the request's action. */
export const ACTION_MIN_WEIGHT = 0.5;
/**
 * A request whose action an ability's wording has nothing of counts that action this many times
 * more in its weight: "delete all invoices" is at most half covered by "Export the monthly invoices".
 */
export const ACTION_PENALTY = 1;

/** How much a word neither WordNet nor any ability knows weighs in a request (a rare word weighs 1). */
export const UNKNOWN_WORD_WEIGHT = 0.35;

/** How close a word WordNet does not know is to an ability word it begins ("repo" → "repository"). */
export const ABBREVIATION_CLOSENESS = 0.7;
const MIN_ABBREVIATION = 3;

/** The ability words (of the snapshot, or of one ability) that begin with a prefix. */
type WordsStartingWith = (prefix: string) => Iterable<string>;
type Expansions = Map<string, { closeness: number; via: string }>;

export function queryTermsOf(
  query: string,
  lexicon: Lexicon,
  /** The ability words (of the snapshot, or of one ability) that begin with a prefix. */
  wordsStartingWith?: WordsStartingWith,
  /** Expansions already made with the same lexicon and words, by request word (an index keeps one). */
  cache?: Map<string, QueryTerm>,
): QueryTerm[] {
  const own = termsOf(query, lexicon);
  const cues = circumstanceTermsOf(query, lexicon);
  return [...own.slice(0, MAX_QUERY_TERMS - cues.length), ...cues].map((term, at) => {
    const implied = "implied" in term ? (term.implied as string) : undefined;
    const key = implied !== undefined ? `${term.word}\u0000implied` : at === 0 ? `${term.word}\u0000first` : term.word;
    const cached = cache?.get(key);
    if (cached !== undefined) return cached;
    const expanded = expandedTerm(term, at === 0 && implied === undefined, implied, lexicon, wordsStartingWith);
    if (cache !== undefined) {
      if (cache.size > 5_000) cache.clear();
      cache.set(key, expanded);
    }
    return expanded;
  });
}

/** The actions a request's circumstance implies ("where is my parcel": track it), one word per cue. */
function circumstanceTermsOf(query: string, lexicon: Lexicon): (Term & { implied: string })[] {
  return circumstanceCuesOf(normalizeText(query)).map((cue): Term & { implied: string } => ({
    word: cue.label,
    lemmas: [...new Set(cue.implies.flatMap((word) => lexicon.lemmas(word).slice(0, 1)))],
    implied: cue.label,
  }));
}

/** One request word with its ways to be found, its weight, and (the first word) its action and opposites. */
function expandedTerm(term: Term, first: boolean, implied: string | undefined, lexicon: Lexicon, wordsStartingWith: WordsStartingWith | undefined): QueryTerm {
  const expansions = expansionsOf(term, lexicon, wordsStartingWith);
  // A word neither WordNet nor any ability knows, by any of its ways to be found, is a name, a code or a value ("maria", "save10"): what the request is about is in its other words.
  const holds = (word: string) => {
    for (const held of wordsStartingWith?.(word) ?? []) return held === word;
    return false;
  };
  const unknown = wordsStartingWith !== undefined && !term.lemmas.some((lemma) => lexicon.has(lemma)) && ![...expansions.keys()].some(holds);
  const weight =
    implied !== undefined
      ? IMPLIED_SHARE * Math.max(...term.lemmas.map((lemma) => lexicon.weight(lemma)))
      : unknown
        ? UNKNOWN_WORD_WEIGHT
        : Math.min(...term.lemmas.map((lemma) => lexicon.weight(lemma)));
  // A light verb ("get", "make", "set up") says little of the action: the rest of the request does.
  const action = first && weight >= ACTION_MIN_WEIGHT && term.lemmas.some((lemma) => lexicon.mostlyVerb(lemma));
  // The request's first word is its action, as an ability's title's first word is the ability's.
  const opposites = !first ? [] : [...new Set(ownForms(term).flatMap((lemma) => oppositesOf(lemma, lexicon)))].filter((lemma) => !term.lemmas.includes(lemma));
  return { ...term, weight, expansions, opposites, ...(action ? { action } : {}) };
}

/** A request word's ways to be found: its base forms, related words, parts, defining words and shortenings, each at its closest. */
function expansionsOf(term: Term, lexicon: Lexicon, wordsStartingWith: WordsStartingWith | undefined): Expansions {
  const expansions: Expansions = new Map();
  const note = (lemma: string, closeness: number, via: string) => {
    if ((expansions.get(lemma)?.closeness ?? 0) < closeness) expansions.set(lemma, { closeness, via });
  };
  for (const lemma of term.lemmas) note(lemma, 1, lemma);
  for (const lemma of term.lemmas) for (const [word, closeness] of lexicon.related(lemma)) note(word, closeness, lemma);
  // A word WordNet does not list, made of words it does ("rebook", "username"): those words and theirs.
  for (const lemma of term.lemmas) {
    for (const [part, closeness] of lexicon.parts(lemma)) {
      note(part, closeness, lemma);
      for (const [word, related] of lexicon.related(part)) note(word, closeness * related, part);
    }
  }
  // The words that define it, as an ability's words bring theirs (documentWords).
  for (const lemma of term.lemmas) for (const word of definitionWords(lemma, lexicon)) note(word, DEFINITION_CLOSENESS, lemma);
  if (wordsStartingWith !== undefined) noteShortenings(term, lexicon, wordsStartingWith, note);
  return expansions;
}

/** Shortenings both ways between a request word and the ability words. */
function noteShortenings(
  term: Term,
  lexicon: Lexicon,
  wordsStartingWith: WordsStartingWith,
  note: (lemma: string, closeness: number, via: string) => void,
): void {
  // A word WordNet does not know may be a shortening of an ability's word: "repo", "meds".
  if (!term.lemmas.some((lemma) => lexicon.has(lemma))) {
    for (const lemma of term.lemmas) {
      if (lemma.length < MIN_ABBREVIATION || !/^[a-z]+$/.test(lemma)) continue;
      for (const word of wordsStartingWith(lemma)) if (word !== lemma) note(word, ABBREVIATION_CLOSENESS, lemma);
    }
  }
  // And an ability's word WordNet does not know may be a shortening of this one: "admin" of "administrator", "app" of "application".
  for (const written of new Set([term.word, ...term.lemmas])) {
    if (!/^[a-z]+$/.test(written)) continue;
    for (let cut = MIN_ABBREVIATION; cut < written.length - 1; cut += 1) {
      const start = written.slice(0, cut);
      if (STOP_WORDS.has(start) || lexicon.has(start)) continue;
      for (const word of wordsStartingWith(start)) {
        if (word === start) note(start, ABBREVIATION_CLOSENESS, written);
        break;
      }
    }
  }
}

/** How close a word of an ability word's definition is to it. */
export const DEFINITION_CLOSENESS = 0.5;

/** Words of a definition weighing less than this (the most common words) are left out. */
export const DEFINING_WORD_MIN_WEIGHT = 0.4;

/** The base forms of the words that define a word (its most frequent senses). */
export function definitionWords(lemma: string, lexicon: Lexicon): string[] {
  // The common words of a definition ("something", "make", "person") say little about the word defined.
  return lexicon
    .definitions(lemma)
    .flatMap((definition) => termsOf(definition, lexicon).flatMap((term) => term.lemmas.filter((word) => lexicon.weight(word) >= DEFINING_WORD_MIN_WEIGHT)));
}

/** The words an ability word brings with it: its broader words and the words that define it. */
export function wordsAround(lemma: string, lexicon: Lexicon, cache: Map<string, ReadonlyMap<string, number>>): ReadonlyMap<string, number> {
  let found = cache.get(lemma);
  if (found === undefined) {
    const words = new Map<string, number>();
    for (const [broader, closeness] of lexicon.broader(lemma)) if ((words.get(broader) ?? 0) < closeness) words.set(broader, closeness);
    for (const word of definitionWords(lemma, lexicon)) if ((words.get(word) ?? 0) < DEFINITION_CLOSENESS) words.set(word, DEFINITION_CLOSENESS);
    // A word WordNet does not list brings the words it is made of ("inbox" → "box"), and their broader words
    // (their defining words too were measured: the same figures, more postings to walk).
    const note = (word: string, closeness: number) => {
      if ((words.get(word) ?? 0) < closeness) words.set(word, closeness);
    };
    for (const [part, closeness] of lexicon.parts(lemma)) {
      note(part, closeness);
      for (const [broader, near] of lexicon.broader(part)) note(broader, closeness * near);
    }
    words.delete(lemma);
    cache.set(lemma, (found = words));
  }
  return found;
}
