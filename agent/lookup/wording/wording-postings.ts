import { compareCodeUnits } from "../baseline-scorer";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { wordsAround } from "./wording-expansion";
import { fieldTexts, FIELD_WEIGHTS, FIELDS, rarityOf, type LookupDocument, type Rarity } from "./wording-score";
import { contentSize, termsOf } from "./wording-terms";

/** The abilities whose wording holds one word, side by side: each one's best field weight and title closeness; and the word's rarity. */
export interface Posting {
  /** The word's number in this snapshot (what `ownWords` holds). */
  id: number;
  docs: Int32Array;
  weights: Float64Array;
  titles: Float64Array;
  rarity: number;
}

/**
 * What the wording index builds once per snapshot (`createWordingIndex`): an inverted index from
 * each base form to the abilities whose wording holds it, and what ranking needs of each title.
 */
export interface WordingPostings {
  /** How many words that carry meaning each title has, a phrase counting for its words (`titleSize`). */
  titleTerms: Int32Array;
  /** The base forms of each title's first word, its action. */
  titleActions: Array<readonly string[]>;
  /** The abilities whose title begins with each base form. */
  titleActionDocs: Map<string, number[]>;
  postings: Map<string, Posting>;
  /**
   * Each ability's own base forms (not the related words around them), as the sorted `id`s of their
   * postings: read once here, so lookup's second tier (`sharedWords`) never re-reads an ability's text.
   */
  ownWords: Int32Array[];
  rarity: Rarity;
  /** The snapshot's words that begin with a prefix. */
  wordsStartingWith: (prefix: string) => Generator<string>;
}

/** A word's best place in one ability: its field weight, and its title closeness (0 when not in the title). */
type Place = { weight: number; title: number };

/**
 * The same numbers as `documentWords` + `findTerm` (explain), computed per distinct lemma: a word's
 * best place is max over lemmas of closeness × the best field weight of that lemma.
 */
function ownPlaces(document: LookupDocument, lemmasOfText: (text: string) => readonly string[]): Map<string, Place> {
  const texts = fieldTexts(document);
  const own = new Map<string, Place>();
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
  return own;
}

/** The ability's own words and the words around them (`wordsAround`), each at its best place. */
function placesWithRelated(own: ReadonlyMap<string, Place>, lexicon: Lexicon, around: Map<string, ReadonlyMap<string, number>>): Map<string, Place> {
  const best = new Map<string, Place>();
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
  return best;
}

/** The words of a sorted vocabulary that begin with a prefix, in order (a binary search, then a walk). */
function prefixSearch(vocabulary: readonly string[]): (prefix: string) => Generator<string> {
  return function* (prefix: string): Generator<string> {
    let low = 0;
    let high = vocabulary.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((vocabulary[middle] as string) < prefix) low = middle + 1;
      else high = middle;
    }
    for (let at = low; at < vocabulary.length && (vocabulary[at] as string).startsWith(prefix); at += 1) yield vocabulary[at] as string;
  };
}

type Building = { id: number; docs: number[]; weights: number[]; titles: number[] };

/** Postings as (doc, field weight, in title) built per lemma, then frozen into typed arrays with their rarity. */
function freezePostings(building: ReadonlyMap<string, Building>, count: number): { postings: Map<string, Posting>; rarity: Rarity } {
  const postings = new Map<string, Posting>();
  const rarities = new Map<string, number>();
  for (const [lemma, list] of building) {
    const share = rarityOf(list.docs.length, count);
    rarities.set(lemma, share);
    postings.set(lemma, {
      id: list.id,
      docs: Int32Array.from(list.docs),
      weights: Float64Array.from(list.weights),
      titles: Float64Array.from(list.titles),
      rarity: share,
    });
  }
  return { postings, rarity: (lemma) => rarities.get(lemma) ?? 1 };
}

/** The postings of one snapshot's abilities, and each title's size and action. */
export function buildWordingPostings(documents: readonly LookupDocument[], lexicon: Lexicon): WordingPostings {
  const count = documents.length;
  const titleTerms = new Int32Array(count);
  const titleActions: Array<readonly string[]> = new Array(count);
  const titleActionDocs = new Map<string, number[]>();
  const building = new Map<string, Building>();
  const ownWords: Int32Array[] = new Array(count);
  // Shared by all documents while building: the lemmas of a text, and the words around a lemma.
  const around = new Map<string, ReadonlyMap<string, number>>();
  const textLemmas = new Map<string, readonly string[]>();
  const lemmasOfText = (text: string): readonly string[] => {
    let lemmas = textLemmas.get(text);
    if (lemmas === undefined) textLemmas.set(text, (lemmas = termsOf(text, lexicon).flatMap((term) => term.lemmas)));
    return lemmas;
  };
  documents.forEach((document, doc) => {
    const own = ownPlaces(document, lemmasOfText);
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
    for (const [lemma, { weight, title }] of placesWithRelated(own, lexicon, around)) {
      let postings = building.get(lemma);
      if (postings === undefined) building.set(lemma, (postings = { id: building.size, docs: [], weights: [], titles: [] }));
      postings.docs.push(doc);
      postings.weights.push(weight);
      postings.titles.push(title);
    }
    ownWords[doc] = Int32Array.from([...own.keys()].map((lemma) => (building.get(lemma) as Building).id)).sort();
  });
  const { postings, rarity } = freezePostings(building, count);
  building.clear();
  // The index's words in code-unit order, for the words that begin with a prefix.
  const vocabulary = [...postings.keys()].sort((a, b) => compareCodeUnits(a, b));
  return { titleTerms, titleActions, titleActionDocs, postings, ownWords, rarity, wordsStartingWith: prefixSearch(vocabulary) };
}
